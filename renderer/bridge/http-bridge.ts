// The bridge over loopback HTTP, for the browser preview: the same Bridge the Electron
// preload exposes, carried as POSTs (one per request) and server-sent events. The run's
// token arrives in the page address's fragment, which the browser never sends to a server.
import { type Bridge, type Channel, requests } from '../../preload/contract';

const TOKEN_KEY = 'seller-tray-token';

/** Takes the token out of the address (so it is not bookmarked or shown) into this tab's storage. */
function takeToken(): string {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** A bridge failure, with the service's code ('invalid-input', 'unusual-transition', …). */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
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
    const answer = (await response.json()) as {
      ok: boolean;
      value?: unknown;
      error?: { code: string; message: string };
    };
    if (!answer.ok)
      throw new BridgeError(answer.error?.code ?? 'internal', answer.error?.message ?? 'Unknown error');
    return answer.value;
  };
  const methods = Object.fromEntries(
    (Object.keys(requests) as Channel[]).map((channel) => [
      channel,
      (request: unknown) => call(channel, request),
    ]),
  );
  return {
    ...(methods as Omit<Bridge, 'onEvent'>),
    onEvent(listener) {
      const source = new EventSource(`/bridge/events?token=${encodeURIComponent(token)}`);
      source.onmessage = (message) => listener(JSON.parse(message.data as string));
      return () => source.close();
    },
  };
}
