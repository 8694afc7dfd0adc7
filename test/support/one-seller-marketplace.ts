// A marketplace of one seller with one client, on an origin of its own: the several-accounts
// tests (issue 23) serve two or more of them at once, each secret its own.

import { expect } from 'vitest';
import { type SecretStore, secretOwner } from '../../main/core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS, type Settings } from '../../main/core/settings';
import { type Simulator, startSimulator } from '../../simulator/server';
import type { ClientCredential } from '../../simulator/store';
import { runTs } from './processes';

export function oneSellerMarketplace(
  seed: number,
  sellerId: number,
  orders: number,
  client: ClientCredential,
): Promise<Simulator> {
  return startSimulator({ port: 0, seed, sellers: [{ sellerId, orders, clients: [client] }] });
}

/**
 * A data folder whose settings list an account on each marketplace (by label), each secret in
 * `secrets`; its other settings the defaults, but for `more`.
 */
export async function accountsIn(
  dataRoot: string,
  accounts: Record<string, { marketplace: Simulator; client: ClientCredential }>,
  secrets: SecretStore,
  more: Partial<Settings> = {},
): Promise<void> {
  const listed = Object.entries(accounts);
  new ConfSettingsStore({ cwd: dataRoot }).save({
    ...DEFAULT_SETTINGS,
    ...more,
    accounts: listed.map(([label, { marketplace, client }]) => ({
      label,
      baseUrl: marketplace.url,
      clientId: client.clientId,
    })),
  });
  for (const [, { marketplace, client }] of listed)
    await secrets.set(secretOwner(marketplace.url, client.clientId), client.clientSecret);
}

/**
 * A data folder with those accounts (accountsIn), started once by the app in a process of its own
 * (app-service-child.ts, `env` its environment): every account served, nothing told. Answers how
 * many orders its inbox then shows.
 */
export async function firstStart(
  dataRoot: string,
  accounts: Parameters<typeof accountsIn>[1],
  secrets: SecretStore,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  await accountsIn(dataRoot, accounts, secrets);
  const first = await runTs('test/support/app-service-child.ts', [dataRoot], env);
  expect(first.code, first.stderr).toBe(0);
  const started = JSON.parse(first.stdout);
  expect(started).toMatchObject({ setup: 'configured', problems: [] });
  return started.orders;
}
