// The runner's writes (issue 24): orders read in the same turn are claimed in one transaction,
// a few runs ahead of the free slots, still at most RUNS_AT_ONCE delivered at a time; a stop
// gives the runs claimed ahead back uncounted; deliveries share kept-alive connections and a burst
// of them one read of the keychain's secret. Real store, real loopback receiver.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { alive } from '../../../test/support/alive.cjs';
import {
  recordingReceiver,
  runnerAlone,
  webhookAutomation,
  webhookRunner,
} from '../../../test/support/automation-runs';
import { ManualTimers } from '../../../test/support/core';
import { commandGroup, deadRunner, killGroups, writeRecord } from '../../../test/support/left-running';
import { REPO_ROOT } from '../../../test/support/processes';
import { recordingLog } from '../../../test/support/recording-log';
import { until } from '../../../test/support/shell-fakes';
import { adviceFor } from '../advice';
import type { MarketplaceEvent, Order } from '../api/wire';
import { Claimant } from '../claimant';
import { silentLog } from '../log';
import type { CoreSettings } from '../seller-core';
import { DEFAULT_SETTINGS } from '../settings';
import { AccountStore } from '../store/account-store';
import { CommandSlots } from './command-slots';
import { ANSWER_READ_MOST } from './delivery';
import { processStart } from './left-running';
import { AutomationRunner, POLL_HOLD_MAX_MS, RUNS_AHEAD, RUNS_AT_ONCE } from './runner';

const NOW = Date.parse('2026-11-26T00:00:00.000Z');
const ALIVE = join(REPO_ROOT, 'test/support/alive.cjs');
let dir: string;
let store: AccountStore;
let receiver: Server;
let held: ServerResponse[];
let received: string[];
/** The attempt each delivery was told, by delivery id, in the order they came. */
let told: Map<string, number[]>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-'));
  store = AccountStore.open(dir).store;
  held = [];
  // Holds every delivery until the test answers it: the slots stay busy meanwhile.
  ({ server: receiver, received, told } = await recordingReceiver((response) => held.push(response)));
});
afterEach(async () => {
  for (const response of held) response.destroy();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  store.close();
  await rm(dir, { recursive: true, force: true });
});

/** `count` new orders, each read, each with a queued run of each automation named. */
function readOrders(count: number, automations = ['hook'], on = store): string[] {
  const ids = Array.from({ length: count }, (_, i) => `o-${i}`);
  on.recordPoll({
    events: ids.map(
      (orderId): MarketplaceEvent => ({
        eventId: `${orderId}-started`,
        eventTypeCode: 'ServicePurchased',
        statusCode: 'ProvisioningStarted',
        description: 'A purchase',
        eventTime: '2026-11-25T10:00:00Z',
        additionalProperties: [{ name: 'orderId', value: orderId }],
      }),
    ),
    cursor: undefined,
    backlog: false,
    paused: false,
    now: new Date(NOW).toISOString(),
    automations,
  });
  for (const orderId of ids) {
    const order = {
      orderId,
      documentCurrencyCode: 'EUR',
      buyerCustomerParty: {},
      sellerSupplierParty: {},
      documentLines: [],
    } as unknown as Order;
    on.saveOrder(orderId, order, [], new Date(NOW).toISOString());
  }
  return ids;
}

