// One HTTP delivery of an automation (a signed webhook, a Slack or Teams incoming webhook), and
// what its answer means: 2xx delivered; an answer a retry cannot change (a redirect, 4xx but
// 408 and 429) failed at once; anything else (5xx, 408, 429, no answer, too slow) tried again with
// growing waits until RETRY_FOR_MS after the run was queued. The status line decides: the body
// after it is only words kept with the run, read here alone (each Post hands it over unread), as
// far as ANSWER_READ_MOST and for ANSWER_READ_MS at most; one that stalls or breaks off undoes nothing.
// Sent through the platform's network client where it gives one (the app's net.fetch, the CLI's
// undici `request`: a company's proxy applies; api/node-transport.ts), else with node:http(s) over
// kept-alive connections, not fetch: fetch's streams cost more than twice the CPU of a POST
// (0.37 against 0.15 ms on loopback), spent on every run.
// A body is bytes made once (its length, signature and write share them); a receiver's address is
// parsed once, not for each of its thousands of deliveries.
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { parseRetryAfter } from '../api/retry';
import type { Transport } from '../api/transport';
import { cleanOutput } from './command';

/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long deliveries are tried again after the run was queued. */
export const RETRY_FOR_MS = 24 * 60 * 60_000;
/** The first wait before trying again, doubled each time up to RETRY_MAX_WAIT_MS. */
export const RETRY_FIRST_WAIT_MS = 30_000;
export const RETRY_MAX_WAIT_MS = 60 * 60_000;
/** How much of a receiver's answer is kept with the run. */
export const ANSWER_KEPT = 2048;
/**
 * How much of an answer's body is read at most: past what is kept, to its end when that is near
 * (an error page), so that its connection serves the next delivery; a longer one's goes.
 */
export const ANSWER_READ_MOST = 64 * 1024;
/** How long the body of an answer is read once its status came (within the delivery's time limit, if shorter). */
export const ANSWER_READ_MS = 2_000;

/** A receiver's answer as its status line came: its body still to read. */
export interface Answered {
  status: number;
  /** Its Retry-After header as sent, if any. */
  retryAfter?: string | undefined;
  /**
   * Its body as text, read as it comes; leaving the reading early, or the POST's signal, ends it
   * (and its connection). Read once, at least to its first chunk, so that its connection is let go.
   */
  body: AsyncIterable<string>;
}

/** Sends one POST; answers as soon as the receiver's status line came, with the body unread. */
export type Post = (
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<Answered>;

// One pool a scheme for the process: deliveries to the same receiver reuse its connections
// (idle ones closed by the server's keep-alive hint; they never keep the process up).
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** A receiver's request options and module, by its address: a few addresses, each delivered to again and again. */
const targets = new Map<string, { send: typeof http.request; options: http.RequestOptions }>();
const TARGETS_KEPT = 16;

function target(url: string) {
  let known = targets.get(url);
  if (!known) {
    const parsed = new URL(url);
    const secure = parsed.protocol === 'https:';
    known = {
      send: secure ? https.request : http.request,
      // As http.request(URL) reads it (credentials in the address included).
      options: {
        ...urlToHttpOptions(parsed),
        method: 'POST',
        agent: secure ? agents['https:'] : agents['http:'],
      },
    };
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(url, known);
  }
  return known;
}

/** The POST of deliveries: no redirect followed (node:http follows none). */
export const httpPost: Post = (url, body, headers, signal) =>
  new Promise((resolve, reject) => {
    const { send, options } = target(url);
    // Its own listener, not http's `signal` option: that one watches the request's end through
    // half a dozen stream listeners of its own, a cost on every delivery. It stays until the
    // answer's body is done with, which the stop ends too.
    const stop = () => request.destroy(signal.reason);
    const request = send(
      { ...options, headers: { ...headers, 'Content-Length': body.length } },
      (response) => {
        response.setEncoding('utf8');
        response.once('close', () => signal.removeEventListener('abort', stop));
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          body: response,
        });
      },
    );
    request.on('error', (error) => {
      signal.removeEventListener('abort', stop);
      reject(error);
    });
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    request.end(body);
  });

/**
 * The POST of deliveries over the platform's network client (the app's Chromium stack:
 * api/transport.ts), so a receiver behind the company's proxy is reached as the marketplace is:
 * no redirect followed.
 */
