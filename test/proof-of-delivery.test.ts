// Proof of delivery (issue 26) over the simulator on loopback HTTP: the export's rows against the
// outbox and the marketplace as statuses are posted, refused, retried, undone and read back; kept
// across a restart and a kill -9 between the post and its record; pruned after the kept days.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import { orderIdOf } from '../main/core/api/wire';
import type { OutboxItem } from '../main/core/outbox';
import { userDataDir } from '../main/core/paths';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import {
  type ProofRow,
  proofRows,
  recordsKeptFrom,
  STATUS_RECORDS_KEPT_DAYS,
} from '../main/core/status-records';
import { DATABASE_FILE, UNCONFIRMED_AFTER_POLLS } from '../main/core/store/account-store';
import { describeMark } from '../preload/marked-by';
import { readPostReference } from '../preload/post-reference';
import { inbox, type Laptop, makeDataDir, openLaptop } from './support/core';
import { exitOf, runTs, spawnTs } from './support/processes';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';
import { openTestService, serviceCalls } from './support/test-service';

const DAY = 24 * 60 * 60_000;
const market = sharedMarketplace({ seed: 31, orders: 12 });

async function laptop(options: Parameters<typeof openLaptop>[2] = {}, dataDir?: string): Promise<Laptop> {
  const opened = await openLaptop(market.sim.url, dataDir, options);
  market.laptops.push(opened);
  await opened.core.start();
  return opened;
}

const rows = (a: Laptop): ProofRow[] => proofRows('EU', a.core.statusRecords());
const rowOf = (a: Laptop, requestId: string) => rows(a).find((row) => row.requestId === requestId);

/** The marketplace's stored events this request id posted (its reference names it). */
const storedBy = (requestId: string) =>
  market.sim.store
    .listEvents(1001, 0, 100_000)
    .items.filter((e) => readPostReference(e)?.requestId === requestId);

/** What the export must say of an item still in the outbox: exactly what the outbox holds. */
function expectRowOf(a: Laptop, item: OutboxItem, outcome: ProofRow['outcome']): void {
  expect(rowOf(a, item.requestId)).toMatchObject({
    account: 'EU',
    orderId: item.orderId,
    status: item.statusCode,
    markedAt: item.createdAt,
    sentAt: item.sentAt ?? '',
    eventId: item.eventId ?? '',
    httpStatus: item.httpStatus ?? null,
    attempts: item.attempts,
    outcome,
  });
}

const waitingOrders = (a: Laptop) => inbox(a.core).filter((row) => row.waiting);

