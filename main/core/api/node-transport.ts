// The transport of the processes that run in plain Node (the CLI, the browser preview), made to
// work on a corporate network as the desktop app does through Chromium's network stack:
// - a proxy from HTTPS_PROXY / HTTP_PROXY (either case), bypassed for NO_PROXY's hosts, through
//   undici's EnvHttpProxyAgent (Node's own fetch has no proxy support before Node 24);
// - the certificate authorities Node trusts (its bundle and NODE_EXTRA_CA_CERTS) and, where Node
//   can read it (22.15 and later), the operating system's store, where IT installs the CA of a
//   TLS-inspecting proxy.
// Loopback is never proxied, as Chromium does: the demo marketplace and the simulator are local.
import tls from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
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

export function nodeTransport(options: NodeTransportOptions = {}): Transport {
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
  return (url, init) => {
    const dispatcher = LOOPBACK.test(new URL(url).hostname) ? direct : viaProxy;
    // undici's Response is the standard one the client reads; only its TypeScript types differ.
    return undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  };
}
