// The store under kill -9 and file damage, over real loopback HTTP against the simulator: a
// laptop process is killed (kill -9) while a status it marked is pending, while a purchase it
// read waits to be announced, or just after it announced one; then one file of its data folder
// is cut in half, garbled or deleted (the database, its -wal and -shm files, the store's
// journal and its refused statuses' part, the log file). The next start delivers the status once, announces each purchase once
// (one made after the damage too), tells the user what was lost, and polls on.
import { existsSync } from 'node:fs';
import { open, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreEvent, SellerCore } from '../main/core/seller-core';
import { DATABASE_FILE } from '../main/core/store/account-store';
import { openDatabase } from '../main/core/store/database';
import { JOURNAL_FILE, REFUSED_FILE, readJournal } from '../main/core/store/journal';
import { type Simulator, startSimulator } from '../simulator/server';
import { openChildCore } from './support/child-core';
import { makeDataDir } from './support/core';
import { exitOf, spawnTs, waitForLine } from './support/processes';
import { admin } from './support/raw-api';
import { until } from './support/shell-fakes';

let sim: Simulator;
const dirs: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 20, orders: 5 });
});
afterAll(async () => {
  await sim.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const FILES = {
  database: DATABASE_FILE,
  wal: `${DATABASE_FILE}-wal`,
  shm: `${DATABASE_FILE}-shm`,
  journal: JOURNAL_FILE,
  refused: REFUSED_FILE,
  log: join('logs', 'main.log'),
} as const;
type FileKind = keyof typeof FILES;

const DAMAGE = {
  'cut in half': async (file: string) => truncate(file, Math.floor((await stat(file)).size / 2)),
  garbled: async (file: string) => {
    // The middle half of the file, in bytes no file of ours holds by chance.
    const { size } = await stat(file);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(Math.ceil(size / 2), 0xa5), 0, Math.ceil(size / 2), Math.floor(size / 4));
    await handle.close();
  },
  deleted: (file: string) => rm(file),
};
type DamageKind = keyof typeof DAMAGE;

async function purchase(): Promise<string> {
  return (await admin(sim.url, 'POST', 'purchases')).json.orderId;
}

const posted = (description: string) =>
  sim.store.listEvents(1001, 0, 100_000).items.filter((e) => e.description === description).length;

/** A laptop whose first start (the backlog) is done and closed. */
async function laptopDir(): Promise<string> {
  const dataDir = await makeDataDir();
  dirs.push(dataDir);
  const core = await openChildCore(sim.url, dataDir);
  await core.start();
  await core.backlogRead(); // a walk cut short by the close would go on at the next start
  await core.close();
  return dataDir;
}

async function killWhen(child: ReturnType<typeof spawnTs>, moment: () => Promise<void>): Promise<void> {
  await moment();
  child.kill('SIGKILL');
  await exitOf(child);
}

interface Moment {
  /** Kills a laptop process on `dataDir` at the moment; says what the next start must do. */
  kill(dataDir: string, tag: string): Promise<{ description?: string; announce: string[] }>;
}

const MOMENTS: Record<string, Moment> = {
  'a status is pending': {
    async kill(dataDir, tag) {
      const orderId = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId;
      const description = `Pending through damage ${tag}`;
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
      const child = spawnTs('test/support/mark-status-child.ts', [sim.url, dataDir, orderId, description]);
      await killWhen(child, async () => void (await waitForLine(child, /^delivery pending/)));
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
      return { description, announce: [] };
    },
  },
  'a purchase waits to be announced': {
    async kill(dataDir) {
      const orderId = await purchase();
      // The announcement waits for its order's document: killed while it waits, it is queued only.
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'getOrder', action: 'delay', delayMs: 10_000 }],
      });
      const child = spawnTs('test/support/poll-child.ts', [sim.url, dataDir]);
      await killWhen(child, () =>
        until(() => !!readJournal(dataDir)?.announcements.some((a) => a.orderId === orderId), 15_000),
      );
      await admin(sim.url, 'PATCH', 'faults', { script: [] });
      return { announce: [orderId] };
    },
  },
  'a purchase was just announced': {
    async kill(dataDir) {
      const orderId = await purchase();
      const child = spawnTs('test/support/poll-child.ts', [sim.url, dataDir]);
      // Its first poll ended: the announcement was raised and marked raised.
      await killWhen(child, async () => void (await waitForLine(child, /^polled$/)));
      expect(readJournal(dataDir)?.announcements).toContainEqual({
        orderId,
        state: 'raised',
        arrivedAt: expect.any(String),
      });
      return { announce: [] };
    },
  },
};

/**
 * The next start after the damage, with a purchase made before it (a rebuilt store's first read
 * of the whole history must count it as news) and one while it runs; and what the user saw.
 */
async function restart(dataDir: string) {
  const before = await purchase();
  const core: SellerCore = await openChildCore(sim.url, dataDir);
  const events: CoreEvent[] = [];
  core.on((event) => events.push(event));
  try {
    await core.start();
    await core.backlogRead();
    const later = [before, await purchase()];
    await core.checkNow();
    await core.deliverOutbox();
    return {
      later,
      arrived: events.flatMap((e) => (e.type === 'orders-arrived' ? e.orderIds : [])),
      problems: events.flatMap((e) => (e.type === 'problem' ? [e.message] : [])),
      connection: core.status().connection,
    };
  } finally {
    await core.close();
  }
}

