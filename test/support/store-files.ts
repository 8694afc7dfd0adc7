// An account's store files from outside: what they say of how the app ended, and a database as an
// earlier version left it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../main/core/store/account-store';
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
