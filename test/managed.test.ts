// A laptop an organization manages (issue 25): the service under policies read from real
// /etc/seller-tray/policies-shaped folders, with the real keychain and the simulator over loopback.
// Locked settings cannot be changed through the bridge (as the window sends them) nor by editing
// the settings file; a policy added while the app runs is in force at once; Diagnose lists them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLog } from '../main/core/log';
import { linuxPolicySource } from '../main/core/policy/sources';
import { PolicyWatcher } from '../main/core/policy/watcher';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { type Simulator, startSimulator } from '../simulator/server';
import { makeDataDir } from './support/core';
import { admin } from './support/raw-api';
import { openTestService, serviceCalls } from './support/test-service';

const CLIENT = { clientId: 'fleet-client', clientSecret: 'fleet-secret-51c2' };
let sim: Simulator;
const secrets = new KeytarSecretStore();
const cleanup: (() => unknown)[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    orders: 3,
    sellers: [{ sellerId: 2001, orders: 3, clients: [CLIENT] }],
  });
});
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});
afterAll(() => sim.close());

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

/** A data folder and a policy folder; `policies` are written before the app starts. */
async function managedLaptop(policies: { managed?: object; recommended?: object } = {}) {
  const dir = await makeDataDir();
  const root = path.join(dir, 'etc-policies');
  // As the packages leave them: empty, watched from the start.
  for (const level of ['managed', 'recommended']) mkdirSync(path.join(root, level), { recursive: true });
  if (policies.managed) writeJson(path.join(root, 'managed', 'fleet.json'), policies.managed);
  if (policies.recommended) writeJson(path.join(root, 'recommended', 'fleet.json'), policies.recommended);
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const open = async () => {
    const watcher = await PolicyWatcher.start(linuxPolicySource(root), { log: silentLog, settleMs: 50 });
    const { service, events } = await openTestService(dir, { secrets, policies: watcher });
    cleanup.push(
      () => service.close(),
      () => watcher.close(),
    );
    const { call, refusal } = serviceCalls(service);
    return { service, watcher, events, call, refusal };
  };
  const settingsFile = path.join(dir, 'settings.json');
  return { dir, root, open, settingsFile };
}

const FLEET = { baseUrl: '', clientId: CLIENT.clientId, pollIntervalMinimumSeconds: 120 };

