// kill -9 while a mark moves between the journal's two files (refused, then sent again, over and
// over), then the database deleted: the next open finds the mark, pending or refused, every time.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { AccountStore, DATABASE_FILE } from '../main/core/store/account-store';
import { exitOf, spawnTs } from './support/processes';

const KILLS = 12;

let dir: string;
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it(`keeps a mark moving between the journal's files through ${KILLS} kills and the database lost`, async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-kill-'));
  for (let kill = 0; kill < KILLS; kill += 1) {
    const child = spawnTs('test/support/refusal-child.ts', [dir]);
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    await delay(20 + Math.random() * 200);
    child.kill('SIGKILL');
    await exitOf(child);
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
      await rm(join(dir, file), { force: true });
    }
    const { store } = AccountStore.open(dir);
    const states = store.outboxItems().map((item) => item.state);
    store.close();
    expect(states, `after kill ${kill + 1}`).toHaveLength(1);
    expect(['pending', 'failed']).toContain(states[0]);
  }
}, 120_000);
