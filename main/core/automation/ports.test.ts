// The secrets an automation's accounts share (ports.ts): one function answers what the others
// hold for both of its callers, the app's changes (shareAutomationSecrets) and the CLI's
// `automations secret` (main/cli/automations.test.ts); a keychain that cannot be read is never
// taken for "no secret".
import { describe, expect, it } from 'vitest';
import type { AutomationSetting } from '../../../preload/automations';
import { memorySecrets } from '../../../test/support/memory-secrets';
import { recordingLog } from '../../../test/support/recording-log';
import { type AccountRef, accountRef } from '../account/account-ref';
import { KeychainUnavailableError, type SecretStore } from '../secrets';
import { automationSecretEntry, heldAutomationSecrets, shareAutomationSecrets } from './ports';

const account = (label: string): AccountRef =>
  accountRef({ baseUrl: 'https://api.example.test', clientId: `client-${label}`, label });
const [EU, US, APAC] = [account('EU'), account('US'), account('APAC')];
const HOOK: AutomationSetting = {
  name: 'hook',
  enabled: true,
  products: [],
  orderTypes: [],
  accounts: 'all',
  reportStatus: null,
  action: { type: 'webhook', url: 'https://receiver.example.test/hook' },
};

/** A keychain holding these secrets of the hook, by account; reading `locked`'s fails as a locked keychain does. */
async function keychain(held: [AccountRef, string][], locked?: AccountRef) {
  const inner = memorySecrets();
  for (const [ref, secret] of held) await inner.set(automationSecretEntry(ref, HOOK.name), secret);
  const store: SecretStore = {
    ...inner,
    get: async (owner) => {
      if (locked && owner.clientId === automationSecretEntry(locked, HOOK.name).clientId)
        throw new KeychainUnavailableError(new Error('The keyring is locked'), 'linux');
      return inner.get(owner);
    },
  };
  const of = (ref: AccountRef) => inner.get(automationSecretEntry(ref, HOOK.name));
  return { store, of };
}

describe('heldAutomationSecrets', () => {
  it('answers each other account’s secret, and the one they share', async () => {
    const { store } = await keychain([[EU, 'whsec_one']]);
    const held = await heldAutomationSecrets(store, HOOK, [EU, US, APAC], new Set([APAC.id]));
    expect(held.held.map(({ ref, secret }) => [ref.label, secret])).toEqual([
      ['EU', 'whsec_one'],
      ['US', undefined],
    ]);
    expect(held.shared).toBe('whsec_one');
  });

  it('shares none where the others hold different ones', async () => {
    const { store } = await keychain([
      [EU, 'whsec_one'],
      [US, 'whsec_two'],
    ]);
    expect(
      (await heldAutomationSecrets(store, HOOK, [EU, US, APAC], new Set([APAC.id]))).shared,
    ).toBeUndefined();
  });

  it('throws for a keychain that cannot be read, never answering "none"', async () => {
    const { store } = await keychain([[EU, 'whsec_one']], US);
    await expect(
      heldAutomationSecrets(store, HOOK, [EU, US, APAC], new Set([APAC.id])),
    ).rejects.toBeInstanceOf(KeychainUnavailableError);
  });
});

describe('shareAutomationSecrets (the app adding an account, or an automation gaining one)', () => {
  it('gives the account gaining it the one secret the others hold', async () => {
    const { store, of } = await keychain([[EU, 'whsec_one']]);
    await shareAutomationSecrets(store, [HOOK], [EU, US, APAC], [APAC]);
    expect(await of(APAC)).toBe('whsec_one');
  });

  it('gives nothing where a keychain entry cannot be read, and logs it: the change itself goes on', async () => {
    const { store, of } = await keychain([[EU, 'whsec_one']], US);
    const { log, entries } = recordingLog();
    await shareAutomationSecrets(store, [HOOK], [EU, US, APAC], [APAC], log);
    expect(await of(APAC)).toBeUndefined();
    expect(entries).toMatchObject([
      { level: 'warn', message: 'the keychain entries of the automation hook were not all updated' },
    ]);
  });
});
