// keytar is an optional dependency: on a machine where its native build fails, npm leaves it out,
// and `npm run typecheck` must still pass (its types go with it). The project's files are copied
// next to a node_modules that has every package but keytar, and the compiler runs there.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from './support/processes';

const run = promisify(execFile);
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

it('npm run typecheck passes where keytar could not be installed', async () => {
  dir = await mkdtemp(join(tmpdir(), 'typecheck-'));
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split('\n').filter((f) => /\.(ts|tsx|cts|mts|json)$/.test(f))) {
    await mkdir(join(dir, dirname(file)), { recursive: true });
    await cp(join(REPO_ROOT, file), join(dir, file)).catch(() => {}); // a file deleted in the work tree
  }
  await mkdir(join(dir, 'node_modules'));
  const packages = (await readdir(join(REPO_ROOT, 'node_modules'))).filter((name) => name !== 'keytar');
  for (const name of packages)
    await symlink(join(REPO_ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: dir }).catch(
    (error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? '', code: error.code }),
  );
  expect(result.stdout).toBe('');
  expect(packages).toContain('@types');
}, 120_000);
