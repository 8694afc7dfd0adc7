// The bridge over loopback HTTP, for the browser preview: the same Bridge the Electron
// preload exposes, carried as POSTs (one per request) and server-sent events. The run's
// token arrives in the page address's fragment, which the browser never sends to a server,
// and goes back only as an Authorization header: the event stream is read with fetch, as
// EventSource can send no header (and a token in its address would end up in logs).
import { type AnswerError, type Bridge, CHANNELS, type Channel } from '../../preload/contract';

const TOKEN_KEY = 'seller-tray-token';
/** As EventSource does: a dropped stream is opened again after a moment. */
const RECONNECT_MS = 3000;

/** Takes the token out of the address (so it is not bookmarked or shown) into this tab's storage. */
function takeToken(): string {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** A bridge failure, with the service's code ('invalid-input', 'unusual-transition', …) and detail. */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: AnswerError['details'],
    readonly fields?: AnswerError['fields'],
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

export function createHttpBridge(): Bridge {
  const token = takeToken();
  const call = async (channel: Channel, request: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`/bridge/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        ...(request === undefined ? {} : { body: JSON.stringify(request) }),
      });
    } catch {
      throw new BridgeError('preview-unreachable', 'The Seller Tray preview server is not running.');
    }
    if (response.status === 401) {
      throw new BridgeError(
        'unauthorized',
        'This page is not authorised: open the address the preview printed.',
      );
    }
    const answer = (await response.json()) as { ok: boolean; value?: unknown; error?: AnswerError };
    if (!answer.ok) {
      const { code = 'internal', message = 'Unknown error', details, fields } = answer.error ?? {};
      throw new BridgeError(code, message, details, fields);
    }
    return answer.value;
  };
  const methods = Object.fromEntries(
    CHANNELS.map((channel) => [channel, (request: unknown) => call(channel, request)]),
  );
  return {
    ...(methods as Omit<Bridge, 'onEvent'>),
    onEvent(listener) {
      const stop = new AbortController();
      void followEvents(token, stop.signal, (data) => listener(JSON.parse(data)));
      return () => stop.abort();
    },
  };
}

/** Reads the event stream until `signal` aborts, opening it again when it drops; not when refused. */
async function followEvents(
  token: string,
  signal: AbortSignal,
  onData: (data: string) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const response = await fetch('/bridge/events', {
        headers: { Authorization: `Bearer ${token}` },
        signal,
      });
      // A wrong token (401) stays wrong: the calls say so; other refusals may pass.
      if (response.status === 401) return;
      if (response.ok && response.body) await readServerSentData(response.body, onData);
    } catch {
      // Dropped, or stopped: the loop decides.
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/** The `data:` of each server-sent event, as the preview server writes them (one line each). */
async function readServerSentData(body: ReadableStream<Uint8Array>, onData: (data: string) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    const events = buffered.split('\n\n');
    buffered = events.pop() ?? '';
    for (const event of events) {
      for (const line of event.split('\n'))
        if (line.startsWith('data: ')) onData(line.slice('data: '.length));
    }
  }
}
