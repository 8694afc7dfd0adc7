// The app as `npm run build` builds it (vite.config.ts's three modes), into a directory of its own,
// so tests never touch the working tree's dist/.
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';
import { REPO_ROOT } from './processes';

export type BuildMode = 'main' | 'preload' | 'renderer';

/** Builds one part into `<appDir>/dist/<mode>`, as `npm run build:<mode>` builds it into dist/. */
export async function buildPart(appDir: string, mode: BuildMode): Promise<void> {
  await build({
    configFile: join(REPO_ROOT, 'vite.config.ts'),
    ...(mode === 'renderer' ? {} : { mode }),
    logLevel: 'silent',
    build: { outDir: join(appDir, 'dist', mode), emptyOutDir: true },
  });
}

/** A whole app folder Electron can start: package.json, the three bundles, the tray images. */
export async function buildApp(appDir: string): Promise<void> {
  await Promise.all((['main', 'preload', 'renderer'] as const).map((mode) => buildPart(appDir, mode)));
  await writeFile(join(appDir, 'package.json'), await readFile(join(REPO_ROOT, 'package.json')));
  await mkdir(join(appDir, 'build'), { recursive: true });
  await cp(join(REPO_ROOT, 'build', 'tray'), join(appDir, 'build', 'tray'), { recursive: true });
  // keytar, the one module the main bundle loads from node_modules.
  await symlink(join(REPO_ROOT, 'node_modules'), join(appDir, 'node_modules'), 'dir');
}
