// The production bundles of the main process and the preload, built as `npm run build:main`
// and `npm run build:preload` build them, load in plain Node with a stand-in for the
// `electron` module (its binary cannot be fetched here), and do what they must at load.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requests } from '../preload/contract';
import { REPO_ROOT } from './support/processes';

/** Records what the bundles ask of Electron, on a global the test reads. */
const ELECTRON_STAND_IN = `
const calls = (globalThis.__electronCalls = []);
const record = (name) => (...args) => { calls.push([name, ...args]); };
exports.contextBridge = { exposeInMainWorld: record('exposeInMainWorld') };
exports.ipcRenderer = { invoke: record('invoke'), on: record('on'), removeListener: record('removeListener') };
exports.protocol = { registerSchemesAsPrivileged: record('registerSchemesAsPrivileged'), handle: record('protocol.handle') };
exports.app = {
  requestSingleInstanceLock: () => false, // another instance runs: this one must quit at once
  quit: record('quit'),
  on: record('app.on'),
  whenReady: () => new Promise(() => {}),
};
for (const name of ['BrowserWindow', 'ipcMain', 'Menu', 'Notification', 'nativeImage', 'powerMonitor', 'shell', 'Tray']) {
  exports[name] = {};
}
`;

let dir: string;
const calls = () => (globalThis as unknown as { __electronCalls: unknown[][] }).__electronCalls;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundles-'));
  await mkdir(join(dir, 'node_modules', 'electron'), { recursive: true });
  await writeFile(join(dir, 'node_modules', 'electron', 'index.js'), ELECTRON_STAND_IN);
  await writeFile(
    join(dir, 'node_modules', 'electron', 'package.json'),
    '{"name":"electron","main":"index.js"}',
  );
  // The same options as the package scripts, read from package.json so the two cannot drift.
  const scripts = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')).scripts;
  expect(scripts['build:main']).toContain('--external:electron');
  expect(scripts['build:preload']).toContain('--format=cjs');
  await build({
    entryPoints: [join(REPO_ROOT, 'main/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['electron', 'keytar'],
    outfile: join(dir, 'main.mjs'),
    logLevel: 'silent',
  });
  await build({
    entryPoints: [join(REPO_ROOT, 'preload/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['electron'],
    outfile: join(dir, 'preload.cjs'),
    logLevel: 'silent',
  });
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the preload bundle', () => {
  it('exposes exactly the bridge contract as window.sellerTray, nothing raw', async () => {
    createRequire(join(dir, 'x.js'))(join(dir, 'preload.cjs'));
    const exposed = calls().find((c) => c[0] === 'exposeInMainWorld');
    expect(exposed?.[1]).toBe('sellerTray');
    const bridge = exposed?.[2] as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual([...Object.keys(requests), 'onEvent'].sort());
    expect(Object.values(bridge).every((value) => typeof value === 'function')).toBe(true);
    // Small: the sandboxed preload carries the channel names, not the schemas (zod stays out).
    expect((await readFile(join(dir, 'preload.cjs'))).length).toBeLessThan(16 * 1024);
  });
});

describe('the main bundle', () => {
  it('loads, registers its secure scheme, and quits when another instance holds the lock', async () => {
    await import(pathToFileURL(join(dir, 'main.mjs')).href);
    const scheme = calls().find((c) => c[0] === 'registerSchemesAsPrivileged')?.[1] as {
      privileges: { secure: boolean; standard: boolean };
    }[];
    expect(scheme?.[0]?.privileges).toMatchObject({ secure: true, standard: true });
    expect(calls().some((c) => c[0] === 'quit')).toBe(true);
  });
});
