// Every test file runs with a HOME and XDG folders of its own (vitest's setupFiles runs this in
// each file's process before the file): nothing a test does reads or writes the user's config,
// data, autostart folder or cache, and what the user (or `npm run preview`) left there cannot
// change a test's outcome. Child processes the tests spawn inherit the same folders.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const HERMETIC_VARIABLES = [
  'HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
] as const;

const home = mkdtempSync(join(tmpdir(), 'seller-tray-test-home-'));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, '.config');
process.env.XDG_DATA_HOME = join(home, '.local', 'share');
process.env.XDG_CACHE_HOME = join(home, '.cache');
process.env.XDG_STATE_HOME = join(home, '.local', 'state');
// Credentials a developer exported for the CLI must not reach the tests' CLI runs.
for (const name of ['SELLER_API_BASE_URL', 'SELLER_CLIENT_ID', 'SELLER_CLIENT_SECRET'])
  delete process.env[name];

afterAll(() => rmSync(home, { recursive: true, force: true }));
