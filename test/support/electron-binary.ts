// Where the Electron binary is, without fetching it: `require('electron')` would try to download
// it (Electron 45 fetches lazily), which these offline machines cannot. The same lookup the
// electron package does: ELECTRON_OVERRIDE_DIST_PATH, else node_modules/electron/dist/<path.txt>.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes';

export type ElectronAvailability = { ok: true; binary: string } | { ok: false; reason: string };

export function findElectron(env: NodeJS.ProcessEnv = process.env): ElectronAvailability {
  const packageDir = join(REPO_ROOT, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const binary = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative ?? 'electron')
    : relative && join(packageDir, 'dist', relative);
  if (!binary || !existsSync(binary)) {
    return {
      ok: false,
      reason:
        'no Electron binary is installed (node_modules/electron/dist is empty: it is downloaded from outside the npm registry). ' +
        'On a machine with internet, `npx install-electron` fetches it; or set ELECTRON_OVERRIDE_DIST_PATH.',
    };
  }
  if (process.platform !== 'linux') {
    // The test keeps the app's data in a folder of its own through XDG_CONFIG_HOME, which
    // Electron honours on Linux only; elsewhere it would use (and change) the real user's data.
    return { ok: false, reason: `it runs on Linux only (this is ${process.platform}).` };
  }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, reason: 'there is no display (set DISPLAY, or run the tests under xvfb-run).' };
  }
  return { ok: true, binary };
}
