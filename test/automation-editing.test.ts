// Settings → Automations through the bridge, as the window sends it (issue 24): the service on two
// simulators over loopback and the real keychain (run with test/with-keychain.sh). Each change is
// checked by the settings file's rules and refused field by field; a secret goes into the
// keychain entry of each account the automation runs for and never comes back; a removal takes
// it out; Test runs once against a stored order; an organization's lock refuses every change.
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountRef } from '../main/core/account/account-ref';
import { secretEntries } from '../main/core/automation/ports';
import { resolvePolicies } from '../main/core/policy/layers';
import { fixedPolicies } from '../main/core/policy/watcher';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import type { AutomationSetting } from '../preload/automations';
import type { Simulator } from '../simulator/server';
import { makeDataDir } from './support/core';
import { oneSellerMarketplace } from './support/one-seller-marketplace';
import { admin } from './support/raw-api';
import { openTestService, serviceCalls } from './support/test-service';

const EU = { clientId: 'eu-edit-client', clientSecret: 'eu-edit-secret-1' };
const US = { clientId: 'us-edit-client', clientSecret: 'us-edit-secret-2' };
const SIGNING_SECRET = 'whsec_never_shown_9f2c';

let eu: Simulator;
let us: Simulator;
const secrets = new KeytarSecretStore();
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  eu = await oneSellerMarketplace(1, 4101, 2, EU);
  us = await oneSellerMarketplace(2, 4201, 2, US);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await eu.close();
  await us.close();
});

/** The person's answer in the shell's dialog allowing a command; no dialog at all when absent. */
type Allow = (automation: AutomationSetting) => Promise<boolean>;

async function laptop(managed?: Record<string, unknown>, confirmCommand?: Allow) {
  const dir = await makeDataDir();
  const accounts = [
    { label: 'EU', baseUrl: eu.url, clientId: EU.clientId },
    { label: 'US', baseUrl: us.url, clientId: US.clientId },
  ];
  new ConfSettingsStore({ cwd: dir }).save({ ...DEFAULT_SETTINGS, accounts });
  await secrets.set(secretOwner(eu.url, EU.clientId), EU.clientSecret);
  await secrets.set(secretOwner(us.url, US.clientId), US.clientSecret);
  const refs = accounts.map((a) => accountRef(a));
  const policies =
    managed &&
    fixedPolicies(
      resolvePolicies({ documents: [{ level: 'managed', origin: 'test', values: managed }], problems: [] }),
    );
  const { service } = await openTestService(dir, {
    secrets,
    ...(policies ? { policies } : {}),
    ...(confirmCommand ? { confirmCommand } : {}),
  });
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    async () => {
      for (const account of accounts) await secrets.delete(secretOwner(account.baseUrl, account.clientId));
    },
    () => service.close(),
  );
  return { dir, refs, ...serviceCalls(service) };
}

const hook = (accounts: AutomationSetting['accounts']): AutomationSetting => ({
  name: 'billing hook',
  enabled: true,
  products: [],
  orderTypes: [],
  accounts,
  action: { type: 'webhook', url: 'https://billing.example.com/seller-tray' },
  reportStatus: null,
});

