// `npm start`: where Electron's binary cannot be had, a clear message naming the preview; where it
// runs, a stop of `npm start` reaches the app (which then quits as from its menu) and `npm start`
// ends with it.

import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitOf, REPO_ROOT, runTs, spawnTs, waitForLine } from './support/processes';

const binaryPresent = existsSync(join(REPO_ROOT, 'node_modules', 'electron', 'path.txt'));

describe('npm start without an Electron binary', () => {
  // Where the binary is installed, start would launch the app: nothing to check here then.
  it.skipIf(binaryPresent)('fails with a message naming the browser preview', async () => {
    const run = await runTs('main/start.ts', [], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Electron's binary is not installed");
    expect(run.stderr).toContain('npm run preview');
  });
});

describe('npm start, stopped', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'with %s: the app is told, and start ends with it',
    async (signal) => {
      // An "Electron" (electron's own ELECTRON_OVERRIDE_DIST_PATH points at it) that notes the
      // signal it gets and then quits, as the app does once its store is closed.
      const dir = await mkdtemp(join(tmpdir(), 'start-'));
      const noted = join(dir, 'signal');
      const pidFile = join(dir, 'pid');
      try {
        await writeFile(
          join(dir, 'electron'),
          `#!/bin/sh\necho $$ > "${pidFile}"\ntrap 'echo INT > "${noted}"; exit 3' INT\ntrap 'echo TERM > "${noted}"; exit 3' TERM\necho ready\nwhile :; do sleep 0.05; done\n`,
        );
        await chmod(join(dir, 'electron'), 0o755);
        const start = spawnTs('main/start.ts', [], { ELECTRON_OVERRIDE_DIST_PATH: dir });
        await waitForLine(start, /^ready$/);
        start.kill(signal);
        expect(await exitOf(start)).toBe(3);
        expect((await readFile(noted, 'utf8')).trim()).toBe(signal.slice(3));
      } finally {
        // The stand-in app never outlives the test, even when start did not pass the stop on.
        const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already, as it should be.
        }
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
