// Automations survive kill -9 (issue 24): a laptop process killed in the middle of a command or a
// webhook delivery leaves its run in the store, and the next start runs it again under the same
// delivery id, so the receiver can tell the repeat; nothing is lost.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { RUNS_AHEAD, RUNS_AT_ONCE } from '../main/core/automation/runner';
import type { AutomationRun, AutomationSetting } from '../preload/automations';
import { type Simulator, startSimulator } from '../simulator/server';
import { alive } from './support/alive.cjs';
import { fileAppears, recordingReceiver, runsOnceFirst, runsOnDisk } from './support/automation-runs';
import { openChildCore } from './support/child-core';
import { exitOf, REPO_ROOT, spawnTs, waitForLine } from './support/processes';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: 2 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'automation-crash-'));
  // This laptop has read the history: the next purchase is news.
  const core = await openChildCore(sim.url, dir);
  await core.start();
  await core.close();
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
  await rm(dir, { recursive: true, force: true });
});

function laptop(automations: AutomationSetting[], env: NodeJS.ProcessEnv = {}) {
  return spawnTs('test/support/automation-child.ts', [sim.url, dir, JSON.stringify(automations)], env);
}

const base = {
  enabled: true,
  products: [] as string[],
  orderTypes: [] as string[],
  accounts: 'all' as const,
  reportStatus: null,
};

/** Stops a receiver, dropping the answers it held. */
async function closeReceiver(receiver: Server, held: ServerResponse[]): Promise<void> {
  for (const response of held) response.destroy();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
}

it('kill -9 during a command: what it left running (its child too) is stopped before the next start runs it again under the same delivery id', async () => {
  const ids = join(dir, 'ids.txt');
  // The first run starts a child and waits (to be killed); the second says whether the first and
  // its child still ran as it started, and ends at once.
  const script = join(REPO_ROOT, 'test/support/orphaning-command.cjs');
  const automations: AutomationSetting[] = [
    {
      ...base,
      name: 'provision',
      action: { type: 'command', command: [process.execPath, script, ids], timeoutSeconds: 60 },
    },
  ];
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const first = laptop(automations);
  await fileAppears(ids);
  // Its start is written behind it: shown running once on disk (a kill before costs only that).
  await until(() => runsOnDisk(dir, orderId)[0]?.state === 'running', 20_000);
  first.kill('SIGKILL');
  await exitOf(first);
  const [firstLine = ''] = readFileSync(ids, 'utf8').trim().split('\n');
  const [deliveryId, orphan, grandchild] = firstLine.split(' ');
  // The command and its child outlive their killed runner (at least once, not at most once).
  expect([alive(Number(orphan)), alive(Number(grandchild))]).toEqual([true, true]);
  expect(runsOnDisk(dir, orderId)).toEqual([
    expect.objectContaining({ state: 'running', attempts: 1, deliveryId }),
  ]);

  const second = laptop(automations);
  try {
    const [run] = await runsOnceFirst(dir, orderId, 'succeeded');
    expect(run).toMatchObject({ deliveryId, attempts: 2, exitCode: 0 });
    // Once afterwards, same delivery id, the first command and its child gone before it started.
    expect(
      readFileSync(ids, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')),
    ).toEqual([
      [deliveryId, orphan, grandchild],
      [deliveryId, expect.any(String), 'old-gone'],
    ]);
    expect([alive(Number(orphan)), alive(Number(grandchild))]).toEqual([false, false]);
    // Said where its output is shown, and in the log.
    expect(run?.output).toContain(
      'node orphaning-command.cjs was still running from before Seller Tray stopped; it was stopped and runs again.',
    );
    expect(readFileSync(join(dir, 'logs', 'main.log'), 'utf8')).toContain(
      'node orphaning-command.cjs was still running',
    );
  } finally {
    second.kill('SIGKILL');
    await exitOf(second);
  }
});

it('kill -9 during a webhook delivery: delivered on the next start under the same delivery id', async () => {
  const secret = 'whsec_crash';
  const deliveries: { id: string; signed: boolean; attempt: number }[] = [];
  const held: ServerResponse[] = [];
  const receiver: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const [t, v1] = String(request.headers['seller-tray-signature'])
        .split(',')
        .map((p) => p.slice(p.indexOf('=') + 1));
      const signed = v1 === createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
      const { attempt } = JSON.parse(body) as { attempt: number };
      deliveries.push({ id: String(request.headers['seller-tray-delivery']), signed, attempt });
      // The first is never answered: its laptop is killed while it waits.
      if (deliveries.length === 1) held.push(response);
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const automations: AutomationSetting[] = [{ ...base, name: 'hook', action: { type: 'webhook', url } }];
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
    const env = { AUTOMATION_SECRET: secret };
    const first = laptop(automations, env);
    // Killed once its start (and attempt) is on disk: a kill before would cost the next delivery
    // only its number (it would be told attempt 1 again).
    await until(() => deliveries.length > 0 && runsOnDisk(dir, orderId)[0]?.state === 'running', 20_000);
    first.kill('SIGKILL');
    await exitOf(first);
    const second = laptop(automations, env);
    try {
      await waitForLine(second, /^polled$/);
      const [run] = await runsOnceFirst(dir, orderId, 'succeeded');
      expect(run).toMatchObject({ attempts: 2, httpStatus: 204 });
      expect(deliveries).toEqual([
        { id: run?.deliveryId, signed: true, attempt: 1 },
        { id: run?.deliveryId, signed: true, attempt: 2 },
      ]);
    } finally {
      second.kill('SIGKILL');
      await exitOf(second);
    }
  } finally {
    await closeReceiver(receiver, held);
  }
});