function runner(secret?: () => Promise<string | undefined>, now = () => NOW): AutomationRunner {
  return webhookRunner(
    store,
    urlOf(receiver),
    join(dir, 'work'),
    { now, timers: new ManualTimers() },
    secret,
  );
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const runs = (ids: string[]) => ids.flatMap((id) => store.runsFor(id));

/** Counts the store's write transactions (a transaction inside another is part of it). */
function countTransactions(): { count: number } {
  const counted = { count: 0 };
  const atomically = store.atomically.bind(store);
  let depth = 0;
  vi.spyOn(store, 'atomically').mockImplementation(<T>(work: () => T, backlog?: boolean): T => {
    if (depth === 0) counted.count += 1;
    depth += 1;
    try {
      return atomically(work, backlog);
    } finally {
      depth -= 1;
    }
  });
  return counted;
}

/** A delivery refused once (HTTP 500) and queued to be tried again, by a runner on `now`'s clock whose timers the test fires. */
async function failedOnce(now: () => number) {
  const failing = await recordingReceiver((response) => response.writeHead(500).end());
  const [id = ''] = readOrders(1);
  const timers = new ManualTimers();
  const automations = webhookRunner(store, urlOf(failing.server), join(dir, 'work'), { now, timers });
  automations.kickOrder(id);
  await until(
    () => store.runsFor(id).some((r) => r.attempts === 1 && r.state === 'queued' && !r.claimed),
    10_000,
  );
  const close = async () => {
    automations.stop();
    await automations.idle();
    failing.server.closeAllConnections();
    await new Promise((resolve) => failing.server.close(resolve));
  };
  return { failing, id, timers, automations, close };
}

it('claims the runs of the orders read in one turn in one transaction, a few ahead of the free slots', async () => {
  const ids = readOrders(RUNS_AT_ONCE + RUNS_AHEAD + 3);
  const transactions = countTransactions();
  let clock = NOW;
  const automations = runner(undefined, () => clock);
  for (const id of ids) automations.kickOrder(id);
  const running = () => runs(ids).filter((r) => r.state === 'running');
  await until(() => received.length === RUNS_AT_ONCE && running().length === RUNS_AT_ONCE);
  // One transaction claimed them all, the next wrote the starts of those sent.
  expect(transactions.count).toBe(2);
  const claimed = runs(ids).filter((r) => r.claimed);
  expect(claimed).toHaveLength(RUNS_AT_ONCE + RUNS_AHEAD);
  // Those claimed ahead wait (shown as waiting, no start, no attempt); those sent run since they
  // were sent, their first attempt counted.
  expect(new Set(running().map((r) => r.deliveryId))).toEqual(new Set(received));
  expect(running().every((r) => r.startedAt === new Date(NOW).toISOString() && r.attempts === 1)).toBe(true);
  expect(
    claimed.filter((r) => r.state === 'queued' && r.startedAt === null && r.attempts === 0),
  ).toHaveLength(RUNS_AHEAD);
  // Still at most RUNS_AT_ONCE delivered at a time.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toHaveLength(RUNS_AT_ONCE);

  // The runs claimed ahead start later: their start is when they were sent, not when claimed.
  clock = NOW + 10_000;
  for (const response of held.splice(0)) response.writeHead(204).end();
  const sentLater = () => new Set(running().filter((r) => r.startedAt === new Date(clock).toISOString()));
  await until(() => received.length === 2 * RUNS_AT_ONCE && sentLater().size === RUNS_AT_ONCE);
  expect(new Set([...sentLater()].map((r) => r.deliveryId))).toEqual(new Set(received.slice(RUNS_AT_ONCE)));

  // Answered: every run delivered once, the last ones claimed once enough have started.
  const answer = () => {
    for (const response of held.splice(0)) response.writeHead(204).end();
    return runs(ids).every((r) => r.state === 'succeeded');
  };
  await until(answer, 5000);
  expect(new Set(received)).toEqual(new Set(runs(ids).map((r) => r.deliveryId)));
  expect(received).toHaveLength(ids.length);
  // Ends and claims shared their transactions: fewer than one a run.
  expect(transactions.count).toBeLessThan(ids.length);
  await automations.idle();
});

it('starts no run while its account polls new orders: those it held start when it ends', async () => {
  const ids = readOrders(3);
  const automations = runner();
  automations.holdForPoll();
  // Held once however often the poll records new orders.
  automations.holdForPoll();
  for (const id of ids) automations.kickOrder(id);
  automations.kick();
  await new Promise((resolve) => setTimeout(resolve, 150));
  // Nothing claimed, nothing sent while the poll goes on.
  expect(received).toHaveLength(0);
  expect(runs(ids).filter((r) => r.claimed)).toHaveLength(0);
  automations.pollEnded();
  automations.kick();
  await until(() => received.length === ids.length);
  for (const response of held.splice(0)) response.writeHead(204).end();
  await until(() => runs(ids).every((r) => r.state === 'succeeded'));
  await automations.idle();
});

it('holds runs for a poll at most POLL_HOLD_MAX_MS by its timer, whatever the clock says', async () => {
  const ids = readOrders(2);
  const timers = new ManualTimers();
  // The clock not moved on when the limit's timer fires (set back meanwhile, or a timer a little
  // early): the limit is the timer's, not the clock's.
  const automations = webhookRunner(store, urlOf(receiver), join(dir, 'work'), { now: () => NOW, timers });
  automations.holdForPoll();
  for (const id of ids) automations.kickOrder(id);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toHaveLength(0);
  timers.fire(POLL_HOLD_MAX_MS);
  await until(() => received.length === ids.length);
  for (const response of held.splice(0)) response.writeHead(204).end();
  await until(() => runs(ids).every((r) => r.state === 'succeeded'));
  automations.pollEnded();
  await automations.idle();
});

it("leaves no timer of a poll's hold behind a stop", () => {
  const timers = new ManualTimers();
  const automations = webhookRunner(store, urlOf(receiver), join(dir, 'work'), { now: () => NOW, timers });
  automations.holdForPoll();
  automations.stop();
  expect(timers.scheduled).toBe(0);
});

it('gives the runs claimed ahead back on a stop uncounted: the next start tells each its first attempt', async () => {
  const ids = readOrders(RUNS_AT_ONCE + 2);
  const automations = runner();
  for (const id of ids) automations.kickOrder(id);
  await until(() => received.length === RUNS_AT_ONCE);
  automations.stop();
  const waiting = runs(ids).filter((r) => !received.includes(r.deliveryId));
  expect(waiting).toHaveLength(2);
  expect(waiting.every((r) => r.state === 'queued' && !r.claimed && r.attempts === 0)).toBe(true);
  for (const response of held.splice(0)) response.writeHead(204).end();
  await automations.idle();

  // The runs cut short by the stop are tried again (a second attempt), those given back for the first time.
  const next = runner();
  next.kick();
  await until(() => {
    for (const response of held.splice(0)) response.writeHead(204).end();
    return runs(ids).every((r) => r.state === 'succeeded');
  }, 5000);
  for (const run of waiting) expect(told.get(run.deliveryId)).toEqual([1]);
  for (const id of received.slice(0, RUNS_AT_ONCE)) expect(told.get(id)).toEqual([1, 2]);
  // Each counted as often as it was tried.
  for (const run of runs(ids)) expect(run.attempts).toBe(told.get(run.deliveryId)?.length);
  await next.idle();
});

it('sends the deliveries over kept-alive connections, one a slot at most, keeping the start of a long answer', async () => {
  let connections = 0;
  receiver.on('connection', () => {
    connections += 1;
  });
  const ids = readOrders(RUNS_AT_ONCE * 3);
  const automations = runner();
  for (const id of ids) automations.kickOrder(id);
  await until(() => {
    for (const response of held.splice(0)) response.writeHead(200).end('z'.repeat(ANSWER_READ_MOST - 1024));
    return runs(ids).every((r) => r.state === 'succeeded');
  }, 10_000);
  expect(connections).toBeGreaterThan(0);
  expect(connections).toBeLessThanOrEqual(RUNS_AT_ONCE);
  expect(runs(ids).every((r) => r.output?.length === 2048)).toBe(true);
  await automations.idle();
});

it('reads a secret from the keychain once for a burst of deliveries, again once it has served a second', async () => {
  let reads = 0;
  const ids = readOrders(RUNS_AT_ONCE * 3);
  const automations = runner(async () => {
    reads += 1;
    return 'whsec_counted';
  });
  const answerAll = () => {
    for (const response of held.splice(0)) response.writeHead(204).end();
  };
  for (const id of ids.slice(0, RUNS_AT_ONCE * 2)) automations.kickOrder(id);
  await until(() => {
    answerAll();
    return runs(ids.slice(0, RUNS_AT_ONCE * 2)).every((r) => r.state === 'succeeded');
  }, 5000);
  // The first slots' attempts start together, each before any read has answered.
  expect(reads).toBeLessThanOrEqual(RUNS_AT_ONCE);
  const burst = reads;
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  for (const id of ids.slice(RUNS_AT_ONCE * 2)) automations.kickOrder(id);
  await until(() => {
    answerAll();
    return runs(ids).every((r) => r.state === 'succeeded');
  }, 5000);
  expect(reads).toBeGreaterThan(burst);
  expect(reads).toBeLessThanOrEqual(burst + RUNS_AT_ONCE);
  await automations.idle();
});

it("never lets a slow automation's runs hold up another's: each has its own slots and claims", async () => {
  // `receiver` holds every delivery (a receiver taking as long as it likes); this one answers at once.
  const fastReceived: string[] = [];
  const fast = createServer((request, response) => {
    request.resume().on('end', () => {
      fastReceived.push(String(request.headers['seller-tray-delivery']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => fast.listen(0, '127.0.0.1', resolve));
  try {
    // More runs of each than the slots and claims ahead of one automation.
    const ids = readOrders(2 * (RUNS_AT_ONCE + RUNS_AHEAD), ['slow', 'fast']);
    const automations = webhookRunner(
      store,
      { slow: urlOf(receiver), fast: urlOf(fast) },
      join(dir, 'work'),
      { now: () => NOW, timers: new ManualTimers() },
    );
    for (const id of ids) automations.kickOrder(id);
    const of = (name: string) => runs(ids).filter((r) => r.automation === name);
    await until(() => of('fast').every((r) => r.state === 'succeeded'), 5000);
    expect(fastReceived).toHaveLength(ids.length);
    // Meanwhile the slow one's first are sent, the rest wait, its claims within its own room.
    expect(received).toHaveLength(RUNS_AT_ONCE);
    expect(of('slow').filter((r) => r.state === 'running')).toHaveLength(RUNS_AT_ONCE);
    expect(of('slow').filter((r) => r.claimed)).toHaveLength(RUNS_AT_ONCE + RUNS_AHEAD);

    await until(() => {
      for (const response of held.splice(0)) response.writeHead(204).end();
      return of('slow').every((r) => r.state === 'succeeded');
    }, 10_000);
    expect(new Set(received)).toEqual(new Set(of('slow').map((r) => r.deliveryId)));
    expect(received).toHaveLength(ids.length);
    await automations.idle();
  } finally {
    fast.closeAllConnections();
    await new Promise((resolve) => fast.close(resolve));
  }
});

it('drops what a failed transaction claimed: no run starts without its claim on disk', async () => {
  const ids = readOrders(RUNS_AT_ONCE + 2);
  const [first, later] = [ids.slice(0, RUNS_AT_ONCE), ids.slice(RUNS_AT_ONCE)];
  const automations = runner();
  for (const id of first) automations.kickOrder(id);
  await until(() => received.length === RUNS_AT_ONCE);
  // The next claiming transaction fails, after a first order's run was claimed in it (the second
  // order's claim throws): both are rolled back.
  const claimRuns = store.claimRuns.bind(store);
  const spy = vi
    .spyOn(store, 'claimRuns')
    .mockImplementationOnce(claimRuns)
    .mockImplementationOnce((...args) => {
      claimRuns(...args);
      throw new Error('disk I/O error');
    });
  for (const id of later) automations.kickOrder(id);
  await until(() => spy.mock.calls.length > 1);
  expect(runs(later).every((r) => r.state === 'queued' && !r.claimed && r.attempts === 0)).toBe(true);

  // The slots come free: the runs of the failed transaction start only once claimed again, on
  // disk this time; each delivered once, its attempt counted.
  await until(() => {
    for (const response of held.splice(0)) response.writeHead(204).end();
    return runs(ids).every((r) => r.state === 'succeeded');
  }, 5000);
  expect(runs(ids).map((r) => r.attempts)).toEqual(ids.map(() => 1));
  expect(received).toHaveLength(ids.length);
  await automations.idle();
});

// With nothing in flight, no ending plans the next turn: the failed one plans it itself, or the
// order's run would wait for the next poll's kick (ManualTimers: none comes here).
it('looks again after a failed claiming transaction even when no run is in flight', async () => {
  const [id] = readOrders(1);
  const automations = runner();
  const spy = vi.spyOn(store, 'claimRuns').mockImplementationOnce(() => {
    throw new Error('disk I/O error');
  });
  automations.kickOrder(id as string);
  await until(() => spy.mock.calls.length > 0);
  await until(() => {
    for (const response of held.splice(0)) response.writeHead(204).end();
    return runs([id as string]).every((r) => r.state === 'succeeded');
  }, 2000);
  await automations.idle();
});

it("runs an automation's second commands and later within the process's command slots, each automation always one", async () => {
  const log = join(dir, 'commands.log');
  // Each command says when it starts and ends, and runs a while between.
  const script = `const fs=require('fs'),[f,n]=process.argv.slice(1);fs.appendFileSync(f,'+'+n+'\\n');setTimeout(()=>fs.appendFileSync(f,'-'+n+'\\n'),150)`;
  const names = ['c1', 'c2', 'c3'];
  const commands = names.map((name) => ({
    ...webhookAutomation('', name),
    action: {
      type: 'command' as const,
      command: [process.execPath, '-e', script, log, name],
      timeoutSeconds: 30,
    },
  }));
  const slots = new CommandSlots(2);
  // The automations in the order the slots were given (a child's own start line may come late).
  const given: string[] = [];
  const take = slots.take.bind(slots);
  vi.spyOn(slots, 'take').mockImplementation(async (automation, signal) => {
    const release = await take(automation, signal);
    given.push(automation.slice(automation.indexOf('\0') + 1));
    return release;
  });
  const ids = readOrders(RUNS_AT_ONCE, names);
  const automations = runnerAlone(
    store,
    commands,
    { secret: async () => undefined, workDir: join(dir, 'work'), commandSlots: slots },
    { now: () => NOW, timers: new ManualTimers() },
  );
  for (const id of ids) automations.kickOrder(id);
  // Meanwhile: every automation's runs taken into its own slots, one of each started.
  await until(() => runs(ids).filter((r) => r.state === 'running').length === names.length);
  expect(runs(ids).filter((r) => r.claimed).length).toBeGreaterThan(names.length);
  await until(() => runs(ids).every((r) => r.state === 'succeeded'), 20_000);
  await automations.idle();
  expect(slots.busy).toBe(0);

  // Each automation's first command is never held (a hung one would hold all others'); the bound
  // is kept on the others: while any ran, the total ran within the slots.
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  const runningOf = new Map<string, number>();
  let most = 0;
  let mostBeyondFirsts = 0;
  for (const line of lines) {
    const name = line.slice(1);
    runningOf.set(name, (runningOf.get(name) ?? 0) + (line.startsWith('+') ? 1 : -1));
    const counts = [...runningOf.values()];
    most = Math.max(
      most,
      counts.reduce((a, b) => a + b, 0),
    );
    mostBeyondFirsts = Math.max(
      mostBeyondFirsts,
      counts.reduce((a, b) => a + Math.max(0, b - 1), 0),
    );
  }
  expect(most).toBeLessThanOrEqual(slots.size + names.length - 1);
  expect(mostBeyondFirsts).toBeLessThanOrEqual(slots.size - 1);
  expect(lines.filter((l) => l.startsWith('+'))).toHaveLength(ids.length * names.length);
  // Every command had its slot. Which automation a slot that comes free goes to is the slots'
  // rule, shown with releases made by hand (command-slots.test.ts): here it also depends on how
  // long each process took to start and end on a loaded machine (rounds of three held in 6 of 8 runs).
  expect(given).toHaveLength(ids.length * names.length);
  for (const name of names) expect(given.filter((n) => n === name)).toHaveLength(ids.length);
});

it('gives a command waiting for a slot back on a stop as it was: not started, its attempt not counted, its last attempt kept', async () => {
  const script = 'setTimeout(()=>{},10000)';
  const slow = {
    ...webhookAutomation('', 'slow'),
    action: { type: 'command' as const, command: [process.execPath, '-e', script], timeoutSeconds: 30 },
  };
  const slots = new CommandSlots(1);
  const ids = readOrders(2, ['slow']);
  // Each tried once before: what that attempt said stays shown until another really starts.
  const at = new Date(NOW).toISOString();
  for (const run of runs(ids)) {
    const earlier = { state: 'queued' as const, dueAt: at, exitCode: 3, detail: 'exit 3', output: 'earlier' };
    store.finishRun(run.deliveryId, earlier, at, { at, attempt: 1 });
  }
  const automations = runnerAlone(
    store,
    [slow],
    { secret: async () => undefined, workDir: join(dir, 'work'), commandSlots: slots },
    { now: () => NOW, timers: new ManualTimers() },
  );
  for (const id of ids) automations.kickOrder(id);
  await until(() => runs(ids).some((r) => r.state === 'running'));
  automations.stop();
  await automations.idle();
  expect(slots.busy).toBe(0);
  const [cut, waited] = [...runs(ids)].sort((a, b) => b.attempts - a.attempts);
  expect(cut).toMatchObject({ state: 'queued', claimed: false, attempts: 2 });
  expect(waited).toMatchObject({
    state: 'queued',
    claimed: false,
    attempts: 1,
    exitCode: 3,
    detail: 'exit 3',
    output: 'earlier',
  });
});

it("never lets one account's hung commands hold another account's commands for their whole time limit", async () => {
  // One account's automation whose commands hang (up to the 3600 s limit) fills the process's
  // bound (2) while the other account is idle: the other's first command still starts at once.
  const command = (name: string, script: string) => ({
    ...webhookAutomation('', name),
    action: { type: 'command' as const, command: [process.execPath, '-e', script], timeoutSeconds: 3600 },
  });
  const slots = new CommandSlots(2);
  const otherDir = await mkdtemp(join(tmpdir(), 'runner-other-'));
  const other = AccountStore.open(otherDir).store;
  const clock = { now: () => NOW, timers: new ManualTimers() };
  const hung = runnerAlone(
    store,
    [command('hangs', 'setTimeout(()=>{},60000)')],
    { secret: async () => undefined, workDir: join(dir, 'work'), commandSlots: slots },
    clock,
  );
  const quick = runnerAlone(
    other,
    [command('quick', 'process.exit(0)')],
    { secret: async () => undefined, workDir: join(otherDir, 'work'), commandSlots: slots },
    clock,
  );
  try {
    const hungIds = readOrders(2, ['hangs']);
    for (const id of hungIds) hung.kickOrder(id);
    await until(() => runs(hungIds).filter((r) => r.state === 'running').length === 2);
    const [quickId = ''] = readOrders(1, ['quick'], other);
    quick.kickOrder(quickId);
    await until(() => other.runsFor(quickId).every((r) => r.state === 'succeeded'), 5000);
  } finally {
    hung.stop();
    quick.stop();
    await Promise.all([hung.idle(), quick.idle()]);
    other.close();
    await rm(otherDir, { recursive: true, force: true });
  }
});

it('keeps the start of a run whose end a failed write turn lost: its repeat is told the next attempt', async () => {
  // A write turn throws after writing an end (and its start): the rollback loses both, and the
  // start is written again by the next turn, so the run taken again is told (and counts) the next.
  const failing = await recordingReceiver((response) => response.writeHead(500).end());
  const finishRun = store.finishRun.bind(store);
  const startRun = store.startRun.bind(store);
  let finishes = 0;
  let startsWritten = 0;
  vi.spyOn(store, 'finishRun').mockImplementation((...args) => {
    finishes += 1;
    finishRun(...args);
    if (finishes === 2) throw new Error('disk full');
  });
  vi.spyOn(store, 'startRun').mockImplementation((...args) => {
    startsWritten += 1;
    if (startsWritten === 1) throw new Error('disk full');
    startRun(...args);
  });
  const ids = readOrders(2);
  const automations = webhookRunner(store, urlOf(failing.server), join(dir, 'work'), {
    now: () => NOW,
    timers: new ManualTimers(),
  });
  try {
    for (const id of ids) automations.kickOrder(id);
    // Each delivered, its end lost once, delivered again (then waiting 30 s to be tried again).
    await until(() => failing.received.length === 4, 10_000);
    await until(() => runs(ids).every((r) => r.state === 'queued' && !r.claimed), 5000);
    for (const run of runs(ids)) {
      expect(failing.told.get(run.deliveryId)).toEqual([1, 2]);
      expect(run.attempts).toBe(2);
    }
  } finally {
    automations.stop();
    await automations.idle();
    failing.server.closeAllConnections();
    await new Promise((resolve) => failing.server.close(resolve));
  }
});

it("logs a delivery's failure at warn, with the reason in words and when it is tried next", async () => {
  const failing = await recordingReceiver((response) => response.writeHead(500).end());
  const { log, entries } = recordingLog();
  const [id] = readOrders(1);
  const automations = webhookRunner(store, urlOf(failing.server), join(dir, 'work'), {
    now: () => NOW,
    timers: new ManualTimers(),
    log,
  });
  try {
    automations.kickOrder(id as string);
    await until(() => entries.some((e) => e.message.startsWith('automation run')), 10_000);
    expect(entries.filter((e) => e.message.startsWith('automation run'))).toEqual([
      {
        level: 'warn',
        message: 'automation run failed, tried again later',
        fields: expect.objectContaining({
          automation: 'hook',
          attempt: 1,
          state: 'queued',
          httpStatus: 500,
          reason: expect.stringContaining('the receiver answered HTTP 500'),
          nextTry: '2026-11-26T00:00:30.000Z',
        }),
      },
    ]);
  } finally {
    automations.stop();
    await automations.idle();
    failing.server.closeAllConnections();
    await new Promise((resolve) => failing.server.close(resolve));
  }
});

it.each([
  ['nothing else', async () => {}],
  [
    // Its timer is then planned again: that turn looks at the other order's runs only.
    "a turn for another order's runs",
    async (automations: AutomationRunner) => {
      automations.kickOrder('o-other');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await automations.idle();
    },
  ],
])(
  'tries a failed delivery again at its 30 s wait when the clock went back 3 hours after it and %s came meanwhile, not hours later',
  async (_, meanwhile) => {
    // Due times further ahead than the longest wait come from a clock since set back: due now.
    let now = NOW;
    const { failing, id, timers, automations, close } = await failedOnce(() => now);
    try {
      expect(timers.pendingDelays).toContain(30_000);
      now -= 3 * 60 * 60_000;
      await meanwhile(automations);
      now += 30_000;
      timers.fire(30_000);
      await until(() => failing.received.length === 2, 10_000);
      // Tried again, and waits again from the clock as it is now.
      await until(
        () => store.runsFor(id).some((r) => r.attempts === 2 && r.state === 'queued' && !r.claimed),
        10_000,
      );
      expect(store.runsFor(id)[0]?.dueAt).toBe(new Date(now + 60_000).toISOString());
      expect(timers.pendingDelays).toContain(60_000);
    } finally {
      await close();
    }
  },
);

it('sends nothing and counts no attempt for a webhook stopped while its secret was read', async () => {
  // The stop comes while the keychain answers: nothing is sent, the stop waits for nothing, and
  // the run is given back uncounted (docs/automations.md).
  let automations: AutomationRunner | undefined;
  const [id = ''] = readOrders(1);
  let secretRead = false;
  automations = runner(async () => {
    secretRead = true;
    automations?.stop();
    return 'whsec_alone';
  });
  automations.kickOrder(id);
  await until(() => secretRead);
  await automations.idle();
  expect(received).toHaveLength(0);
  expect(store.runsFor(id)[0]).toMatchObject({ attempts: 0, startedAt: null });
});

/** A command automation that notes each start in `log`, then runs 1.5 s. */
function noting(log: string, name = 'provision') {
  const script = `require('fs').appendFileSync(process.argv[1],'+\\n');setTimeout(()=>{},1500)`;
  return {
    ...webhookAutomation('', name),
    action: { type: 'command' as const, command: [process.execPath, '-e', script, log], timeoutSeconds: 30 },
  };
}

/** A runner over `store` whose settings the test changes meanwhile, with one command slot. */
function runnerOf(
  settings: CoreSettings,
  changed: (orderIds: string[]) => void = () => undefined,
): AutomationRunner {
  return new AutomationRunner({
    advice: adviceFor('app'),
    store,
    settings: () => settings,
    ports: {
      secret: async () => undefined,
      workDir: join(dir, 'work'),
      commandSlots: new CommandSlots(1),
      account: { id: 'alone', label: 'the runner alone', baseUrl: 'http://127.0.0.1:1' },
      laptop: 'alone',
    },
    now: () => NOW,
    timers: new ManualTimers(),
    log: silentLog,
    claimant: new Claimant(() => false),
    brief: (orderId) => ({ orderId, buyer: '', product: '', total: '' }),
    mark: async () => undefined,
    changed,
    failed: () => undefined,
  });
}

/** Settings that run a `noting` automation (its starts noted in `log`); the test changes them meanwhile. */
function notingSettings(log: string): CoreSettings {
  return { ...DEFAULT_SETTINGS, automationsEnabled: true, automations: [noting(log)] };
}

/** Two orders' runs of a `noting` automation on one command slot: once one runs, the other waits for it. */
async function oneWaiting(log: string) {
  const settings = notingSettings(log);
  const automations = runnerOf(settings);
  const ids = readOrders(2, ['provision']);
  for (const id of ids) automations.kickOrder(id);
  await until(() => runs(ids).some((r) => r.state === 'running'));
  return { settings, automations, ids };
}

it('starts no command waiting for a slot once this laptop no longer runs automations', async () => {
  // A command waiting for one of the process's command slots when the person switches
  // automations off for this laptop (the runner not stopped) is given back once granted, unstarted.
  const log = join(dir, 'started.log');
  const { settings, automations, ids } = await oneWaiting(log);
  settings.automationsEnabled = false;
  await until(() => runs(ids).some((r) => r.state === 'succeeded'), 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    expect(readFileSync(log, 'utf8')).toBe('+\n');
  } finally {
    automations.stop();
    await automations.idle();
  }
});

it('runs no command of an automation deleted while the command waited for a slot', async () => {
  // The automation is looked up again once the slot is granted: one deleted meanwhile is skipped.
  const log = join(dir, 'started.log');
  const { settings, automations, ids } = await oneWaiting(log);
  settings.automations = [];
  try {
    await until(() => runs(ids).every((r) => r.state === 'succeeded' || r.state === 'skipped'), 10_000);
    expect(readFileSync(log, 'utf8')).toBe('+\n');
    expect(
      runs(ids)
        .map((r) => r.state)
        .sort(),
    ).toEqual(['skipped', 'succeeded']);
  } finally {
    automations.stop();
    await automations.idle();
  }
});

it('runs the command an automation has now when it was edited while the command waited for a slot', async () => {
  const before = join(dir, 'before.log');
  const after = join(dir, 'after.log');
  const { settings, automations, ids } = await oneWaiting(before);
  settings.automations = [noting(after)];
  try {
    await until(() => runs(ids).every((r) => r.state === 'succeeded'), 10_000);
    expect(readFileSync(before, 'utf8')).toBe('+\n');
    expect(readFileSync(after, 'utf8')).toBe('+\n');
  } finally {
    automations.stop();
    await automations.idle();
  }
});

it('tells the order page when a run really starts, not only when it ends', async () => {
  // A start is written behind: once on disk the window is told, so a command running for up to
  // an hour shows as running from its start (docs/automations.md), not as waiting until it ends.
  const log = join(dir, 'started.log');
  const settings = notingSettings(log);
  const seen: string[] = [];
  const automations = runnerOf(settings, (orderIds) => {
    for (const id of orderIds) seen.push(...store.runsFor(id).map((r) => r.state));
  });
  const [id = ''] = readOrders(1, ['provision']);
  automations.kickOrder(id);
  try {
    await until(() => store.runsFor(id)[0]?.state === 'running');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toContain('running');
  } finally {
    automations.stop();
    await automations.idle();
  }
});

it('a run asked for by hand on a laptop with automations off starts only once a command a dead runner left is stopped', async () => {
  const orphan = commandGroup('sleep 60');
  try {
    writeRecord(join(dir, 'work', '.running'), 'left-behind', await deadRunner(), {
      pid: orphan.pid,
      start: processStart(orphan.pid),
    });
    // It fails (exit 3) if the command left behind still runs as it starts.
    const script = `process.exit(require(${JSON.stringify(ALIVE)}).alive(${orphan.pid}) ? 3 : 0)`;
    const check = {
      ...webhookAutomation('', 'check'),
      action: { type: 'command' as const, command: [process.execPath, '-e', script], timeoutSeconds: 30 },
    };
    const [orderId = ''] = readOrders(1, []);
    const clock = { now: () => NOW, timers: new ManualTimers() };
    const automations = runnerAlone(
      store,
      [check],
      { secret: async () => undefined, workDir: join(dir, 'work') },
      clock,
      false,
    );
    const deliveryId = store.queueRun(orderId, 'check', 'test', new Date(NOW).toISOString()) as string;
    expect(await automations.runNow(deliveryId)).toMatchObject({ state: 'succeeded', exitCode: 0 });
    expect(alive(orphan.pid)).toBe(false);
  } finally {
    killGroups();
  }
});

it.runIf(process.getuid?.() === 0)(
  "a command does not run in its account's work folder when another user owns it, and its run says why (needs root)",
  async () => {
    // As `sudo seller-tray run` leaves it, given to user id 4242: its files (a script a command
    // runs, the records of commands running) could be replaced.
    const work = join(dir, 'work');
    mkdirSync(work);
    chmodSync(work, 0o777);
    chownSync(work, 4242, 4242);
    const ran = join(dir, 'ran');
    const check = {
      ...webhookAutomation('', 'check'),
      action: {
        type: 'command' as const,
        command: [process.execPath, '-e', `require('node:fs').writeFileSync(${JSON.stringify(ran)}, '')`],
        timeoutSeconds: 30,
      },
    };
    const [orderId = ''] = readOrders(1, []);
    const clock = { now: () => NOW, timers: new ManualTimers() };
    const automations = runnerAlone(store, [check], { secret: async () => undefined, workDir: work }, clock);
    const deliveryId = store.queueRun(orderId, 'check', 'test', new Date(NOW).toISOString()) as string;
    expect(await automations.runNow(deliveryId)).toMatchObject({
      state: 'failed',
      detail: expect.stringContaining(
        `it did not run: Seller Tray's folder '${work}' belongs to another user (user id 4242), who could replace the files Seller Tray keeps there, so Seller Tray does not use it. Seller Tray runs as root here: run it as that user instead, without sudo.`,
      ),
    });
    expect(existsSync(ran)).toBe(false);
    expect(readdirSync(work)).toEqual([]);
    expect(statSync(work).mode & 0o777).toBe(0o777);
  },
);

it("plans a failed delivery's retry while another run waits for its order to be read", async () => {
  // Another run waits for its order (never read): its due time has passed.
  store.queueRun('o-unread', 'hook', 'again', new Date(NOW - 1000).toISOString());
  const { timers, automations, close } = await failedOnce(() => NOW);
  try {
    await automations.idle();
    expect(timers.pendingDelays).toContain(30_000);
  } finally {
    await close();
  }
});

it('looks for a run set by a clock since set back once, not every 30 s, while its order waits to be read', async () => {
  // Queued 3 hours ahead of this clock (it went back since), for an order never read yet: its
  // reading kicks the runner; until then no look can take it.
  store.queueRun('o-unread', 'hook', 'new-order', new Date(NOW + 3 * 60 * 60_000).toISOString());
  const timers = new ManualTimers();
  const automations = webhookRunner(store, urlOf(receiver), join(dir, 'work'), { now: () => NOW, timers });
  const transactions = countTransactions();
  try {
    automations.kick(); // a look everywhere (a poll's end): it cannot take the run
    await automations.idle();
    for (let look = 0; look < 10; look++) {
      timers.fire(30_000);
      await automations.idle();
    }
    expect(transactions.count).toBeLessThanOrEqual(2);
    expect(timers.pendingDelays).not.toContain(30_000);
  } finally {
    automations.stop();
    await automations.idle();
  }
});

it('two runners of one process on one store (two cores of it) never deliver a run the other has under way', async () => {
  const [id] = readOrders(1);
  const first = runner();
  const second = runner();
  try {
    first.kickOrder(id ?? '');
    await until(() => received.length === 1);
    // The first's delivery is held by the receiver: under way, claimed by this process.
    second.kick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toHaveLength(1);
  } finally {
    for (const response of held.splice(0)) response.writeHead(204).end();
    first.stop();
    second.stop();
    await Promise.all([first.idle(), second.idle()]);
  }
});
