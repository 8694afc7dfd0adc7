// The app as `npm run build` builds it (vite.config.ts's three modes), into a directory of its own,
// so tests never touch the working tree's dist/.
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';
import { REPO_ROOT } from './processes';

export type BuildMode = 'main' | 'preload' | 'renderer';

/**
 * Builds one part into `<appDir>/dist/<mode>`, as `npm run build:<mode>` builds it into dist/.
 * Returns the modules the built entry still imports (static and dynamic), as the bundler saw them.
 */
export async function buildPart(appDir: string, mode: BuildMode): Promise<string[]> {
  const result = await build({
    configFile: join(REPO_ROOT, 'vite.config.ts'),
    ...(mode === 'renderer' ? {} : { mode }),
    logLevel: 'silent',
    build: { outDir: join(appDir, 'dist', mode), emptyOutDir: true },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  return outputs.flatMap((o) => (o.type === 'chunk' && o.isEntry ? [...o.imports, ...o.dynamicImports] : []));
}

/** A whole app folder Electron can start: package.json, the three bundles, the tray images. */
export async function buildApp(appDir: string): Promise<void> {
  await Promise.all((['main', 'preload', 'renderer'] as const).map((mode) => buildPart(appDir, mode)));
  await writeFile(join(appDir, 'package.json'), await readFile(join(REPO_ROOT, 'package.json')));
  await mkdir(join(appDir, 'build'), { recursive: true });
  await cp(join(REPO_ROOT, 'build', 'tray'), join(appDir, 'build', 'tray'), { recursive: true });
  // keytar, the one module the main bundle loads from node_modules. It is built for Node, so under
  // Electron it loads only after `npx electron-builder install-app-deps`; the demo needs no keychain.
  await symlink(join(REPO_ROOT, 'node_modules'), join(appDir, 'node_modules'), 'dir');
}
