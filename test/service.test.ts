// The service as the shell and the renderer use it: requests through `handle`, with the
// real keychain (Secret Service), real settings files, and the simulator over loopback.
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { APP_ID } from '../main/core/app-identity';
import { KeychainUnavailableError, KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { SellerTrayService, type ServiceEvent } from '../main/core/service';
import { ConfSettingsStore } from '../main/core/settings';
import { CHANNELS, type Requests } from '../preload/contract';
import { type Simulator, startSimulator } from '../simulator/server';
import { type CaptureServer, startCaptureServer } from './support/capture-server';
import { ManualTimers, makeDataDir } from './support/core';
import { keytar } from './support/keychain';
import { admin } from './support/raw-api';
import { openTestService, serviceCalls } from './support/test-service';

let sim: Simulator;
const secrets = new KeytarSecretStore();
const opened: { service: SellerTrayService; dir: string; clientId: string }[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    orders: 12,
    sellers: [
      { sellerId: 1001, orders: 12, clients: [{ clientId: 'svc-client', clientSecret: 'svc-secret-7f3a' }] },
    ],
  });
});
afterEach(async () => {
  for (const { service, dir, clientId } of opened.splice(0)) {
    service.close();
    await secrets.delete(secretOwner(sim.url, clientId));
    await rm(dir, { recursive: true, force: true });
  }
});
afterAll(() => sim.close());

async function openService(clientId = `svc-client`) {
  const dir = await makeDataDir();
  const { service, events } = await openTestService(dir, { secrets });
  opened.push({ service, dir, clientId });
  const { call, refusal } = serviceCalls(service);
  return { service, dir, events, call, refusal };
}

async function configured() {
  const s = await openService();
  await s.call('setSettings', { baseUrl: sim.url, clientId: 'svc-client' });
  await s.call('setSecret', { secret: 'svc-secret-7f3a' });
  await s.call('checkNow');
  return s;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) files.push(path);
  }
  return files;
}

describe('setting up', () => {
  it('starts unconfigured, and refuses order requests with a clear message', async () => {
    const { call, refusal } = await openService();
    expect((await call('getState')).setup).toBe('unconfigured');
    expect(await refusal('listOrders', {})).toMatchObject({ code: 'not-configured' });
  });

  it('stores the secret in the keychain only: not in settings, state, or answers', async () => {
    const { call, dir } = await configured();
    const state = await call('getState');
    expect(state).toMatchObject({
      setup: 'configured',
      secretStored: true,
      connection: 'ok',
      clientId: 'svc-client',
    });
    expect(await secrets.get(secretOwner(sim.url, 'svc-client'))).toBe('svc-secret-7f3a');
    for (const file of await filesUnder(dir)) {
      expect(await readFile(file, 'utf8'), file).not.toContain('svc-secret-7f3a');
    }
    expect(JSON.stringify(await call('getSettings'))).not.toContain('svc-secret-7f3a');
    expect(JSON.stringify(state)).not.toContain('svc-secret-7f3a');
  });

  it('tells each connection-test outcome apart', async () => {
    const { call } = await openService();
    const test = (payload: Requests['testConnection']) => call('testConnection', payload);
    expect(await test({ baseUrl: 'http://marketplace.example', clientId: 'x', secret: 's' })).toMatchObject({
      ok: false,
      reason: 'invalid-url',
    });
    expect(await test({ baseUrl: 'http://127.0.0.1:9', clientId: 'svc-client', secret: 's' })).toMatchObject({
      ok: false,
      reason: 'unreachable',
    });
    expect(await test({ baseUrl: sim.url, clientId: 'svc-client', secret: 'wrong' })).toMatchObject({
      ok: false,
      reason: 'credentials',
    });
    // A wrong path answers 404: the address is wrong, not something to wait out.
    expect(
      await test({ baseUrl: `${sim.url}/wrong/path`, clientId: 'svc-client', secret: 'svc-secret-7f3a' }),
    ).toMatchObject({ ok: false, reason: 'wrong-address' });
    expect(await test({ baseUrl: sim.url, clientId: 'svc-client', secret: 'svc-secret-7f3a' })).toEqual({
      ok: true,
      sellerId: 1001,
      stage: 'prod',
    });
  });
});