describe('proof of delivery', () => {
  it('exports every status marked here: posted, refused, retried, undone and read back, as the outbox had them', async () => {
    const a = await laptop({ settings: { undoSeconds: 30 } });
    await a.core.checkNow();
    const [first, second, third] = waitingOrders(a);
    const mark = (orderId: string, text = '') =>
      a.core.markStatus({
        orderId,
        statusCode: 'ProvisioningInProgress',
        description: describeMark('ProvisioningInProgress', 'Anna Virtanen', text),
        override: true,
      });

    // Undone while held: never posted.
    const undone = await mark(first?.orderId ?? '', 'changed my mind');
    expectRowOf(a, undone, 'pending');
    expect(rowOf(a, undone.requestId)?.heldUntil).toBe(undone.notBefore);
    expect(a.core.undoMark(undone.requestId)).toBe('undone');

    // Sent at once from here on.
    a.settings.undoSeconds = 0;
    const posted = await mark(second?.orderId ?? '');
    const [sent] = await a.core.deliverOutbox();
    expect(sent).toMatchObject({ requestId: posted.requestId, state: 'sent', httpStatus: 201 });
    expectRowOf(a, sent as OutboxItem, 'sent');
    expect(rowOf(a, posted.requestId)?.eventId).toBe(storedBy(posted.requestId)[0]?.eventId);

    // Refused: the marketplace does not know the order.
    const refused = await mark(crypto.randomUUID());
    const [failed] = (await a.core.deliverOutbox()).filter((i) => i.requestId === refused.requestId);
    expect(failed).toMatchObject({ state: 'failed', httpStatus: 400 });
    expectRowOf(a, failed as OutboxItem, 'refused');
    expect(rowOf(a, refused.requestId)?.problem).toMatch(/^The marketplace refused this status/);

    // Retried: the first delivery meets a server error at each of its posts, the next one passes.
    await admin(market.sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'sendEvent', action: 'status', status: 503, retryAfterSeconds: 0, times: 3 }],
    });
    const retried = await mark(third?.orderId ?? '');
    const afterError = (await a.core.deliverOutbox()).find((i) => i.requestId === retried.requestId);
    expect(afterError).toMatchObject({ state: 'pending', attempts: 1, httpStatus: 503 });
    expectRowOf(a, afterError as OutboxItem, 'pending');
    const afterRetry = (await a.core.deliverOutbox()).find((i) => i.requestId === retried.requestId);
    expect(afterRetry).toMatchObject({ state: 'sent', attempts: 2, httpStatus: 201 });
    expectRowOf(a, afterRetry as OutboxItem, 'sent');

    // Read back: a poll's listing shows the sent ones; the outbox lets them go, the records stay.
    await a.core.checkNow();
    expect((await a.core.order(posted.orderId)).outbox).toEqual([]);
    const exported = rows(a);
    expect(exported.map((row) => [row.requestId, row.outcome])).toEqual([
      [undone.requestId, 'undone'],
      [posted.requestId, 'confirmed'],
      [refused.requestId, 'refused'],
      [retried.requestId, 'confirmed'],
    ]);
    for (const row of exported) {
      expect(row.markedBy).toBe('Anna Virtanen');
      // Each confirmed row names the one event the marketplace stored for it; the others none.
      const stored = storedBy(row.requestId);
      if (row.outcome === 'confirmed') {
        expect(stored).toHaveLength(1);
        expect(row.eventId).toBe(stored[0]?.eventId);
        expect(Date.parse(row.readBackAt)).toBeGreaterThanOrEqual(Date.parse(row.sentAt));
      } else {
        expect(stored).toEqual([]);
        expect(row.sentAt).toBe('');
      }
    }
    expect(rowOf(a, undone.requestId)?.endedAt).not.toBe('');

    // Kept across a restart.
    await a.core.close();
    const again = await laptop({}, a.dataDir);
    expect(rows(again)).toEqual(exported);
    // From a day on.
    const since = exported[1]?.markedAt ?? '';
    expect(proofRows('EU', again.core.statusRecords(since)).map((row) => row.requestId)).toEqual(
      exported.slice(1).map((row) => row.requestId),
    );
  }, 30_000);

  it('keeps a status the marketplace never listed, sent again under a new request id, as sent-again beside the new one', async () => {
    const a = await laptop();
    await a.core.checkNow();
    const orderId = waitingOrders(a)[0]?.orderId ?? '';
    await admin(market.sim.url, 'PATCH', 'faults', { quirks: ['lost-posts'] });
    const lost = await a.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'Lost',
      override: true,
    });
    await a.core.deliverOutbox();
    for (let poll = 0; poll < UNCONFIRMED_AFTER_POLLS; poll++) await a.core.checkNow();
    await admin(market.sim.url, 'PATCH', 'faults', { quirks: [] });
    const { outcome, item: again } = await a.core.resendStatus(lost.requestId);
    expect(outcome).toBe('sent-again');
    await a.core.deliverOutbox();
    await a.core.checkNow();
    expect(rows(a).map((row) => [row.requestId, row.outcome, row.eventId === ''])).toEqual([
      [lost.requestId, 'sent-again', false], // the lost post's answer named an event the listing never showed
      [again.requestId, 'confirmed', false],
    ]);
    expect(rowOf(a, lost.requestId)?.endedAt).not.toBe('');
    expect(storedBy(again.requestId)).toHaveLength(1);
  }, 30_000);

  it('keeps the record of a status whose process died between its post and its answer', async () => {
    const probe = await laptop();
    await probe.core.checkNow();
    const orderId = waitingOrders(probe)[0]?.orderId ?? '';
    await probe.core.close();
    market.laptops.splice(0);

    const dataDir = await makeDataDir();
    // The marketplace stores the post and its answer is lost; the read-back that follows hangs,
    // and the process is killed then: the event is there, the record does not know it.
    await admin(market.sim.url, 'PATCH', 'faults', {
      script: [
        { operation: 'sendEvent', action: 'dropAfterHandling' },
        { operation: 'listEvents', action: 'delay', delayMs: 5000 },
      ],
    });
    const child = spawnTs('test/support/mark-status-child.ts', [market.sim.url, dataDir, orderId, 'Killed']);
    const stored = () =>
      market.sim.store.listEvents(1001, 0, 100_000).items.filter((e) => e.description === 'Killed');
    while (stored().length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exitOf(child);
    await admin(market.sim.url, 'PATCH', 'faults', { script: [] });

    // Opened, not started (a start delivers at once): the record says what the killed process knew.
    const a = await openLaptop(market.sim.url, dataDir);
    market.laptops.push(a);
    const [before] = rows(a);
    expect(before).toMatchObject({ orderId, outcome: 'pending', attempts: 1, sentAt: '', eventId: '' });
    await a.core.deliverOutbox();
    expect(stored()).toHaveLength(1);
    expect(orderIdOf(stored()[0] as never)).toBe(orderId);
    // Found by reading back, not posted again: the event id without an answer's HTTP status.
    expect(rows(a)).toMatchObject([
      {
        requestId: before?.requestId,
        outcome: 'sent',
        eventId: stored()[0]?.eventId,
        httpStatus: null,
        attempts: 2,
      },
    ]);
    a.core.start();
    await a.core.checkNow();
    expect(rows(a)[0]).toMatchObject({ outcome: 'confirmed', readBackAt: expect.any(String) });
  }, 30_000);

  it(`forgets a record ${STATUS_RECORDS_KEPT_DAYS} days after its status was marked, never one still in the outbox`, async () => {
    const clock = { offsetMs: 0 };
    const a = await laptop({ now: () => Date.now() + clock.offsetMs });
    await a.core.checkNow();
    const [first, second] = waitingOrders(a);
    const mark = (orderId: string) =>
      a.core.markStatus({
        orderId,
        statusCode: 'ProvisioningInProgress',
        description: 'Kept',
        override: true,
      });
    const confirmed = await mark(first?.orderId ?? '');
    await a.core.deliverOutbox();
    await a.core.checkNow();
    // Posts fail from here on (the listings do not): the second status stays in the outbox.
    await admin(market.sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'sendEvent', action: 'status', status: 503, retryAfterSeconds: 0, times: 1000 }],
    });
    const pending = await mark(second?.orderId ?? '');
    // A day short of the limit: both kept.
    clock.offsetMs = (STATUS_RECORDS_KEPT_DAYS - 1) * DAY;
    await a.core.checkNow();
    expect(rows(a).map((row) => [row.requestId, row.outcome])).toEqual([
      [confirmed.requestId, 'confirmed'],
      [pending.requestId, 'pending'],
    ]);
    // Past it: the confirmed one goes on the next poll; the one still in the outbox stays.
    clock.offsetMs = (STATUS_RECORDS_KEPT_DAYS + 1) * DAY;
    await a.core.checkNow();
    expect(recordsKeptFrom(Date.now() + clock.offsetMs) > confirmed.createdAt).toBe(true);
    expect(rows(a).map((row) => row.requestId)).toEqual([pending.requestId]);
  }, 30_000);
});

