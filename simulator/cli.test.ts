import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitOf, spawnSimulator, spawnTs } from '../test/support/processes';
import { admin, rawCall, tokenFor } from '../test/support/raw-api';

const children: { kill(signal?: NodeJS.Signals): boolean }[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function start(args: string[] = []) {
  const started = await spawnSimulator(args);
  children.push(started.child);
  return started;
}

describe('simulator command', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'listens on the printed URL and exits cleanly on %s',
    async (signal) => {
      const { url, child } = await start([
        '--orders',
        '3',
        '--client-id',
        'ops',
        '--client-secret',
        's3cret',
      ]);
      expect((await rawCall(url, 'ping')).status).toBe(200);
      const token = await tokenFor(url, 'ops', 's3cret');
      const orders = await rawCall(url, 'listOrders', { token });
      expect(orders.json.orders).toHaveLength(3);
      child.kill(signal);
      expect(await exitOf(child)).toBe(0);
    },
  );

  it('plays the quirks it is started with, and refuses one it does not know', async () => {
    const { url } = await start(['--quirks', 'max-page-50,loose-token']);
    const token = await rawCall(url, 'createToken', { basic: ['demo-client', 'demo-secret'] });
    expect(token.status).toBe(200);
    expect(token.json.tokenType).toBe('bearer');
    const page = await rawCall(url, 'listOrders', { token: token.json.accessToken, query: { limit: 100 } });
    expect(page.status).toBe(400);
    expect(page.json.detailedDescription).toContain('from 1 to 50');

    const bad = spawnTs('simulator/cli.ts', ['--quirks', 'max-page-50,teleport']);
    let stderr = '';
    bad.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    expect(await exitOf(bad)).toBe(2);
    expect(stderr).toContain('--quirks');
  });

  it('applies fault and mode flags', async () => {
    const { url } = await start([
      '--token-ttl',
      '90',
      '--new-events',
      'sticky',
      '--latency-ms',
      '5',
      '--rate-limit',
      '50',
    ]);
    const faults = await admin(url, 'GET', 'faults');
    expect(faults.json).toMatchObject({
      tokenTtlSeconds: 90,
      newEvents: 'sticky',
      latencyMs: 5,
      rateLimit: 50,
    });
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--error-rate', '3'], '--error-rate'],
    [['--new-events', 'maybe'], '--new-events'],
    [['--bogus'], 'bogus'],
  ])('refuses %j with exit status 2 and a message naming the flag', async (args, named) => {
    const child = spawnTs('simulator/cli.ts', args);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain(named);
    expect(stderr).toContain('Usage');
  });

  it('keeps its state across restarts with --data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simulator-'));
    try {
      const file = join(dir, 'state.json');
      const first = await start(['--data', file, '--orders', '4']);
      const token = await tokenFor(first.url, 'demo-client', 'demo-secret');
      const purchase = await admin(first.url, 'POST', 'purchases');
      const orderId = purchase.json.orderId;
      const requestId = crypto.randomUUID();
      const body = {
        eventTypeCode: 'ServicePurchased',
        statusCode: 'ProvisioningInProgress',
        description: 'Provisioning',
        additionalProperties: [{ name: 'orderId', value: orderId }],
      };
      const posted = await rawCall(first.url, 'sendEvent', { token, requestId, body });
      expect(posted.status).toBe(201);
      const newBefore = await rawCall(first.url, 'listNewEvents', { token, query: { limit: 1 } });
      first.child.kill('SIGTERM');
      expect(await exitOf(first.child)).toBe(0);

      const second = await start(['--data', file, '--orders', '99']);
      // The token, the orders, the consumed "new" event and the post survive the restart.
      const orders = await rawCall(second.url, 'listOrders', { token });
      expect(orders.json.orders.map((o: { orderId: string }) => o.orderId)).toContain(orderId);
      expect(orders.json.orders).toHaveLength(5);
      const replay = await rawCall(second.url, 'sendEvent', { token, requestId, body });
      expect(replay.json.eventId).toBe(posted.json.eventId);
      const newAfter = await rawCall(second.url, 'listNewEvents', { token, query: { limit: 100 } });
      const ids = newAfter.json.marketplaceEvents.map((e: { eventId: string }) => e.eventId);
      expect(ids).not.toContain(newBefore.json.marketplaceEvents[0].eventId);
      expect(await readdir(dir)).toEqual(['state.json']); // no temporary file left behind
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['not JSON', '{"version": 1, "sellers": [tru'],
    ['not a state', '{"version": 1, "sellers": 3}'],
  ])('refuses a state file that is %s, naming it, instead of overwriting it', async (_, content) => {
    const dir = await mkdtemp(join(tmpdir(), 'simulator-'));
    try {
      const file = join(dir, 'state.json');
      await writeFile(file, content);
      const child = spawnTs('simulator/cli.ts', ['--port', '0', '--data', file]);
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      expect(await exitOf(child)).toBe(2);
      expect(stderr).toContain(file);
      expect(await readdir(dir)).toEqual(['state.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
