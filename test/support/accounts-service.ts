// The app's service over several accounts, each on a marketplace of its own (issue 23): the
// settings list them, each secret is in the keychain for its own marketplace, and every request
// that goes out is recorded (origin, path, the credentials it carried) as are the events and the
// log. Shared by the several-accounts tests (accounts.test.ts, tolerance-two-accounts.test.ts).
import { rm } from 'node:fs/promises';
import { type SecretStore, secretOwner } from '../../main/core/secrets';
import { SellerTrayService, type ServiceEvent } from '../../main/core/service';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../../main/core/settings';
import type { Settings } from '../../preload/model';
import type { AccountEntry } from '../../preload/settings-declaration';
import { ManualTimers, makeDataDir } from './core';
import { recordingLog } from './recording-log';
import { serviceCalls } from './test-service';

/** What went out, per request: where to, and the credentials it carried. */
export interface Sent {
  origin: string;
  path: string;
  authorization: string | null;
}

export type ServedAccount = AccountEntry & { secret: string };

/**
 * A service over `accounts` (marks sent at once: no undo), in a data folder of its own; `close`
 * closes it and takes away its folder and its secrets.
 */
export async function openAccountsService(
  accounts: ServedAccount[],
  ports: {
    secrets: SecretStore;
    demo?: { baseUrl: string; clientId: string; clientSecret: string } | undefined;
    more?: Partial<Settings>;
  },
) {
  const { secrets, demo } = ports;
  const dir = await makeDataDir();
  const settings = new ConfSettingsStore({ cwd: dir });
  settings.save({
    ...DEFAULT_SETTINGS,
    undoSeconds: 0,
    accounts: accounts.map(({ secret: _, ...entry }) => entry),
    ...ports.more,
  });
  for (const account of accounts)
    await secrets.set(secretOwner(account.baseUrl, account.clientId), account.secret);
  const sent: Sent[] = [];
  const { log, entries } = recordingLog();
  const service = await SellerTrayService.open({
    settings,
    secrets,
    dataRoot: dir,
    timers: new ManualTimers(),
    log,
    ...(demo ? { demo: { start: async () => demo } } : {}),
    transport: (url, init) => {
      sent.push({
        origin: new URL(url).origin,
        path: new URL(url).pathname,
        authorization: new Headers(init.headers).get('authorization'),
      });
      return fetch(url, init);
    },
  });
  const events: ServiceEvent[] = [];
  service.onEvent((event) => events.push(event));
  service.listening();
  const close = async () => {
    await service.close();
    for (const account of accounts) await secrets.delete(secretOwner(account.baseUrl, account.clientId));
    await rm(dir, { recursive: true, force: true });
  };
  return { service, call: serviceCalls(service).call, events, sent, entries, dir, close };
}

/** The orders the service announced as new, in order (notified one by one, in a summary, or held). */
export const arrived = (events: ServiceEvent[]) =>
  events.flatMap((event) => (event.type === 'orders-arrived' ? event.orderIds : []));
