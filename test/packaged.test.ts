// The packaged app as an installer would hold it (test/support/packaged-app.ts: `npm run build`'s
// bundles, then electron-builder's Linux `dir` target from a stand-in Electron, offline): what the
// asar holds, what lies unpacked beside it, the fuses electron-builder flipped, and the main bundle,
// taken out of the asar, starting as the packaged app with the stand-in for `electron`.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractAll, extractFile, listPackage } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { FuseState } from '@electron/fuses/dist/constants';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../main/renderer-serving';
import { applicationMenu } from '../main/shell/app-menu';
import { APP_URL } from '../main/shell/app-origin';
import { installStandIn, quitMainBundle, startMainBundle } from './support/electron-stand-in';
import {
  ELECTRON_DEFAULT_FUSES,
  loadBuilderConfig,
  PACKAGED_UPDATE_URL,
  type PackagedApp,
  packageApp,
} from './support/packaged-app';

const builderConfig = loadBuilderConfig<{ electronFuses: Record<string, boolean> }>();

interface PackageJson {
  main: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

let dir: string;
let app: PackagedApp;
/** Every path in the asar, from its root ('/package.json'), unpacked ones included. */
let files: string[];
let packageJson: PackageJson;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'packaged-'));
  app = await packageApp(dir);
  files = listPackage(app.asar, { isPack: false });
  packageJson = JSON.parse(extractFile(app.asar, 'package.json').toString('utf8'));
}, 180_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The packages in the asar: each folder right under a node_modules. */
function packagesIn(paths: string[]): string[] {
  const names = paths.flatMap((path) => [...path.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)/g)]);
  return [...new Set(names.map((match) => match[1] ?? ''))].sort();
}