export function transportPost(transport: Transport): Post {
  return async (url, body, headers, signal) => {
    // An 'abort' listener never hears a stop that came first.
    signal.throwIfAborted();
    // Its own, to end the request once the answer's body is done with.
    const request = new AbortController();
    const stop = () => request.abort();
    signal.addEventListener('abort', stop, { once: true });
    const done = () => {
      signal.removeEventListener('abort', stop);
      request.abort();
    };
    try {
      const response = await transport(url, {
        method: 'POST',
        headers,
        // Bytes of a string (Buffer.from), never shared memory: what fetch's body type asks.
        body: body as Uint8Array<ArrayBuffer>,
        redirect: 'manual',
        // Electron's net.fetch would send the app's cookies and keep the receiver's.
        credentials: 'omit',
        signal: request.signal,
      }).catch((error: unknown) => {
        // Electron's net.fetch refuses a redirect it is told not to follow rather than answer it.
        if (!signal.aborted && /redirect was cancelled/i.test(String(error))) throw new RedirectNotFollowed();
        throw error;
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after') ?? undefined,
        body: bodyText(response.body, done),
      };
    } catch (error) {
      done();
      throw error;
    }
  };
}

/**
 * An answer's body (a fetch's stream, undici's) as text, chunk by chunk, a character cut between
 * two chunks kept whole; `done` once it ended, broke off or was left.
 */
export async function* bodyText(
  body: AsyncIterable<Uint8Array> | null,
  done = () => {},
): AsyncGenerator<string, void, undefined> {
  try {
    if (body === null) return;
    const decoder = new TextDecoder();
    for await (const chunk of body) yield decoder.decode(chunk, { stream: true });
  } finally {
    done();
  }
}

/** The receiver answered with a redirect, as a network client that does not give its status says. */
class RedirectNotFollowed extends Error {}

export interface DeliveryResult {
  /** The HTTP status, or null when none came. */
  status: number | null;
  outcome: 'delivered' | 'refused' | 'retry';
  detail: string;
  /** The start of the receiver's answer, cleaned. */
  answer: string;
  /** How long the receiver asked to wait before it is tried again (Retry-After), in seconds. */
  retryAfterSeconds?: number | undefined;
}

export async function deliver(
  post: Post,
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
  signal?: AbortSignal,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<DeliveryResult> {
  // Stopped already: an 'abort' listener would never hear of it, and the request would go out.
  if (signal?.aborted)
    return { status: null, outcome: 'retry', detail: 'stopped before it was sent', answer: '' };
  // One controller per delivery, told of a stop by a listener removed afterwards: AbortSignal.any
  // over the runner's long-lived stop signal kept every delivery's signal (2 KiB each) alive.
  const controller = new AbortController();
  let slow = false;
  let timer = setTimeout(() => {
    slow = true;
    controller.abort();
  }, timeoutMs);
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const sent = await post(
      url,
      bytes,
      { 'Content-Type': 'application/json', ...headers },
      controller.signal,
    );
    // The status came: its answer is read for a while more at most, and what it does decides nothing.
    clearTimeout(timer);
    const readFor = Math.min(ANSWER_READ_MS, timeoutMs);
    timer = setTimeout(() => {
      slow = true;
      controller.abort();
    }, readFor);
    const read = await answerOf(sent.body, () =>
      !controller.signal.aborted
        ? undefined
        : slow
          ? `the rest of its answer did not come within ${readFor / 1000} s, so it was not read`
          : 'its answer was not read to its end: stopped',
    );
    const answer = cleanOutput(read.text.slice(0, ANSWER_KEPT));
    const cut = read.cut ? `; ${read.cut}` : '';
    const { status } = sent;
    if (status >= 200 && status < 300)
      return { status, outcome: 'delivered', detail: `delivered (HTTP ${status})${cut}`, answer };
    // A redirect is not followed (the body and its signature are for this address), nor tried again.
    const final =
      (status >= 300 && status < 400) || (status >= 400 && status < 500 && status !== 408 && status !== 429);
    return {
      status,
      retryAfterSeconds: final ? undefined : parseRetryAfter(sent.retryAfter ?? null, Date.now()),
      outcome: final ? 'refused' : 'retry',
      detail: `the receiver answered HTTP ${status}${status < 400 ? ' (a redirect, not followed)' : ''}${final ? ': not tried again' : ''}${cut}`,
      answer,
    };
  } catch (error) {
    if (error instanceof RedirectNotFollowed)
      return {
        status: null,
        outcome: 'refused',
        detail: 'the receiver answered with a redirect (not followed): not tried again',
        answer: '',
      };
    return {
      status: null,
      outcome: 'retry',
      detail: slow
        ? `the receiver did not answer within ${timeoutMs / 1000} s`
        : `the receiver could not be reached: ${reasonOf(error)}`,
      answer: '',
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * The start of an answer's body, read at most to ANSWER_READ_MOST (the rest left, its connection
 * with it), and why it was cut when it did not end by itself: `stopped` names the delivery's stop
 * or its time to read, if that is what cut it; else the connection broke off.
 */
async function answerOf(
  body: AsyncIterable<string>,
  stopped: () => string | undefined,
): Promise<{ text: string; cut?: string }> {
  let text = '';
  let read = 0;
  try {
    for await (const chunk of body) {
      if (text.length < ANSWER_KEPT) text += chunk;
      read += chunk.length;
      if (read >= ANSWER_READ_MOST) break;
    }
    return { text };
  } catch (error) {
    return { text, cut: stopped() ?? `its answer broke off: ${reasonOf(error)}` };
  }
}

/** The words of a network error, its cause's where it has one (fetch's "fetch failed" says nothing). */
function reasonOf(error: unknown): string {
  const reason =
    error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.message
      : String(error);
  return cleanOutput(reason);
}

/**
 * When to try again after `attempts` attempts of a run queued at `queuedMs`, never before the
 * receiver asked (its Retry-After, within the longest wait), or undefined when the retries' time is up.
 */
export function retryAt(
  attempts: number,
  queuedMs: number,
  nowMs: number,
  retryAfterSeconds = 0,
): number | undefined {
  const backoff = RETRY_FIRST_WAIT_MS * 2 ** Math.max(0, attempts - 1);
  const wait = Math.min(Math.max(backoff, retryAfterSeconds * 1000), RETRY_MAX_WAIT_MS);
  const at = nowMs + wait;
  return at - queuedMs > RETRY_FOR_MS ? undefined : at;
}