describe('a keychain out of reach', () => {
  it('is told in plain words, on start and when a secret is stored, its own error behind Details', async () => {
    const dir = await makeDataDir();
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const missing = new Error("Cannot find module '../build/Release/keytar.node'");
    const service = await SellerTrayService.open({
      settings: new ConfSettingsStore({ cwd: dir }),
      secrets: new KeytarSecretStore({ loadKeytar: () => Promise.reject(missing) }),
      dataRoot: dir,
      timers: new ManualTimers(),
    });
    onTestFinished(() => service.close());
    const events: ServiceEvent[] = [];
    service.onEvent((e) => events.push(e));
    service.listening();
    const words = new KeychainUnavailableError(missing).advice;
    const told = { message: words, details: [`Keychain error: ${missing.message}`] };

    expect(await service.handle('setSettings', { baseUrl: sim.url, clientId: 'svc-client' })).toMatchObject({
      ok: true,
    });
    expect(events).toContainEqual({ type: 'problem', ...told });
    expect(await service.handleMessage('setSecret', { secret: 'svc-secret-7f3a' })).toEqual({
      ok: false,
      error: { code: 'keychain-unavailable', ...told },
    });
  });
});

describe('requests', () => {
  it('names each refused setting as the form labels it, field by field', async () => {
    const { refusal } = await openService();
    const error = await refusal('setSettings', { pollIntervalSeconds: 5, staleInProgressDays: -1 });
    expect(error.fields).toEqual([
      { field: 'pollIntervalSeconds', message: expect.stringMatching(/^Check interval must be/) },
      { field: 'staleInProgressDays', message: expect.stringMatching(/^In-progress limit must be/) },
    ]);
  });

  it('marks an arrival in the inbox until it is opened, but not the first start backlog', async () => {
    const { call } = await configured();
    const before = await call('listOrders', {});
    expect(before.orders.some((o) => o.unopened)).toBe(false);
    expect(before.unopened).toEqual([]);
    const { orderId } = (await admin(sim.url, 'POST', 'purchases')).json;
    await call('checkNow');
    const after = await call('listOrders', {});
    // Just arrived: on top, whatever the sort, above the first sync's backlog.
    expect(after.unopened).toEqual([{ orderId, index: 0 }]);
    expect(after.groups[0]).toEqual({ name: 'arrived', start: 0, size: 1, holds: 1 });
    expect(after.orders.find((o) => o.orderId === orderId)?.unopened).toBe(true);
    expect((await call('listOrders', { sort: 'newest' })).unopened).toEqual([{ orderId, index: 0 }]);
    await call('getOrder', { orderId });
    expect((await call('listOrders', {})).unopened).toEqual([]);
  });

  it('answers a failed marketplace call in plain words, with the technical detail apart', async () => {
    const { call, refusal } = await configured();
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'status', status: 503, times: 5 }],
    });
    const unknown = '00000000-0000-4000-8000-00000000dead';
    const error = await refusal('getOrder', { orderId: unknown });
    expect(error.code).toBe('api-http');
    expect(error.message).toMatch(/^The marketplace is having problems/);
    expect(error.message).not.toMatch(/HTTP|getOrder|request id/);
    expect(error.details).toEqual(
      expect.arrayContaining([
        'Operation: getOrder',
        expect.stringMatching(/^HTTP status: 503/),
        expect.stringMatching(/^Request id: [0-9a-f-]{36}$/),
      ]),
    );
    // Not this account's to read again: nothing says when.
    expect(error.retryAt).toBeUndefined();
    await admin(sim.url, 'PATCH', 'faults', { script: [] });
    expect((await call('getState')).setup).toBe('configured');
  });

  it('says when Seller Tray reads again an order it could never read', async () => {
    const { call, refusal } = await configured();
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'getOrder', action: 'status', status: 403, times: 100 }],
    });
    const { orderId } = (await admin(sim.url, 'POST', 'purchases')).json;
    await call('checkNow');
    const before = Date.now();
    const error = await refusal('getOrder', { orderId });
    expect(error.message).toMatch(/does not allow this API client to read this order/);
    // Its own failure: a wait of a minute, or two when the poll's fetch and the open's each failed;
    // read again at the first poll (a minute apart) from the wait's end.
    const retryAt = Date.parse(error.retryAt ?? '');
    expect(retryAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(retryAt).toBeLessThan(Date.now() + 2 * 60_000 + 60_000);
    await admin(sim.url, 'PATCH', 'faults', { script: [] });
  });

  it.each([
    ['setSettings', { pollIntervalSeconds: 5 }, 'Check interval must be a whole number'],
    ['setSettings', { clientSecret: 'x' }, 'keychain'],
    ['getOrder', { orderId: 5 }, 'orderId'],
    ['markStatus', { orderId: 'o', statusCode: 'ProvisioningDone' }, 'statusCode'],
    [
      'markStatus',
      { orderId: 'o', statusCode: 'ProvisioningFailed', description: 'x' },
      'detailedDescription',
    ],
    ['pauseNotifications', { until: 'tomorrow' }, 'until'],
    ['getState', { extra: true }, 'expected undefined'],
  ] as const)('refuses %s %j with a message naming %s', async (channel, payload, words) => {
    const { refusal } = await configured();
    const error = await refusal(channel, payload);
    expect(error.code).toBe('invalid-input');
    expect(error.message).toContain(words);
  });

  it('lists, shows and marks orders, and searches by buyer once an order was fetched', async () => {
    const { call } = await configured();
    const waiting = await call('listOrders', { filter: 'ProvisioningStarted' });
    expect(waiting.total).toBeGreaterThan(0);
    expect(waiting.waiting).toBe(waiting.total);
    const orderId = waiting.orders[0]?.orderId ?? '';
    const view = await call('getOrder', { orderId });
    expect(view.order.orderId).toBe(orderId);
    const buyer = view.order.buyerCustomerParty.party?.partyName ?? '';
    expect((await call('listOrders', { search: buyer.slice(0, 6) })).orders.map((o) => o.orderId)).toContain(
      orderId,
    );

    const unusual = await call('markStatus', {
      orderId,
      statusCode: 'ProvisioningCompleted',
      description: 'x',
    }).catch((e: { code: string }) => e);
    expect(unusual).toMatchObject({ code: 'unusual-transition' });
    const item = await call('markStatus', {
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'On it',
    });
    expect(item.state).toBe('pending');
    await call('checkNow');
    expect((await call('getOrder', { orderId })).status).toBe('ProvisioningInProgress');
  });

  it('tells the marketplace who marked each status: the computer account, or "Your name"', async () => {
    const { call, refusal } = await configured();
    expect((await call('getState')).actorName).toBe('Anna Virtanen');
    const orderId = (await call('listOrders', { filter: 'ProvisioningStarted' })).orders[0]?.orderId ?? '';
    const started = await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' });
    expect(started.description).toBe('Provisioning started by Anna Virtanen.');
    const failure = await refusal('markStatus', { orderId, statusCode: 'ProvisioningFailed' });
    expect(failure.code).toBe('invalid-input');

    await call('setSettings', { actorName: 'Bo Berg' });
    expect((await call('getState')).actorName).toBe('Bo Berg');
    const failed = await call('markStatus', {
      orderId,
      statusCode: 'ProvisioningFailed',
      description: 'Tenant quota exceeded',
      detailedDescription: 'eu-central is full',
    });
    expect(failed.description).toBe('Provisioning failed, reported by Bo Berg: Tenant quota exceeded');
    expect((await refusal('setSettings', { actorName: 'Bo: ops' })).message).toContain('colon');
  });

  it('holds a marked status for the grace period, and undoes it: nothing reaches the marketplace', async () => {
    const { call, refusal } = await configured();
    const orderId = (await call('listOrders', { filter: 'ProvisioningStarted' })).orders[0]?.orderId ?? '';
    const item = await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' });
    expect(Date.parse(item.notBefore ?? '') - Date.parse(item.createdAt)).toBe(10_000);
    expect(await call('undoMark', { requestId: item.requestId })).toEqual({ outcome: 'undone' });
    expect(await call('undoMark', { requestId: item.requestId })).toEqual({ outcome: 'unknown' });
    expect((await refusal('undoMark', { requestId: 'not-an-id' })).code).toBe('invalid-input');
    await call('checkNow');
    expect((await call('getOrder', { orderId })).status).toBe('ProvisioningStarted');
    const posted = sim.store
      .listEvents(1001, 0, 100_000)
      .items.filter((e) => e.additionalProperties?.some((p) => p.value === orderId));
    expect(posted.map((e) => e.statusCode)).toEqual(['ProvisioningStarted']);

    await call('setSettings', { undoSeconds: 0 });
    const atOnce = await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' });
    expect(atOnce.notBefore).toBeUndefined();
  });

  it('pauses and resumes notifications', async () => {
    const { call } = await configured();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await call('pauseNotifications', { until })).notificationsPausedUntil).toBe(until);
    expect((await call('pauseNotifications', { until: null })).notificationsPausedUntil).toBeNull();
  });

  it('diagnoses the connection, naming differences and what this laptop kept aside, with no secret', async () => {
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['unreadable-events', 'no-new-listing'] });
    onTestFinished(() => admin(sim.url, 'PATCH', 'faults', { quirks: [] }).then(() => undefined));
    const { call, refusal } = await openService();
    expect((await refusal('diagnose')).code).toBe('not-configured');
    await call('setSettings', { baseUrl: sim.url, clientId: 'svc-client' });
    await call('setSecret', { secret: 'svc-secret-7f3a' });
    await call('checkNow');
    const { report, failed } = await call('diagnose');
    expect(failed).toBe(false);
    expect(report).toMatch(/^listNewEvents +tolerated +HTTP 404/m);
    const odd = sim.store.listEvents(1001, 0, 1000).items.filter((e) => e.eventId.startsWith('0'));
    expect(odd.length).toBeGreaterThan(0);
    expect(report).toContain(
      `Kept aside on this laptop: ${odd.length} ${odd.length === 1 ? 'item' : 'items'} `,
    );
    expect(report).toContain(`event ${odd[0]?.eventId}: statusCode:`);
    expect(report).not.toContain('svc-secret-7f3a');
    expect(report).not.toMatch(/eyJ[\w-]+\./);
  });

  it("reports the token lifetime the app saw while polling, shorter than the token's exp says", async () => {
    await admin(sim.url, 'PATCH', 'faults', { quirks: ['gateway-403'] });
    onTestFinished(() => admin(sim.url, 'PATCH', 'faults', { quirks: [] }).then(() => undefined));
    const { call } = await openService();
    await call('setSettings', { baseUrl: sim.url, clientId: 'svc-client' });
    await call('setSecret', { secret: 'svc-secret-7f3a' });
    await call('checkNow');
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // the gateway lets the token lapse
    await call('checkNow');
    const { report, failed } = await call('diagnose');
    expect(failed).toBe(false);
    expect(report).toMatch(/^createToken +tolerated/m);
    expect(report).toMatch(/a token was refused \d+(\.\d)? s after it came, though it says it lasts 30 min/);
  });

  it("refuses the settings file's api routes through the bridge: a page cannot send calls down other paths", async () => {
    const { call, refusal } = await openService();
    for (const api of [{ routes: { listOrders: { path: '/%2e%2e/elsewhere' } } }, null]) {
      const refused = await refusal('setSettings', { api });
      expect(refused).toMatchObject({ code: 'invalid-input' });
      expect(refused.message).toBe('api is set in the settings file only, by whoever deploys Seller Tray');
    }
    expect((await call('getSettings')).api).toBeNull();
  });

  it("ticks a runbook's step on an order, shown with the order, and refuses a step without text", async () => {
    const { call, refusal } = await configured();
    const orderId = (await call('listOrders', {})).orders[0]?.orderId ?? '';
    const { ticks } = await call('tickRunbookStep', {
      orderId,
      itemId: 'SS-STD',
      step: 'Create the tenant',
      ticked: true,
    });
    expect(ticks).toEqual([{ itemId: 'ss-std', step: 'Create the tenant', tickedAt: expect.any(String) }]);
    expect((await call('getOrder', { orderId })).runbookTicks).toEqual(ticks);
    expect(
      await refusal('tickRunbookStep', { orderId, itemId: 'SS-STD', step: '  ', ticked: true }),
    ).toMatchObject({
      code: 'invalid-input',
    });
  });

  it('has a handler for every channel of the contract, and answers an unknown one with a clear error', async () => {
    const { service } = await configured();
    for (const channel of CHANNELS) {
      const answer = await service.handleMessage(channel, ['not a request']);
      expect(answer, channel).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    }
    expect(await service.handleMessage('dropTables', {})).toEqual({
      ok: false,
      error: { code: 'unknown-channel', message: 'There is no operation "dropTables".' },
    });
  });
});

