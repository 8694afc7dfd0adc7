// What an account's store files say from outside, for tests of how the app ended.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../main/core/store/account-store';

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
