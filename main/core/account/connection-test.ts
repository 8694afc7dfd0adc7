// Settings → Test connection: ping, then a token, for an account not necessarily saved yet.
// Each outcome comes back with a message the user can act on. Without a secret in the request,
// only one stored for this very origin may go there (secrets.ts).
import type { ConnectionTest } from '../../../preload/contract';
import type { ApiSection } from '../../../preload/model';
import { SellerApiClient } from '../api/client';
import { SellerApiError } from '../api/errors';
import { checkBaseUrl, type Transport } from '../api/transport';
import type { Log } from '../log';
import { noSecretFor, type SecretStore } from '../secrets';
import { accountLog, accountRef, clientOptionsFor, keychainEntry } from './account-ref';

export interface ConnectionTestPorts {
  secrets: SecretStore;
  /** The settings file's routes (the account under test is read as the saved one would be). */
  api: ApiSection | null;
  transport?: Transport | undefined;
  log?: Log | undefined;
}

export async function testConnection(
  input: { baseUrl: string; clientId: string; secret?: string | undefined },
  ports: ConnectionTestPorts,
): Promise<ConnectionTest> {
  const base = checkBaseUrl(input.baseUrl);
  if (!base.ok)
    return { ok: false, reason: 'invalid-url', message: `The base URL is not usable: ${base.problem}.` };
  const ref = accountRef({ baseUrl: base.url, clientId: input.clientId, api: ports.api });
  const owner = keychainEntry(ref);
  const secret = input.secret ?? (await ports.secrets.get(owner));
  if (secret === undefined) {
    return { ok: false, reason: 'credentials', message: `${noSecretFor(owner)} Enter it to test.` };
  }
  const client = new SellerApiClient(
    clientOptionsFor(ref, async () => secret, {
      transport: ports.transport,
      log: ports.log && accountLog(ports.log, ref),
      retry: { maxAttempts: 1 },
    }),
  );
  try {
    const ping = await client.ping();
    const { sellerId } = await client.authenticate();
    return { ok: true, sellerId, stage: ping.stage ?? null };
  } catch (error) {
    if (!(error instanceof SellerApiError)) throw error;
    if (error.credentialsRejected) {
      return {
        ok: false,
        reason: 'credentials',
        message: 'The marketplace rejected the client id or secret.',
      };
    }
    if (error.kind === 'tls')
      return { ok: false, reason: 'tls', message: `The server's certificate was refused. ${error.message}` };
    // config: the request was refused before it left (a redirect, another origin).
    if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'config') {
      return {
        ok: false,
        reason: 'unreachable',
        message: `The marketplace could not be reached. ${error.message}`,
      };
    }
    return { ok: false, reason: answeredReason(error), message: error.message };
  }
}

/**
 * Why the marketplace's answer failed a connection test: no such operation at that address (a
 * wrong path in the base URL: not something to wait out), trouble of its own (wait), or a refusal.
 */
function answeredReason(error: SellerApiError): 'wrong-address' | 'refused' | 'server' {
  const status = error.status ?? 0;
  if (error.kind === 'schema' || status === 404 || status === 405 || status === 410) return 'wrong-address';
  return status === 429 || status >= 500 ? 'server' : 'refused';
}
