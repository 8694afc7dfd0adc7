// How this copy of Seller Tray was installed, which decides who updates it (the app itself or a
// package manager) and who registers its seller-tray:// links (the installer or the app).
import path from 'node:path';
import { PRODUCT_NAME } from '../core/app-identity';

export type Installation =
  /** `npm start`: Electron given the app folder. */
  | { kind: 'development' }
  /** The app bundle from the dmg or zip (updated from the zip). */
  | { kind: 'macos' }
  /** The per-user NSIS installer. */
  | { kind: 'nsis' }
  /** An AppImage: `file` is the AppImage itself (the app runs from a temporary mount of it). */
  | { kind: 'appimage'; file: string }
  /** A deb (or rpm, pacman) package: its package manager updates it. */
  | { kind: 'package'; manager: string }
  /** Any other packaged copy (an unpacked folder): nothing updates it. */
  | { kind: 'unpacked' };

export interface RunningApp {
  platform: NodeJS.Platform;
  isPackaged: boolean;
  env: NodeJS.ProcessEnv;
  execPath: string;
  /** Electron's process.resourcesPath. */
  resourcesPath: string;
  /** A file's text, or undefined when it cannot be read. */
  readText(file: string): string | undefined;
}

/** Where electron-builder's deb and rpm put the app (its `installPrefix`). */
const PACKAGE_PREFIX = '/opt';

export function detectInstallation(running: RunningApp): Installation {
  if (!running.isPackaged) return { kind: 'development' };
  if (running.platform === 'darwin') return { kind: 'macos' };
  if (running.platform === 'win32') return { kind: 'nsis' };
  if (running.env.APPIMAGE) return { kind: 'appimage', file: running.env.APPIMAGE };
  // electron-builder leaves `package-type` (deb, rpm, pacman) beside the app when it builds a
  // package with an update feed; without a feed, the package's install folder tells.
  const packageType = running.readText(path.join(running.resourcesPath, 'package-type'))?.trim();
  if (packageType) return { kind: 'package', manager: packageType };
  if (running.execPath.startsWith(`${PACKAGE_PREFIX}/${PRODUCT_NAME}/`))
    return { kind: 'package', manager: 'deb' };
  return { kind: 'unpacked' };
}
