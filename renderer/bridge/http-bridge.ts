// The bridge over loopback HTTP, for the browser preview: the same Bridge the Electron
// preload exposes, carried as POSTs (one per request, answered with the service's `Answer`) and
// server-sent events. A call that fails on its way resolves to a failed `Answer` too. The run's
// token arrives in the page address's fragment, which the browser never sends to a server,
// and goes back only as an Authorization header: the event stream is read with fetch, as
// EventSource can send no header (and a token in its address would end up in logs).
import { type Answer, type Bridge, CHANNELS, type Channel, failedAnswer } from '../../preload/contract';

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

export function createHttpBridge(): Bridge {
  const token = takeToken();
  const call = async (channel: Channel, request: unknown): Promise<Answer<unknown>> => {
    let response: Response;
    try {
      response = await fetch(`/bridge/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        ...(request === undefined ? {} : { body: JSON.stringify(request) }),
      });
    } catch {
      return failedAnswer('preview-unreachable', 'The Seller Tray preview server is not running.');
    }
    if (response.status === 401) {
      return failedAnswer(
        'unauthorized',
        'This page is not authorised: open the address the preview printed.',
      );
    }
    try {
      return (await response.json()) as Answer<unknown>;
    } catch {
      return failedAnswer(
        'preview-unreadable',
        `The Seller Tray preview server gave an answer the window cannot read (HTTP ${response.status}).`,
      );
    }
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
