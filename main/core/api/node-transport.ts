// The transport of the processes that run in plain Node (the CLI, the browser preview), made to
// work on a corporate network as the desktop app does through Chromium's network stack:
// - a proxy from HTTPS_PROXY / HTTP_PROXY (either case), bypassed for NO_PROXY's hosts, through
//   undici's EnvHttpProxyAgent (Node's own fetch has no proxy support before Node 24);
// - the certificate authorities Node trusts (its bundle and NODE_EXTRA_CA_CERTS) and, where Node
//   can read it (22.15 and later), the operating system's store, where IT installs the CA of a
//   TLS-inspecting proxy.
// Loopback is never proxied, as Chromium does: the demo marketplace and the simulator are local.
import tls from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent, request, fetch as undiciFetch } from 'undici';
import { bodyText, type Post } from '../automation/delivery';
import type { Transport } from './transport';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Node's trusted authorities with the system's added, or undefined (Node's defaults) where it cannot read them. */
function trustedAuthorities(): string[] | undefined {
  const read = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  if (!read) return undefined;
  try {
    return [...new Set([...read('default'), ...read('system')])];
  } catch {
    return undefined;
  }
}

export interface NodeTransportOptions {
  /** The environment the proxy variables are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The authorities to trust; default Node's and the system's (trustedAuthorities). */
  ca?: string[] | undefined;
}

/** Picks each request's way out: loopback directly, anything else through the proxy the environment names. */
function dispatcherFor(options: NodeTransportOptions): (url: URL) => Dispatcher {
  const env = options.env ?? process.env;
  const ca = 'ca' in options ? options.ca : trustedAuthorities();
  const tlsOptions = ca ? { ca } : {};
  const direct = new Agent({ connect: tlsOptions });
  const viaProxy: Dispatcher = new EnvHttpProxyAgent({
    // An empty variable counts as unset; '' rather than undefined, or undici reads process.env again.
    httpProxy: env.http_proxy || env.HTTP_PROXY || '',
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || '',
    noProxy: env.no_proxy || env.NO_PROXY || '',
    connect: tlsOptions,
    requestTls: tlsOptions,
    proxyTls: tlsOptions,
  });
  return (url) => (LOOPBACK.test(url.hostname) ? direct : viaProxy);
}

/** The network of a plain Node process: the client's requests, and automations' deliveries on the same ways out. */
export interface NodeNetwork {
  transport: Transport;
  /**
   * Deliveries go through undici's `request`, not fetch: no WHATWG streams and Response made for
   * each of thousands of them (fetch's POST cost twice the CPU: test/bench/README.md, Automations).
   * No redirect is followed (`request` follows none).
   */
  post: Post;
}

export function nodeNetwork(options: NodeTransportOptions = {}): NodeNetwork {
  const dispatcher = dispatcherFor(options);
  return {
    transport: (url, init) =>
      // undici's Response is the standard one the client reads; only its TypeScript types differ.
      undiciFetch(url, {
        ...(init as object),
        dispatcher: dispatcher(new URL(url)),
      }) as unknown as Promise<Response>,
    post: async (url, body, headers, signal) => {
      const target = new URL(url);
      const answered = request(target, {
        method: 'POST',
        headers,
        body,
        signal,
        dispatcher: dispatcher(target),
      });
      const response = await untilStopped(answered, signal).catch((error: unknown) => {
        // An answer that comes after all is not read: its connection goes.
        answered.then(
          (late) => late.body.destroy(),
          () => {},
        );
        throw error;
      });
      const retryAfter = response.headers['retry-after'];
      return {
        status: response.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        // Its signal, or leaving its reading early, destroys the rest (and its connection).
        body: bodyText(response.body),
      };
    },
  };
}

/**
 * `work`, or the signal's reason once it is stopped: undici's `request` hears its signal only
 * once a socket is connected, so a stop or the time limit during a TLS handshake or a proxy's
 * CONNECT that never ends would wait for undici's own limits (10 s, 300 s), where fetch stops at once.
 */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let stop = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([work, stopped]).finally(() => signal.removeEventListener('abort', stop));
}
