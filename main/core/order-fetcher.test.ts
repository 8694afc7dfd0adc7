// The fetcher's bounded wait for documents: what a new order's announcement waits on.
import { expect, it } from 'vitest';
import { OrderFetcher } from './order-fetcher';

it('ends a wait for documents when it stops, not when the wait runs out: a quit is not held by it', async () => {
  const never = new Promise<void>(() => {});
  const fetcher = new OrderFetcher({
    due: () => [],
    fetch: () => never,
    stored: () => false,
    idle: () => {},
  });
  void fetcher.refresh('a1'); // a document that never arrives
  let ended = false;
  const waiting = fetcher.settled(['a1'], 60_000).then(() => {
    ended = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(ended).toBe(false);
  void fetcher.stop();
  await Promise.race([waiting, new Promise((resolve) => setTimeout(resolve, 1_000))]);
  expect(ended).toBe(true);
});