describe('the packaged app (electron-builder --linux dir)', () => {
  it('holds the main bundle package.json names, the preload, and the renderer with its assets', () => {
    expect(packageJson.main).toBe('dist/main/index.mjs');
    expect(files).toContain(`/${packageJson.main}`);
    expect(files).toContain('/dist/preload/index.cjs');
    const html = extractFile(app.asar, 'dist/renderer/index.html').toString('utf8');
    const assets = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map(
      (match) => `/dist/renderer/${match[1]}`,
    );
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect(files).toContain(asset);
    // The tray images main loads from the app folder.
    expect(files).toContain('/build/tray/tray.png');
  });

  it('holds no sources, source maps or tests', () => {
    const own = files.filter((path) => !path.startsWith('/node_modules/'));
    expect(
      own.filter((path) => /\.(tsx?|map)$|\.test\.|^\/(main|preload|renderer|simulator|test)\//.test(path)),
    ).toEqual([]);
  });

  it('ships keytar alone from node_modules, its native module unpacked beside the asar', () => {
    // keytar is the app's one runtime dependency; every other package is bundled (or a dev dependency).
    expect(Object.keys({ ...packageJson.dependencies, ...packageJson.optionalDependencies })).toEqual([
      'keytar',
    ]);
    // Not its install-time dependencies (prebuild-install and its tree, node-addon-api's headers).
    expect(packagesIn(files)).toEqual(['keytar']);
    expect(files.filter((path) => path.startsWith('/node_modules/keytar/') && path.includes('.'))).toEqual([
      '/node_modules/keytar/LICENSE.md',
      '/node_modules/keytar/lib/keytar.js',
      '/node_modules/keytar/package.json',
      '/node_modules/keytar/build/Release/keytar.node',
    ]);
    const native = join(app.unpacked, 'node_modules', 'keytar', 'build', 'Release', 'keytar.node');
    expect(readFileSync(native).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
  });

  it("flips the fuses electron-builder.yml sets, each away from Electron's default", async () => {
    const wire = await getCurrentFuseWire(app.executable);
    const fuseOf = (name: string) =>
      FuseV1Options[(name[0]?.toUpperCase() + name.slice(1)) as keyof typeof FuseV1Options];
    const readBack = Object.fromEntries(
      Object.keys(builderConfig.electronFuses).map((name) => [name, wire[fuseOf(name)] === FuseState.ENABLE]),
    );
    expect(readBack).toEqual(builderConfig.electronFuses);
    // Each was written: the stand-in started with the opposite.
    for (const [name, on] of Object.entries(builderConfig.electronFuses)) {
      expect(ELECTRON_DEFAULT_FUSES[fuseOf(name)], name).toBe(on ? '0' : '1');
    }
    // One the file leaves alone keeps Electron's setting.
    const snapshot = FuseV1Options.LoadBrowserProcessSpecificV8Snapshot;
    expect(String.fromCharCode(wire[snapshot] ?? 0)).toBe(ELECTRON_DEFAULT_FUSES[snapshot]);
  });
});

describe('its main bundle, taken out of the asar', () => {
  /** The asar's contents on disk, with the `electron` stand-in in the folder above it. */
  let appDir: string;

  beforeAll(async () => {
    appDir = join(dir, 'extracted', 'app');
    extractAll(app.asar, appDir);
    await installStandIn(join(dir, 'extracted'));
  });

  it('finds keytar inside the app, complete: it loads from its own files alone', () => {
    const require = createRequire(join(appDir, packageJson.main));
    expect(require.resolve('keytar')).toBe(join(appDir, 'node_modules', 'keytar', 'lib', 'keytar.js'));
    const keytar = require('keytar') as Record<string, unknown>;
    expect(typeof keytar.getPassword).toBe('function');
  });

  it('carries the update feed it was built with, as electron-builder writes it (resources/app-update.yml)', async () => {
    const text = await readFile(join(app.dir, 'resources', 'app-update.yml'), 'utf8');
    expect(text).toContain('provider: generic');
    expect(text).toContain(`url: ${PACKAGED_UPDATE_URL}`);
    expect(text).toMatch(/updaterCacheDirName: \S+/);
  });

  it('starts as the packaged app: window, renderer and tray from the asar, no DevTools, no developer menu', async () => {
    // Electron sets it for a packaged app; the app reads how it was installed and its feed from there.
    const running = process as { resourcesPath?: string };
    running.resourcesPath = join(app.dir, 'resources');
    const standIn = await startMainBundle(join(appDir, packageJson.main), {
      lock: true,
      packaged: true,
      appPath: appDir,
      userData: join(dir, 'user-data'),
    });
    try {
      const [window] = standIn.windows;
      expect(window?.loaded).toEqual([APP_URL]);
      expect(window?.options.webPreferences.devTools).toBe(false);
      expect(existsSync(window?.options.webPreferences.preload ?? '')).toBe(true);
      expect(window?.options.webPreferences.preload?.startsWith(appDir)).toBe(true);

      const serve = standIn.protocolHandlers.get('app');
      const page = await serve?.(new Request(APP_URL));
      expect(page?.status).toBe(200);
      expect(page?.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      const script = /src="\.\/([^"]+\.js)"/.exec((await page?.text()) ?? '')?.[1];
      expect((await serve?.(new Request(new URL(script ?? 'missing.js', APP_URL))))?.status).toBe(200);

      const image = (standIn.trays[0]?.image as { path: string } | undefined)?.path ?? '';
      expect(image.startsWith(appDir) && existsSync(image)).toBe(true);

      const menus = standIn.calls.filter((call) => call[0] === 'Menu.setApplicationMenu');
      expect(menus).toEqual([['Menu.setApplicationMenu', applicationMenu(process.platform)]]);
      expect(JSON.stringify(menus)).not.toMatch(/toggleDevTools|reload/i);

      const state = (await standIn.ipcMain.invoke(APP_URL, 'seller-tray:getState')) as { ok: boolean };
      expect(state.ok).toBe(true);
      // An unpacked folder (not an AppImage): it does not update itself, feed or not, and says so.
      const update = (await standIn.ipcMain.invoke(APP_URL, 'seller-tray:getUpdateStatus')) as {
        value: { availability: string };
      };
      expect(update.value.availability).toBe('unsupported');
    } finally {
      delete running.resourcesPath;
      await quitMainBundle(standIn);
    }
  });
});
