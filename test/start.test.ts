// `npm start` where Electron's binary cannot be had: a clear message naming the preview.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runTs } from './support/processes';

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
