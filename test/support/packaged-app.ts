// The app packaged as `npm run dist` packages it, offline: electron-builder's Linux `dir` target (the
// unpacked app every installer holds) from a stand-in Electron distribution, a folder whose one
// file is an executable carrying Electron's fuse wire. electron-builder then downloads nothing:
// Electron comes from `electronDist`, and keytar is not rebuilt against Electron's headers
// (`npmRebuild` off; its N-API binary loads in Node and Electron alike).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SENTINEL } from '@electron/fuses/dist/constants';
import { buildApp } from './app-build';
import { REPO_ROOT } from './processes';

// js-yaml comes with electron-builder (no types installed): only `load` is used.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

export const BUILDER_CONFIG_TEXT = readFileSync(join(REPO_ROOT, 'electron-builder.yml'), 'utf8');

/** The update feed the packaged app is built with. */
export const PACKAGED_UPDATE_URL = 'https://updates.example/seller-tray';

/** electron-builder.yml as electron-builder reads it: a fresh copy on each call. */
export function loadBuilderConfig<Config>(): Config {
  return yaml.load(BUILDER_CONFIG_TEXT) as Config;
}

/**
 * Electron's own fuse settings, in wire order ('1' on): run as node, cookie encryption off,
 * NODE_OPTIONS, --inspect on; asar integrity, app.asar only, the browser V8 snapshot off; file://
 * privileges on.
 */
export const ELECTRON_DEFAULT_FUSES = '10110001';

/**
 * An Electron binary as far as @electron/fuses reads one: a script that refuses to run, then the
 * sentinel, the wire's version (1) and length as bytes, and one '0' or '1' per fuse.
 */
export function standInElectronBinary(fuses = ELECTRON_DEFAULT_FUSES): Buffer {
  return Buffer.concat([
    Buffer.from('#!/bin/sh\necho "a stand-in for Electron: it runs nothing" >&2\nexit 1\n'),
    Buffer.from(SENTINEL),
    Buffer.from([1, fuses.length]),
    Buffer.from(fuses, 'latin1'),
  ]);
}

export interface PackagedApp {
  /** electron-builder's unpacked app: the executable and resources/. */
  dir: string;
  executable: string;
  asar: string;
  /** What the asar leaves on disk beside it (native modules). */
  unpacked: string;
}

/**
 * Builds the app into `<dir>/project` as `npm run build` does (never touching the working tree's
 * dist/), with the files electron-builder reads, and packages it into `<dir>/out`.
 */
export async function packageApp(dir: string): Promise<PackagedApp> {
  const project = join(dir, 'project');
  await buildApp(project);
  await cp(join(REPO_ROOT, 'build'), join(project, 'build'), { recursive: true });
  for (const file of ['electron-builder.yml', 'package-lock.json']) {
    await copyFile(join(REPO_ROOT, file), join(project, file));
  }
  const electronDist = join(dir, 'electron-dist');
  await mkdir(electronDist);
  await writeFile(join(electronDist, 'electron'), standInElectronBinary(), { mode: 0o755 });
  const electron = JSON.parse(
    await readFile(join(REPO_ROOT, 'node_modules', 'electron', 'package.json'), 'utf8'),
  );
  const out = join(dir, 'out');
  await promisify(execFile)(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules', 'electron-builder', 'cli.js'),
      '--linux',
      'dir',
      '--publish',
      'never',
      '--projectDir',
      project,
      `-c.electronDist=${electronDist}`,
      `-c.electronVersion=${electron.version}`,
      `-c.directories.output=${out}`,
      '-c.npmRebuild=false',
    ],
    // With an update feed, as `npm run dist` builds when SELLER_TRAY_UPDATE_URL is set: electron-builder
    // then writes resources/app-update.yml.
    {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, SELLER_TRAY_UPDATE_URL: PACKAGED_UPDATE_URL },
    },
  );
  // linux-unpacked, or linux-<arch>-unpacked off x64.
  const unpackedDir = (await readdir(out)).find((name) => /^linux-.*unpacked$/.test(name));
  if (!unpackedDir) throw new Error(`electron-builder left no linux-*unpacked folder in ${out}`);
  const appDir = join(out, unpackedDir);
  const { name } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8'));
  return {
    dir: appDir,
    executable: join(appDir, name),
    asar: join(appDir, 'resources', 'app.asar'),
    unpacked: join(appDir, 'resources', 'app.asar.unpacked'),
  };
}