describe('the settings file edited by hand while the app runs', () => {
  it('tells a value it refuses, as at a start, and keeps it in a copy before its own Settings save over it', async () => {
    const dir = await makeDataDir();
    let changed = () => {};
    const { service, events } = await openTestService(dir, {
      secrets,
      settingsChanges: (listener) => {
        changed = listener;
        return () => {};
      },
    });
    opened.push({ service, dir, clientId: 'svc-client' });
    const { call } = serviceCalls(service);
    await call('setSettings', { undoSeconds: 20 });
    const file = join(dir, 'settings.json');
    await writeFile(
      file,
      JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), pollIntervalSeconds: 10 }),
    );
    changed();
    const told = () => events.find((e) => e.type === 'problem');
    for (let waited = 0; !told() && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told()).toMatchObject({
      message: expect.stringContaining(
        'pollIntervalSeconds must be a whole number of seconds from 30 to 3600',
      ),
    });
    await call('setSettings', { undoSeconds: 30 });
    const copies = (await readdir(dir)).filter((name) => name.startsWith('settings.json.left-out-'));
    expect(
      await Promise.all(copies.map(async (name) => JSON.parse(await readFile(join(dir, name), 'utf8')))),
    ).toEqual([{ pollIntervalSeconds: 10 }]);
  });
});