describe('a managed laptop', () => {
  it('refuses a locked setting through the bridge, saves the user’s own, and never writes a policy into the file', async () => {
    const laptop = await managedLaptop({
      managed: { ...FLEET, baseUrl: sim.url, locale: 'de-DE' },
      recommended: { reminderAfterMinutes: 60 },
    });
    const { call, refusal } = await laptop.open();
    const state = await call('getState');
    expect(state).toMatchObject({ baseUrl: sim.url, clientId: CLIENT.clientId });
    expect(state.managed).toEqual({
      locked: expect.arrayContaining(['baseUrl', 'clientId', 'demoMode']),
      demoAllowed: false,
      automationsAllowed: true,
      pollIntervalMinimumSeconds: 120,
      // The window writes in it too (renderer/locale-policy.test.tsx).
      locale: 'de-DE',
    });

    expect(await refusal('setSettings', { clientId: 'someone-else' })).toMatchObject({
      code: 'managed',
      fields: [{ field: 'clientId', message: 'Client id is managed by your organization' }],
    });
    expect(await refusal('setSettings', { pollIntervalSeconds: 60 })).toMatchObject({
      code: 'managed',
      message: 'Check interval must be at least 120 seconds: your organization allows no shorter',
    });
    expect(await refusal('startDemo')).toMatchObject({ code: 'managed' });

    const saved = await call('setSettings', { notificationsEnabled: false, pollIntervalSeconds: 300 });
    expect(saved).toMatchObject({
      notificationsEnabled: false,
      pollIntervalSeconds: 300,
      reminderAfterMinutes: 60,
    });
    const onDisk = JSON.parse(readFileSync(laptop.settingsFile, 'utf8'));
    expect(onDisk).toMatchObject({
      notificationsEnabled: false,
      pollIntervalSeconds: 300,
      baseUrl: '',
      clientId: '',
    });
    expect(onDisk.reminderAfterMinutes).toBe(240); // the recommendation stays IT's to change

    // The secret is never a policy: the user gives it, and the laptop connects to IT's marketplace.
    cleanup.push(() => secrets.delete(secretOwner(sim.url, CLIENT.clientId)));
    await call('setSecret', { secret: CLIENT.clientSecret });
    expect((await call('checkNow')).state).toMatchObject({ setup: 'configured', connection: 'ok' });
  });

  it('keeps a lock when someone edits the settings file', async () => {
    const laptop = await managedLaptop({ managed: { ...FLEET, baseUrl: sim.url } });
    writeJson(laptop.settingsFile, {
      baseUrl: 'https://elsewhere.example',
      clientId: 'mine',
      pollIntervalSeconds: 30,
      undoSeconds: 5,
    });
    const { call } = await laptop.open();
    expect(await call('getSettings')).toMatchObject({
      baseUrl: sim.url,
      clientId: CLIENT.clientId,
      pollIntervalSeconds: 120, // raised to the shortest allowed
      undoSeconds: 5, // the user's own
    });
  });

  it('advises asking IT, not a field Settings shows locked, from the moment a policy sets the client', async () => {
    const laptop = await managedLaptop();
    writeJson(laptop.settingsFile, { baseUrl: sim.url, clientId: CLIENT.clientId });
    cleanup.push(() => secrets.delete(secretOwner(sim.url, CLIENT.clientId)));
    await secrets.set(secretOwner(sim.url, CLIENT.clientId), CLIENT.clientSecret);
    const { call, watcher } = await laptop.open();
    // The client lacks the permission to read new events, also with a fresh token.
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'listNewEvents', action: 'status', status: 403, times: 1000 }],
    });
    cleanup.push(() => admin(sim.url, 'POST', 'reset'));
    const refused = async () => (await call('checkNow')).state.problem?.message;
    expect(await refused()).toContain('or enter another client in Settings.');

    // IT sets the same account: nothing reconnects, and the same failure is advised anew.
    writeJson(path.join(laptop.root, 'managed', 'fleet.json'), {
      baseUrl: sim.url,
      clientId: CLIENT.clientId,
    });
    await watcher.refresh();
    const managed = await refused();
    expect(managed).toContain(
      'or ask your IT support for another client (a policy sets the client on this computer).',
    );
    expect(managed).not.toContain('Settings');
  });

  it('runs no automation where the organization does not allow them: Test and Run again are refused', async () => {
    const laptop = await managedLaptop({
      managed: { baseUrl: sim.url, clientId: CLIENT.clientId, automationsAllowed: false },
    });
    const marker = path.join(laptop.dir, 'ran.txt');
    writeJson(laptop.settingsFile, {
      automations: [
        {
          name: 'provision',
          action: {
            type: 'command',
            command: [process.execPath, '-e', "require('fs').writeFileSync(process.argv[1], '')", marker],
          },
        },
      ],
    });
    const { call, refusal } = await laptop.open();
    cleanup.push(() => secrets.delete(secretOwner(sim.url, CLIENT.clientId)));
    await call('setSecret', { secret: CLIENT.clientSecret });
    await call('checkNow');
    const orderId = JSON.parse(sim.store.listOrderJson(2001, 0, 1).items[0] ?? '{}').orderId as string;
    for (const channel of ['testAutomation', 'runAutomation'] as const)
      expect(await refusal(channel, { automation: 'provision', orderId })).toMatchObject({
        code: 'managed',
        message:
          'Your organization does not allow automations on this computer (policy automationsAllowed): provision was not run.',
      });
    expect(existsSync(marker)).toBe(false);
    // The window is told, so it offers no Run again that would be refused.
    expect((await call('getState')).managed.automationsAllowed).toBe(false);
  });

  it('puts a policy IT adds while the app runs in force at once, and lifting it gives the user’s choice back', async () => {
    const laptop = await managedLaptop();
    const { call, watcher, events } = await laptop.open();
    await call('setSettings', { undoSeconds: 5 });
    writeJson(path.join(laptop.root, 'managed', 'fleet.json'), { undoSeconds: 30, inboxSort: 'newest' });
    await expect
      .poll(async () => (await call('getState')).managed.locked.sort(), { timeout: 5000 })
      .toEqual(['inboxSort', 'undoSeconds']);
    expect(await call('getSettings')).toMatchObject({ undoSeconds: 30, inboxSort: 'newest' });
    expect(events.some((e) => e.type === 'app-state' && e.state.managed.locked.includes('undoSeconds'))).toBe(
      true,
    );

    await rm(path.join(laptop.root, 'managed', 'fleet.json'));
    await watcher.refresh();
    expect(await call('getSettings')).toMatchObject({ undoSeconds: 5, inboxSort: 'longest-waiting' });
  });

  it('keeps every account of a policy list whose labels collapse, relabelling only the repeats, and says which are left out', async () => {
    const account = (label: string, clientId = CLIENT.clientId) => ({ label, baseUrl: sim.url, clientId });
    const laptop = await managedLaptop({
      managed: {
        accounts: [
          account('EU'),
          // The same label once cleaned (case and spaces, a zero-width space, a right-to-left
          // mark): each a client of its own, so each is kept, its client id after its label.
          account('eu ', 'fleet-eu-2'),
          account('E\u200bU', 'fleet-eu-3'),
          account('\u200fEU', 'fleet-eu-4'),
          // The first account again under another label, and one that cannot be used: each left
          // out (ignored), the others kept.
          account('Again'),
          { label: 'US', baseUrl: 'ftp://marketplace.example', clientId: 'fleet-us' },
        ],
      },
    });
    const { call, service } = await laptop.open();
    expect(service.state().accounts.map((a) => a.label)).toEqual([
      'EU',
      'eu (fleet-eu-2)',
      'EU (fleet-eu-3)',
      'EU (fleet-eu-4)',
    ]);
    cleanup.push(() => secrets.delete(secretOwner(sim.url, CLIENT.clientId)));
    await call('setSecret', { secret: CLIENT.clientSecret });
    const { report } = await call('diagnose');
    const fleet = path.join(laptop.root, 'managed', 'fleet.json');
    expect(report).toContain('Policies of your organization: 1 in force, 2 ignored\n');
    expect(report).toContain(`changed: ${fleet}: accounts: account 2 ("eu", client fleet-eu-2`);
    expect(report).toMatch(/changed: .*account 3 \("EU".*repeats "EU".*: kept as "EU \(fleet-eu-3\)"/);
    expect(report).toMatch(/ignored: .*account 5 \("Again".*repeats "EU".*left out/);
    expect(report).toMatch(/ignored: .*account 6 \("US".*baseUrl is not usable.*left out/);
  });

  it('lists the policies in force and those ignored in Diagnose, and runs despite a bad one', async () => {
    const laptop = await managedLaptop({
      managed: { ...FLEET, baseUrl: sim.url, undoSeconds: 'ten', clientSecret: 'pasted' },
    });
    const { call } = await laptop.open();
    cleanup.push(() => secrets.delete(secretOwner(sim.url, CLIENT.clientId)));
    await call('setSecret', { secret: CLIENT.clientSecret });
    const { report } = await call('diagnose');
    expect(report).toContain('Policies of your organization: 3 in force, 2 ignored');
    expect(report).toContain(
      `  clientId = "${CLIENT.clientId}" (locked; ${path.join(laptop.root, 'managed', 'fleet.json')})`,
    );
    expect(report).toMatch(
      /ignored: .*fleet\.json: undoSeconds must be a whole number of seconds from 0 to 60/,
    );
    expect(report).toMatch(/ignored: .*clientSecret is never a policy/);
    expect(report).not.toContain('pasted');
  });
});