it('kill -9 with runs claimed ahead of a free slot: every claimed run is delivered on the next start, same delivery ids, a first delivery told attempt 1', async () => {
  const orders = RUNS_AT_ONCE + RUNS_AHEAD - 2; // all claimed at once, most of them waiting for a slot
  let answering = false;
  const held: ServerResponse[] = [];
  // The first laptop's deliveries are never answered: its slots stay busy until it is killed.
  const {
    server: receiver,
    received,
    told,
  } = await recordingReceiver((response) => {
    if (answering) response.writeHead(204).end();
    else held.push(response);
  });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const automations: AutomationSetting[] = [{ ...base, name: 'hook', action: { type: 'webhook', url } }];
    const orderIds: string[] = [];
    for (let i = 0; i < orders; i++)
      orderIds.push((await admin(sim.url, 'POST', 'purchases')).json.orderId as string);
    const env = { AUTOMATION_SECRET: 'whsec_crash' };
    const first = laptop(automations, env);
    const claimed = () => orderIds.flatMap((id) => runsOnDisk(dir, id)).filter((r) => r.claimed);
    const running = () => claimed().filter((r) => r.state === 'running');
    await until(
      () =>
        claimed().length === orders && received.length === RUNS_AT_ONCE && running().length === RUNS_AT_ONCE,
      20_000,
    );
    const before = claimed();
    // Those sent run, their attempt counted; those claimed ahead wait, shown as waiting, none counted.
    expect(new Set(running().map((r) => r.deliveryId))).toEqual(new Set(received));
    expect(running().every((r) => r.attempts === 1)).toBe(true);
    expect(before.filter((r) => r.state === 'queued' && r.attempts === 0)).toHaveLength(
      orders - RUNS_AT_ONCE,
    );
    first.kill('SIGKILL');
    await exitOf(first);
    // Only RUNS_AT_ONCE reached the receiver; the rest were claimed, waiting for a slot.
    expect(new Set(received).size).toBe(RUNS_AT_ONCE);
    answering = true;
    const second = laptop(automations, env);
    try {
      await waitForLine(second, /^polled$/);
      let after: AutomationRun[] = [];
      await until(() => {
        after = orderIds.flatMap((id) => runsOnDisk(dir, id));
        return after.length === orders && after.every((r) => r.state === 'succeeded');
      }, 20_000);
      expect(new Set(after.map((r) => r.deliveryId))).toEqual(new Set(before.map((r) => r.deliveryId)));
      // Each delivered under the id it was claimed with: the first RUNS_AT_ONCE twice (attempts 1
      // and 2), the rest once, told it is their first attempt; each counted as often as it was tried.
      expect(new Set(received)).toEqual(new Set(before.map((r) => r.deliveryId)));
      expect(received).toHaveLength(orders + RUNS_AT_ONCE);
      const sentFirst = new Set(received.slice(0, RUNS_AT_ONCE));
      for (const run of after) {
        expect(told.get(run.deliveryId)).toEqual(sentFirst.has(run.deliveryId) ? [1, 2] : [1]);
        expect(run.attempts).toBe(told.get(run.deliveryId)?.length);
      }
    } finally {
      second.kill('SIGKILL');
      await exitOf(second);
    }
  } finally {
    await closeReceiver(receiver, held);
  }
});