describe('changing the account', () => {
  it('stops the old account: a poll still running then tells nothing from the old marketplace', async () => {
    const other = await startSimulator({
      port: 0,
      sellers: [
        { sellerId: 3003, orders: 2, clients: [{ clientId: 'svc-client', clientSecret: 'svc-secret-7f3a' }] },
      ],
    });
    try {
      const s = await configured();
      const { orderId } = (await admin(sim.url, 'POST', 'purchases')).json;
      await admin(sim.url, 'PATCH', 'faults', { latencyMs: 200 });
      const oldPoll = s.call('checkNow');
      await s.call('setSettings', { baseUrl: other.url });
      await oldPoll;
      // The new account's own backlog may bring reminders; the old one's new order must not appear.
      expect(JSON.stringify(s.events)).not.toContain(orderId);
      expect(s.events.filter((e) => e.type === 'orders-arrived')).toEqual([]);
      expect((await s.call('getState')).baseUrl).toBe(other.url);
    } finally {
      await admin(sim.url, 'PATCH', 'faults', { latencyMs: 0 });
      await other.close();
    }
  });
});

describe('the secret, bound to its marketplace', () => {
  let capture: CaptureServer;
  beforeAll(async () => {
    capture = await startCaptureServer();
  });
  afterEach(() => {
    capture.requests.length = 0;
  });
  afterAll(() => capture.close());

  it('is not sent when only the base URL changes: the app asks for the secret again', async () => {
    const s = await configured();
    await s.call('setSettings', { baseUrl: capture.url });
    await s.call('checkNow');
    expect(await s.call('getState')).toMatchObject({
      setup: 'unconfigured',
      secretStored: false,
      baseUrl: capture.url,
      clientId: 'svc-client',
    });
    expect(capture.requests).toEqual([]);
    // Back at its own marketplace, the stored secret works again.
    await s.call('setSettings', { baseUrl: sim.url });
    await s.call('checkNow');
    expect(await s.call('getState')).toMatchObject({
      setup: 'configured',
      secretStored: true,
      connection: 'ok',
    });
  });

  it('is used by a connection test without a secret only at the origin it was stored for', async () => {
    const { call } = await configured();
    const test = (baseUrl: string) => call('testConnection', { baseUrl, clientId: 'svc-client' });
    expect(await test(`${sim.url}/`)).toMatchObject({ ok: true, sellerId: 1001 });
    // The same server under another name is another origin.
    const sameServer = sim.url.replace('127.0.0.1', 'localhost');
    for (const elsewhere of [capture.url, sameServer]) {
      expect(await test(elsewhere)).toEqual({
        ok: false,
        reason: 'credentials',
        message: `No client secret is stored for client svc-client at ${elsewhere}: Seller Tray sends a secret only to the marketplace it was entered for. Enter it to test.`,
      });
    }
    expect(capture.requests).toEqual([]);
  });

  it('is never sent on by a redirect, to another origin or its own', async () => {
    for (const target of [capture.url, '']) {
      const redirector = await startCaptureServer((req, res) =>
        res.writeHead(307, { Location: `${target}/elsewhere${req.url}` }).end(),
      );
      try {
        const s = await openService();
        await s.call('setSettings', { baseUrl: redirector.url, clientId: 'svc-client' });
        await s.call('setSecret', { secret: 'svc-secret-7f3a' });
        const answer = await s.call('testConnection', { baseUrl: redirector.url, clientId: 'svc-client' });
        expect(answer).toMatchObject({ ok: false, reason: 'unreachable' });
        expect(answer.ok || answer.message).toContain(
          `redirect to ${target}/elsewhere/base/v1/ping, which Seller Tray does not follow`,
        );
        await s.call('checkNow');
        // Its token request too (Basic with the secret) was answered 307 and went no further.
        expect(redirector.requests.map((r) => r.url)).toContain('/auth/v1/tokens');
        expect(redirector.requests.filter((r) => r.url.startsWith('/elsewhere'))).toEqual([]);
        expect(capture.requests).toEqual([]);
      } finally {
        await secrets.delete(secretOwner(redirector.url, 'svc-client'));
        await redirector.close();
      }
    }
  });

  it("adopts Seller Tray 0.1's entry (client id alone) for the saved marketplace, and sends it nowhere else", async () => {
    const dir = await makeDataDir();
    const settings = new ConfSettingsStore({ cwd: dir });
    settings.save({ ...settings.load().settings, baseUrl: sim.url, clientId: 'svc-client' });
    await keytar.setPassword(APP_ID, 'svc-client', 'svc-secret-7f3a');
    const service = await SellerTrayService.open({
      settings,
      secrets,
      dataRoot: dir,
      timers: new ManualTimers(),
    });
    opened.push({ service, dir, clientId: 'svc-client' });
    await service.handle('checkNow', undefined);
    expect(service.state()).toMatchObject({ setup: 'configured', secretStored: true, connection: 'ok' });
    expect(await keytar.getPassword(APP_ID, 'svc-client')).toBeNull();
    expect(await secrets.get(secretOwner(sim.url, 'svc-client'))).toBe('svc-secret-7f3a');

    await service.handle('setSettings', { baseUrl: capture.url });
    await service.handle('checkNow', undefined);
    expect(capture.requests).toEqual([]);
  });
});
