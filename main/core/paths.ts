// Where the app keeps its state on this computer. The desktop app asks Electron
// (`app.getPath('userData')`); the CLI and the browser preview cannot, so this reproduces Electron's
// answer for our product name. Both then read and write the same files, and a second home directory
// behaves like a second laptop.
import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PRODUCT_NAME } from './app-identity';

/**
 * The directory Electron's `app.getPath('userData')` names for productName 'Seller Tray':
 * Linux (and other Unix-likes) `$XDG_CONFIG_HOME/Seller Tray`, else `~/.config/Seller Tray`;
 * macOS `~/Library/Application Support/Seller Tray`; Windows `%APPDATA%\Seller Tray`, else
 * `~\AppData\Roaming\Seller Tray`.
 */
export function userDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    return path.win32.join(
      nonEmpty(env.APPDATA) ?? path.win32.join(home, 'AppData', 'Roaming'),
      PRODUCT_NAME,
    );
  }
  if (platform === 'darwin') {
    // Electron ignores XDG variables on macOS.
    return path.posix.join(home, 'Library', 'Application Support', PRODUCT_NAME);
  }
  return path.posix.join(xdgConfigHome(env, home), PRODUCT_NAME);
}

/** Linux and other Unix-likes: where per-user configuration lives (`$XDG_CONFIG_HOME`, else ~/.config). */
export function xdgConfigHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return nonEmpty(env.XDG_CONFIG_HOME) ?? path.posix.join(home, '.config');
}

/** An empty variable counts as unset, as it does for Chromium's XDG lookup. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Makes `dir` (the user data directory) a folder only its user can enter: it holds the settings,
 * the stores and the demo marketplace. An existing one, as earlier versions made it (0755), is
 * narrowed too. Windows has no such modes: its profile folder is already the user's.
 */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    // One this user cannot change (a read-only disk, another user's folder) is used as it is: what
    // only reads it still works, and each write there fails with words of its own.
  }
  return dir;
}
