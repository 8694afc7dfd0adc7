// Result windows: search-backed listings (Elasticsearch and OpenSearch default to 10,000) refuse
// a page whose offset + limit passes a window, with a 4xx whose words may or may not name it.
// The window is learned once, from the words or by finding the deepest place that still answers,
// and the listing is then read only within it (its newest end within reach).
import { SellerApiError } from './errors';

/** Refusals that are about the caller or the resource, never a window. */
const NOT_A_WINDOW = new Set([401, 403, 404, 408, 409, 429]);

/** Words servers use for a window: Elasticsearch's, OpenSearch's, and plainer ones. */
const WINDOW_WORDS =
  /result window|max_result_window|from \+ size|offset \+ limit|window|too deep|out of range/i;

function wordsOf(error: SellerApiError): string {
  return [error.errorCode, error.description, error.detailedDescription].filter(Boolean).join(' ');
}

/**
 * Whether a listing's refusal may be a window: a 4xx about the request (not the credentials, a
 * missing resource or a rate), or any error whose words speak of a window.
 */
export function mayBeWindowRefusal(error: unknown): error is SellerApiError {
  if (!(error instanceof SellerApiError) || error.kind !== 'http' || error.status === undefined) return false;
  if (error.status >= 400 && error.status < 500 && !NOT_A_WINDOW.has(error.status)) return true;
  return WINDOW_WORDS.test(wordsOf(error));
}

/**
 * The window a refusal names ("from + size must be less than or equal to: [10000] but was
 * [10100]"): the largest number in its words below the offset + limit asked, when the words
 * speak of a window.
 */
export function windowNamedIn(error: unknown, asked: number): number | undefined {
  if (!(error instanceof SellerApiError)) return undefined;
  const words = wordsOf(error);
  if (!WINDOW_WORDS.test(words)) return undefined;
  const below = (words.match(/\d+/g) ?? []).map(Number).filter((n) => n >= 1 && n < asked);
  return below.length > 0 ? Math.max(...below) : undefined;
}

/**
 * The window, from pages of one item: whether a page ending at `end` (offset end - 1, limit 1)
 * answers. `answered` places are known to answer, `refused` (offset + limit of the refused page)
 * not; in between the interval is halved, about log2(refused - answered) requests. Undefined when
 * not even the first place answers, or the refused end answers when asked again: then the
 * refusal was about something else.
 */
export async function deepestAnswering(
  answers: (end: number) => Promise<boolean>,
  answered: number,
  refused: number,
): Promise<number | undefined> {
  let good = Math.min(answered, refused - 1);
  if (good < 1) {
    if (!(await answers(1))) return undefined;
    good = 1;
  }
  let bad = refused;
  while (bad - good > 1) {
    const middle = good + Math.floor((bad - good) / 2);
    if (await answers(middle)) good = middle;
    else bad = middle;
  }
  // The refused end asked once more when no nearer place was refused: a refusal that passed is
  // no window (remembered, a wrong one would hide the listing's end for good).
  if (bad === refused && (await answers(refused))) return undefined;
  return good;
}
