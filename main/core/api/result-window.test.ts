import { describe, expect, it } from 'vitest';
import { SellerApiError } from './errors';
import { deepestAnswering, mayBeWindowRefusal, windowNamedIn } from './result-window';

const refusal = (status: number, detailedDescription?: string) =>
  new SellerApiError(
    { kind: 'http', operation: 'listEvents', status, description: 'Bad request', detailedDescription },
    `HTTP ${status}`,
  );

const ELASTIC =
  'Result window is too large, from + size must be less than or equal to: [10000] but was [10100]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.';

describe('result windows', () => {
  it('reads the window a refusal names, and only when its words speak of one', () => {
    expect(windowNamedIn(refusal(400, ELASTIC), 10_100)).toBe(10_000);
    expect(windowNamedIn(refusal(400, 'offset + limit must not pass 500'), 600)).toBe(500);
    expect(windowNamedIn(refusal(400, 'limit must be between 1 and 50'), 100)).toBeUndefined();
    expect(windowNamedIn(new Error(ELASTIC), 10_100)).toBeUndefined();
  });

  it('takes a 4xx about the request as a possible window, never one about the caller or a missing resource', () => {
    for (const status of [400, 413, 416, 422]) expect(mayBeWindowRefusal(refusal(status))).toBe(true);
    for (const status of [401, 403, 404, 408, 409, 429, 500, 503]) {
      expect(mayBeWindowRefusal(refusal(status))).toBe(false);
    }
    expect(mayBeWindowRefusal(refusal(500, ELASTIC))).toBe(true); // older Elasticsearch answered 500
  });

  it('finds an unnamed window in about log2 n pages of one item', async () => {
    for (const window of [1, 2, 37, 10_000]) {
      const asked: number[] = [];
      const answers = async (end: number) => {
        asked.push(end);
        return end <= window;
      };
      expect(await deepestAnswering(answers, 0, window + 100)).toBe(window);
      expect(asked.length).toBeLessThanOrEqual(Math.ceil(Math.log2(window + 100)) + 2);
    }
  });

  it('is no window when nothing answers, or when the refused end answers when asked again', async () => {
    expect(await deepestAnswering(async () => false, 0, 200)).toBeUndefined();
    expect(await deepestAnswering(async () => true, 100, 200)).toBeUndefined();
  });
});