describe('the automation channels', () => {
  it('refuse what is no automation, naming the field and the rule the settings file applies', async () => {
    const { call, refusal } = await laptop();
    expect(await refusal('saveAutomation', { automation: 'rm -rf /' })).toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/the automation must be an object/),
    });
    expect(await refusal('setAutomationSecret', { automation: 'billing hook', secret: '' })).toMatchObject({
      message: expect.stringMatching(/the secret is empty/),
    });
    const plain = { ...hook('all'), action: { type: 'webhook', url: 'http://billing.example.com/x' } };
    expect((await refusal('saveAutomation', { automation: plain })).fields).toEqual([
      {
        field: 'action.url',
        message:
          'the address must use https:// (plain http:// only to this computer: 127.0.0.1, [::1] or localhost)',
      },
    ]);
    const command = {
      ...hook('all'),
      name: 'provision',
      action: { type: 'command', command: ['', '--eu'], timeoutSeconds: 0 },
    };
    expect((await refusal('saveAutomation', { automation: command })).fields).toEqual([
      { field: 'action.command.0', message: 'an argument must not be empty' },
      {
        field: 'action.timeoutSeconds',
        message: 'the time limit is a whole number of seconds from 1 to 3600',
      },
    ]);
    await call('saveAutomation', { automation: hook('all') });
    expect(
      (await refusal('saveAutomation', { automation: { ...hook('all'), name: 'Billing Hook' } })).fields,
    ).toEqual([{ field: 'name', message: 'another automation has this name' }]);
    // A name stays once saved: it names the runs and the keychain entries.
    expect(
      (
        await refusal('saveAutomation', {
          automation: { ...hook('all'), name: 'renamed' },
          replaces: 'billing hook',
        })
      ).fields?.[0]?.field,
    ).toBe('name');
    expect(await refusal('removeAutomation', { automation: 'nothing' })).toMatchObject({ code: 'not-found' });
  });

  it('keep a secret in the keychain for each account the automation runs for, never in an answer or the file', async () => {
    const { call, refusal, refs, dir } = await laptop();
    const [euRef] = refs;
    const saved = await call('saveAutomation', { automation: hook([euRef?.id as string]) });
    expect(saved).toMatchObject({ secretsStored: [], managed: false });
    const stored = await call('setAutomationSecret', { automation: 'billing hook', secret: SIGNING_SECRET });
    expect(stored.secretsStored).toEqual(['billing hook']);
    expect(JSON.stringify(stored)).not.toContain(SIGNING_SECRET);
    expect(JSON.stringify(await call('getAutomations'))).not.toContain(SIGNING_SECRET);
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain(SIGNING_SECRET);
    const owners = secretEntries(hook('all'), refs);
    cleanups.push(async () => {
      for (const owner of owners) await secrets.delete(owner);
    });
    // For EU only; widened to all accounts, the US entry gains the secret EU holds.
    expect(await Promise.all(owners.map((o) => secrets.get(o)))).toEqual([SIGNING_SECRET, undefined]);
    const widened = await call('saveAutomation', { automation: hook('all'), replaces: 'billing hook' });
    expect(widened.secretsStored).toEqual(['billing hook']);
    expect(await Promise.all(owners.map((o) => secrets.get(o)))).toEqual([SIGNING_SECRET, SIGNING_SECRET]);

    // A chat's address is checked as a webhook's; a command has no secret.
    await call('saveAutomation', {
      automation: { ...hook('all'), name: 'sales', action: { type: 'slack' } },
    });
    expect(
      await refusal('setAutomationSecret', { automation: 'sales', secret: 'http://hooks.slack.com/x' }),
    ).toMatchObject({
      fields: [
        { field: 'secret', message: expect.stringMatching(/^The incoming webhook address must use https:/) },
      ],
    });

    await call('removeAutomation', { automation: 'billing hook' });
    expect(await Promise.all(owners.map((o) => secrets.get(o)))).toEqual([undefined, undefined]);
  });

  it('give an account added later the secrets of the automations that run for it only, and take them out when it leaves', async () => {
    const { call, refs } = await laptop();
    const [euRef, usRef] = refs;
    if (!euRef || !usRef) throw new Error('two accounts');
    await call('removeAccount', { account: usRef.id });
    await call('saveAutomation', { automation: hook('all') });
    await call('saveAutomation', { automation: { ...hook('all'), name: 'own secrets' } });
    await call('saveAutomation', { automation: { ...hook([euRef.id]), name: 'eu only' } });
    await call('setAutomationSecret', { automation: 'billing hook', secret: SIGNING_SECRET });
    await call('setAutomationSecret', { automation: 'own secrets', secret: 'whsec_eu_own' });
    await call('setAutomationSecret', { automation: 'eu only', secret: 'whsec_for_eu_orders' });
    const [billing = [], own = [], euOnly = []] = ['billing hook', 'own secrets', 'eu only'].map((name) =>
      secretEntries({ ...hook('all'), name }, refs),
    );
    cleanups.push(async () => {
      for (const owner of [...billing, ...own, ...euOnly]) await secrets.delete(owner);
    });
    const held = (entries: typeof billing) => Promise.all(entries.map((o) => secrets.get(o)));
    // US had a secret of its own for this one (the CLI sets them per account): it keeps it.
    await secrets.set(own[1] as (typeof own)[number], 'whsec_us_own');
    expect(await held(billing)).toEqual([SIGNING_SECRET, undefined]);

    const added = await call('addAccount', {
      label: 'US',
      baseUrl: us.url,
      clientId: US.clientId,
      secret: US.clientSecret,
    });
    expect(added.accounts.map((a) => a.label)).toEqual(['EU', 'US']);
    expect(await held(billing)).toEqual([SIGNING_SECRET, SIGNING_SECRET]);
    expect(await held(own)).toEqual(['whsec_eu_own', 'whsec_us_own']);
    // Not run for US: its secret never reaches US's entry.
    expect(await held(euOnly)).toEqual(['whsec_for_eu_orders', undefined]);
    expect((await call('getAutomations')).secretsStored).toEqual(['billing hook', 'own secrets', 'eu only']);

    // Narrowed to EU, US's entry goes; removed, US's entries all go.
    await call('saveAutomation', { automation: hook([euRef.id]), replaces: 'billing hook' });
    expect(await held(billing)).toEqual([SIGNING_SECRET, undefined]);
    await call('removeAccount', { account: usRef.id });
    expect(await held(own)).toEqual(['whsec_eu_own', undefined]);
  });

  it('save a command only when the person allows it outside the window, and run nothing otherwise', async () => {
    const provision: AutomationSetting = {
      ...hook('all'),
      name: 'provision',
      action: { type: 'command', command: [process.execPath, '-e', 'process.exit(0)'], timeoutSeconds: 30 },
    };
    // The preview: no dialog can ask, so the window cannot set a command at all.
    const preview = await laptop();
    expect(await preview.refusal('saveAutomation', { automation: provision })).toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/^A command runs a program on this computer/),
    });
    expect((await preview.call('getAutomations')).automations).toEqual([]);

    // The app: asked in its own dialog; declined, nothing is saved.
    const asked: unknown[] = [];
    let allow = false;
    const app = await laptop(undefined, async (automation) => {
      asked.push(automation.action);
      return allow;
    });
    expect(await app.refusal('saveAutomation', { automation: provision })).toMatchObject({
      code: 'cancelled',
      message: 'provision was not saved: its command was not allowed.',
    });
    expect((await app.call('getAutomations')).automations).toEqual([]);
    allow = true;
    await app.call('saveAutomation', { automation: provision });
    // Turning it off and on again, or any change, asks again; a webhook never asks.
    allow = false;
    expect(
      await app.refusal('saveAutomation', {
        automation: { ...provision, enabled: false },
        replaces: 'provision',
      }),
    ).toMatchObject({ code: 'cancelled' });
    await app.call('saveAutomation', { automation: hook('all') });
    expect(asked).toEqual([provision.action, provision.action, provision.action]);
    expect((await app.call('getAutomations')).automations.map((a) => [a.name, a.enabled])).toEqual([
      ['provision', true],
      ['billing hook', true],
    ]);
  });

  it('test an automation once against a stored order, as the CLI does, marking nothing', async () => {
    const { call } = await laptop(undefined, async () => true);
    await call('checkNow');
    const orderId = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    await call('checkNow');
    await call('saveAutomation', {
      automation: {
        ...hook('all'),
        name: 'provision',
        action: {
          type: 'command',
          command: [process.execPath, '-e', 'console.log("tenant for", process.env.SELLER_TRAY_EVENT)'],
          timeoutSeconds: 30,
        },
      },
    });
    const usId = accountRef({ baseUrl: us.url, clientId: US.clientId }).id;
    const run = await call('testAutomation', { automation: 'provision', orderId, account: usId });
    expect(run).toMatchObject({
      trigger: 'test',
      state: 'succeeded',
      exitCode: 0,
      output: 'tenant for order.test',
    });
    expect((await call('getOrder', { orderId, account: usId })).outbox).toEqual([]);
  });

  it('are refused, and say so, while the organization manages automations', async () => {
    for (const managed of [{ automationsAllowed: false }, { automations: [] }]) {
      const { call, refusal } = await laptop(managed);
      expect((await call('getAutomations')).managed).toBe(true);
      expect(await refusal('saveAutomation', { automation: hook('all') })).toMatchObject({
        code: 'managed',
        message: 'Your organization manages the automations on this computer: they cannot be changed here.',
      });
    }
  });
});
