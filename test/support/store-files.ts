// An account's store files from outside: what they say of how the app ended, and a database as an
// earlier version left it.
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { type AccountStore, DATABASE_FILE } from '../../main/core/store/account-store';
import { MIGRATIONS } from '../../main/core/store/schema';

/** Whether the store says it was closed cleanly, with nothing left in a -wal file. */
export function closedCleanly(dataDir: string): boolean {
  const file = join(dataDir, DATABASE_FILE);
  if (existsSync(`${file}-wal`)) return false;
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(`SELECT 1 FROM meta WHERE key = 'closed-cleanly'`).get() !== undefined;
  } finally {
    db.close();
  }
}

/**
 * A database in `dataDir` as an earlier version left it: the schema's first `version`
 * migrations, its version said so; the caller fills it and closes it, and the store migrates it.
 */
export function databaseOfVersion(dataDir: string, version: number): import('node:sqlite').DatabaseSync {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
  db.exec(`PRAGMA user_version = ${version}`);
  return db;
}

/**
 * Garbage over the first page of `index` in a closed store: the damage check finds it, while the
 * tables' own pages stay readable (what a damaged file still shows is put back).
 */
export async function garbleIndexPage(dataDir: string, index: string): Promise<void> {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(index) as {
    rootpage: number;
  };
  const { page_size } = db.prepare('PRAGMA page_size').get() as { page_size: number };
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  const file = await open(join(dataDir, DATABASE_FILE), 'r+');
  await file.write(Buffer.alloc(page_size, 0xa5), 0, page_size, (rootpage - 1) * page_size);
  await file.close();
}

/**
 * One purchased order `orderId` polled into `store` (with runs of `automations` queued): the
 * inbox's index then has a page to garble.
 */
export function pollOnePurchase(
  store: AccountStore,
  orderId: string,
  now: string,
  automations: string[] = [],
): void {
  store.recordPoll({
    events: [
      {
        eventId: `${orderId}-started`,
        eventTypeCode: 'ServicePurchased',
        statusCode: 'ProvisioningStarted',
        description: 'A purchase',
        eventTime: now,
        additionalProperties: [{ name: 'orderId', value: orderId }],
      },
    ],
    cursor: undefined,
    backlog: false,
    paused: false,
    now,
    automations,
  });
}
