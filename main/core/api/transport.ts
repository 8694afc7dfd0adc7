// How the client reaches the network. The shell passes Electron's net.fetch (so the
// system proxy applies); tests and the CLI pass Node's fetch. Both have this shape.

export type Transport = (url: string, init: RequestInit) => Promise<Response>;

/** A request the transport would not send: to another origin, or after a redirect. */
export class OriginError extends Error {
  override readonly name = 'OriginError';
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * A transport that reaches the marketplace at `baseUrl`'s origin and nothing else: the requests
 * carry its credentials (Basic with the secret, then Bearer with a token), so a request for
 * another origin is refused before it is sent, and a redirect is never followed (a fetch that
 * follows would send the request on, and net.fetch's handling of Authorization across origins is
 * Chromium's). A moved API is fixed by changing the base URL.
 */
export function originBound(
  baseUrl: string,
  transport: Transport = (url, init) => fetch(url, init),
): Transport {
  return async (url, init) => {
    const origin = new URL(baseUrl).origin;
    if (new URL(url).origin !== origin) {
      throw new OriginError(
        `a request for ${new URL(url).origin} was not sent: this account is at ${origin}`,
      );
    }
    const response = await transport(url, { ...init, redirect: 'manual' });
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel();
    const location = response.headers.get('location');
    throw new OriginError(
      `the marketplace answered with a redirect${location ? ` to ${location}` : ''}, which Seller Tray does not follow: check the base URL`,
    );
  };
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The base URL as the client uses it (no trailing slash), or an explanation of why it
 * cannot be used: https is required, except on loopback where the simulator runs.
 */
export function checkBaseUrl(raw: string): { ok: true; url: string } | { ok: false; problem: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, problem: `"${withoutCredentials(raw)}" is not a URL` };
  }
  if (url.username || url.password) return { ok: false, problem: 'the base URL must not carry credentials' };
  if (url.search || url.hash) return { ok: false, problem: 'the base URL must not have a query or fragment' };
  const loopback = LOOPBACK_HOSTS.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    return {
      ok: false,
      problem: 'the base URL must use https (plain http is allowed only on this computer)',
    };
  }
  return { ok: true, url: url.href.replace(/\/+$/, '') };
}

/** Text with what stands between `//` and `@` taken out: an address, parsed or not, may carry credentials. */
export function withoutCredentials(text: string): string {
  return text.replace(/\/\/[^/?#]*@/, '//');
}

/** An address as a message may repeat it: its scheme and host alone (no credentials, path or query), or "?". */
export function addressShown(address: unknown): string {
  if (typeof address !== 'string' || !URL.canParse(address.trim())) return '?';
  const { protocol, host } = new URL(address.trim());
  return `${protocol}//${host}`;
}

/**
 * How a failed TLS handshake that names no certificate reads: `plain`, the server answered in
 * plain HTTP where TLS was asked (an https:// address at an http:// port, or a proxy between that
 * answers so: OpenSSL's "wrong version number", in Node); `protocol`, Chromium's catch-all for a
 * handshake that failed (the app's net.fetch: a plain answer too, or a client certificate the
 * server asks for, an inspecting proxy); else undefined. Neither is a refused certificate.
 */
export function tlsProtocolFailure(error: unknown): 'plain' | 'protocol' | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(e.message)) return 'plain';
    if (/ERR_SSL_PROTOCOL_ERROR/.test(e.message)) return 'protocol';
  }
  return undefined;
}

/** A connection that failed as a network's do (reset, refused, unreachable), whatever its message names. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/**
 * Tells a refused certificate apart from other failures to get an answer. A connection reset
 * before TLS began (a firewall, a restart: "socket disconnected before secure TLS connection was
 * established") is the network's, by its code.
 */
export function isTlsFailure(error: unknown): boolean {
  const chain: { code: string; message: string }[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause)
    chain.push({ code: (e as NodeJS.ErrnoException).code ?? '', message: e.message });
  if (chain.some(({ code }) => NETWORK_CODES.has(code))) return false;
  return chain.some(
    ({ code, message }) =>
      /CERT|TLS|SSL/i.test(code) || /certificate|ERR_CERT|ERR_SSL|\bSSL\b|\bTLS\b/i.test(message),
  );
}