/** Damage that loses what the database held (the file or the commits in its -wal file): the user is told. */
const LOSES: readonly FileKind[] = ['database', 'wal'];

describe.each(Object.entries(MOMENTS))('kill -9 when %s, then', (momentName, moment) => {
  const cases = (Object.keys(FILES) as FileKind[]).flatMap((file) =>
    (Object.keys(DAMAGE) as DamageKind[]).map((how) => [file, how] as const),
  );
  it.each(cases)(
    'its %s %s: delivered once, announced once, told, polling on',
    async (file, how) => {
      const dataDir = await laptopDir();
      const expected = await moment.kill(dataDir, `${momentName} ${file} ${how}`);
      const path = join(dataDir, FILES[file]);
      expect(existsSync(path), `${FILES[file]} is there to damage`).toBe(true);
      await DAMAGE[how](path);

      const after = await restart(dataDir);
      if (expected.description) expect(posted(expected.description)).toBe(1);
      expect(after.arrived.sort()).toEqual([...expected.announce, ...after.later].sort());
      if (LOSES.includes(file)) expect(after.problems).toEqual([expect.stringMatching(/order database/)]);
      expect(after.connection).toBe('ok');
      expect(await readFile(join(dataDir, FILES.log), 'utf8')).toMatch(/poll ok/);
    },
    30_000,
  );
});

describe('damage met while running', () => {
  it('is set aside and the store rebuilt in the same start: told, the pending status delivered once, a purchase announced once', async () => {
    const dataDir = await laptopDir();
    const core = await openChildCore(sim.url, dataDir);
    const events: CoreEvent[] = [];
    core.on((event) => events.push(event));
    try {
      await core.start();
      const orderId = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId;
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
      await core.markStatus({
        orderId,
        statusCode: 'ProvisioningInProgress',
        description: 'Rebuilt',
        override: true,
      });
      await core.deliverOutbox();
      await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
      const bought = await purchase();
      await garbleUnderRunningCore(join(dataDir, DATABASE_FILE));

      await core.checkNow();
      await core.backlogRead();
      await core.deliverOutbox();
      expect(events.filter((e) => e.type === 'problem')).toEqual([
        { type: 'problem', message: expect.stringMatching(/order database was damaged and was kept aside/) },
      ]);
      expect(posted('Rebuilt')).toBe(1);
      expect(events.flatMap((e) => (e.type === 'orders-arrived' ? e.orderIds : []))).toEqual([bought]);
      expect(core.status().connection).toBe('ok');
      const later = await purchase();
      await core.checkNow();
      expect(events.flatMap((e) => (e.type === 'orders-arrived' ? e.orderIds : []))).toEqual([bought, later]);
    } finally {
      await core.close();
    }
  }, 30_000);

  it('on a folder two processes share: the second to meet it takes the new file the first made', async () => {
    const dataDir = await laptopDir();
    const [app, watch] = await Promise.all([
      openChildCore(sim.url, dataDir),
      openChildCore(sim.url, dataDir),
    ]);
    const arrived: string[] = [];
    const problems: string[] = [];
    for (const core of [app, watch]) {
      core.on((event) => {
        if (event.type === 'orders-arrived') arrived.push(...event.orderIds);
        if (event.type === 'problem') problems.push(event.message);
      });
    }
    try {
      await Promise.all([app.start(), watch.start()]);
      const bought = await purchase();
      await garbleUnderRunningCore(join(dataDir, DATABASE_FILE));
      await app.checkNow();
      await app.backlogRead();
      await watch.checkNow();
      await watch.backlogRead();
      expect(problems).toHaveLength(2); // each process tells its own user
      expect(arrived).toEqual([bought]);
      expect(
        (await readdir(dataDir)).filter((f) => /^seller-tray\.db\.damaged-[\dTZ-]+$/.test(f)),
      ).toHaveLength(1);
      const later = await purchase();
      await watch.checkNow();
      await app.checkNow();
      expect(arrived).toEqual([bought, later]);
      expect([app.status().connection, watch.status().connection]).toEqual(['ok', 'ok']);
    } finally {
      await Promise.all([app.close(), watch.close()]);
    }
  }, 30_000);
});

/**
 * Garbles every page but the first of a database a core has open, then has another connection
 * write its header: the core's connection drops its page cache and meets the damage at its next
 * read, as it would meet a bad sector.
 */
async function garbleUnderRunningCore(file: string): Promise<void> {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  const writer = new DatabaseSync(file);
  writer.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const handle = await open(file, 'r+');
  const { size } = await handle.stat();
  await handle.write(Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
  await handle.close();
  writer.exec('PRAGMA application_id = 7');
  writer.close();
}

describe('the mark "closed cleanly"', () => {
  it('is not trusted after kill -9 with the -wal file deleted: the next open checks the file', async () => {
    const dataDir = await laptopDir(); // closed cleanly: the file holds the mark
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 1 });
    const child = spawnTs('test/support/mark-status-child.ts', [
      sim.url,
      dataDir,
      crypto.randomUUID(),
      'Killed',
    ]);
    await killWhen(child, async () => void (await waitForLine(child, /^delivery pending/)));
    await admin(sim.url, 'PATCH', 'faults', { errorRate: 0 });
    await rm(join(dataDir, FILES.wal));
    const { db, closedCleanly } = openDatabase(join(dataDir, DATABASE_FILE));
    db.close();
    expect(closedCleanly).toBe(false);
  }, 30_000);
});