describe('seller-tray statuses export', () => {
  it('prints the account statuses as CSV or JSON, from a day on, or writes them to --output; hostile text inert', async () => {
    const home = await mkdtemp(join(tmpdir(), 'proof-cli-'));
    const env = {
      XDG_CONFIG_HOME: home,
      SELLER_API_BASE_URL: market.sim.url,
      SELLER_CLIENT_ID: 'demo-client',
      SELLER_CLIENT_SECRET: 'demo-secret',
    };
    const cli = (...args: string[]) => runTs('main/cli/seller-tray.ts', ['statuses', 'export', ...args], env);
    try {
      // Nothing marked on this computer yet: the headings alone, and no store made for it.
      const dataDir = accountFolder(
        userDataDir(env),
        accountRef({ baseUrl: market.sim.url, clientId: 'demo-client' }).id,
      );
      const empty = await cli();
      expect(empty).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^Account,Order ID,[^\n]*\r\n$/),
      });
      expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);

      const a = await laptop({}, dataDir);
      await a.core.checkNow();
      const [first, second] = waitingOrders(a);
      const hostile = describeMark('ProvisioningInProgress', '=cmd|calc', 'ok\u202e\nsecond line');
      const marked = [];
      for (const order of [first, second]) {
        marked.push(
          await a.core.markStatus({
            orderId: order?.orderId ?? '',
            statusCode: 'ProvisioningInProgress',
            description: hostile,
            override: true,
          }),
        );
      }
      await a.core.deliverOutbox();
      await a.core.checkNow();
      // An account without a label is named as every command names it: its client at its marketplace.
      const account = `demo-client at ${new URL(market.sim.url).host}`;
      const expected = rows(a).map((row) => ({ ...row, account }));

      const csv = await cli();
      expect(csv.code).toBe(0);
      const lines = csv.stdout.split('\r\n');
      expect(lines).toHaveLength(expected.length + 2);
      expect(csv.stdout).not.toMatch(/\u202e/u);
      expect(lines[1]).toContain(`,'=cmd|calc,`);
      expect(lines[1]).toContain(`,confirmed,201,${expected[0]?.eventId},`);

      const json = await cli('--format', 'json');
      expect(JSON.parse(json.stdout)).toEqual(expected);
      const later = await cli('--format', 'json', '--since', marked[1]?.createdAt ?? '');
      expect(JSON.parse(later.stdout).map((row: ProofRow) => row.requestId)).toEqual([marked[1]?.requestId]);
      const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
      expect(JSON.parse((await cli('--json', '--since', tomorrow)).stdout)).toEqual([]);

      const file = join(home, 'proof.csv');
      const written = await cli('--output', file);
      expect(written.stdout).toBe(`2 statuses written to ${file}\n`);
      expect(await readFile(file, 'utf8')).toBe(csv.stdout);

      expect((await cli('--format', 'xml')).code).toBe(2);
      expect((await cli('--since', 'last week')).code).toBe(2);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('says in one line why --output could not be written, naming it: a folder, a folder missing, no name; or --since is no real time', async () => {
    const home = await mkdtemp(join(tmpdir(), 'proof-output-'));
    const env = {
      XDG_CONFIG_HOME: home,
      SELLER_API_BASE_URL: market.sim.url,
      SELLER_CLIENT_ID: 'demo-client',
      SELLER_CLIENT_SECRET: 'demo-secret',
    };
    const output = (file: string) =>
      runTs('main/cli/seller-tray.ts', ['statuses', 'export', '--output', file], env);
    try {
      expect(await output(home)).toEqual({
        code: 1,
        stdout: '',
        stderr: `seller-tray: ${home} could not be written: it is a folder (EISDIR); name a file for --output\n`,
      });
      const missing = join(home, 'no-such-folder', 'proof.csv');
      expect(await output(missing)).toEqual({
        code: 1,
        stdout: '',
        stderr: `seller-tray: ${missing} could not be written: its folder does not exist (ENOENT)\n`,
      });
      // A day that does not exist, which Date.parse rolls into March, and a time read in this
      // computer's zone, which a script run elsewhere cannot know: refused, not exported from elsewhen.
      for (const since of [
        '2026-02-30',
        '2026-02-29',
        '2026-11-31',
        '2026-11-01T08:00',
        '2026-11-01 08:00',
      ]) {
        const refused = await runTs('main/cli/seller-tray.ts', ['statuses', 'export', '--since', since], env);
        expect({ since, code: refused.code, stdout: refused.stdout }).toEqual({ since, code: 2, stdout: '' });
        expect(refused.stderr).toMatch(
          /^seller-tray: --since takes a day \(2026-11-01\) or a time with its zone/,
        );
      }
      const zoned = await runTs(
        'main/cli/seller-tray.ts',
        ['statuses', 'export', '--since', '2028-02-29T08:00:00+01:00'],
        env,
      );
      expect(zoned.code).toBe(0);
      const unnamed = await output('');
      expect(unnamed.code).toBe(2);
      expect(unnamed.stderr).toMatch(
        /^seller-tray: --output was given empty: give it a value, or leave it out\n/,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the window's export", () => {
  const secrets = new KeytarSecretStore();

  it("saves every account's statuses as one CSV where the save dialog says; a cancel saves nothing", async () => {
    const dir = await makeDataDir();
    const saved: { name: string; content: string }[] = [];
    let answer: string | null = '/home/anna/Documents/proof.csv';
    const { service } = await openTestService(dir, {
      secrets,
      saveFile: async (name, content) => {
        if (answer !== null) saved.push({ name, content });
        return answer;
      },
    });
    const { call, refusal } = serviceCalls(service);
    try {
      await call('setSettings', { baseUrl: market.sim.url, clientId: 'demo-client', undoSeconds: 0 });
      await call('setSecret', { secret: 'demo-secret' });
      await call('checkNow');
      const waiting = (await call('listOrders', { filter: 'ProvisioningStarted' })).orders.slice(0, 2);
      const marked = [];
      for (const row of waiting) {
        marked.push(await call('markStatus', { orderId: row.orderId, statusCode: 'ProvisioningInProgress' }));
      }
      await call('checkNow');
      const calls = () => Object.values(market.sim.requestCounts).reduce((a, b) => a + b, 0);
      const before = calls();
      expect(await call('exportStatuses', {})).toEqual({ rows: 2, path: '/home/anna/Documents/proof.csv' });
      expect(calls()).toBe(before); // from the store: no marketplace call
      const [file] = saved;
      expect(file?.name).toMatch(/^seller-tray-statuses-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = file?.content.split('\r\n') ?? [];
      expect(lines).toHaveLength(4);
      for (const [i, item] of marked.entries()) {
        expect(lines[i + 1]).toContain(
          `,${item.orderId},ProvisioningInProgress,Anna Virtanen,${item.createdAt},`,
        );
        expect(lines[i + 1]).toContain(`,${item.requestId},confirmed,201,`);
      }
      const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
      expect(await call('exportStatuses', { since: tomorrow })).toMatchObject({ rows: 0 });
      answer = null;
      expect(await call('exportStatuses', {})).toEqual({ rows: 2, path: null });
      expect(saved).toHaveLength(2);
      expect(await refusal('exportStatuses', { since: 'last week' })).toMatchObject({
        code: 'invalid-input',
      });
    } finally {
      service.close();
      await secrets.delete(secretOwner(market.sim.url, 'demo-client'));
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('says where no dialog can be shown', async () => {
    const dir = await makeDataDir();
    const { service } = await openTestService(dir, { secrets });
    try {
      expect(await serviceCalls(service).refusal('exportStatuses', {})).toMatchObject({ code: 'no-dialog' });
    } finally {
      service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
