// How this copy of Seller Tray was installed, which decides who updates it (the app itself, a
// package manager, or IT for a copy installed for every user) and who registers its seller-tray://
// links (the installer or the app).
import path from 'node:path';
import { PRODUCT_NAME } from '../core/app-identity';

export type Installation =
  /** `npm start`: Electron given the app folder. */
  | { kind: 'development' }
  /**
   * The app bundle from the dmg or zip (updated from the zip); `perMachine` when this user cannot
   * write it (a pkg, or a copy IT placed in /Applications): the updater could not replace it.
   */
  | { kind: 'macos'; perMachine?: true }
  /** The NSIS installer; `perMachine` when installed for every user, under Program Files. */
  | { kind: 'nsis'; perMachine?: true }
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
  /** Whether this user may write a file or folder; absent: yes. */
  canWrite?(file: string): boolean;
}

/** The Program Files folders of a Windows computer, from its environment. */
function programFolders(env: NodeJS.ProcessEnv): string[] {
  return [env.ProgramFiles, env.ProgramW6432, env['ProgramFiles(x86)']]
    .filter((folder): folder is string => !!folder)
    .map((folder) => `${folder.replace(/[\\/]+$/, '').toLowerCase()}\\`);
}

/** Where electron-builder's deb and rpm put the app (its `installPrefix`). */
const PACKAGE_PREFIX = '/opt';

export function detectInstallation(running: RunningApp): Installation {
  if (!running.isPackaged) return { kind: 'development' };
  if (running.platform === 'darwin') {
    const bundle = /^(.*?\.app)\//.exec(running.execPath)?.[1];
    return bundle && running.canWrite?.(bundle) === false
      ? { kind: 'macos', perMachine: true }
      : { kind: 'macos' };
  }
  if (running.platform === 'win32') {
    const exe = running.execPath.toLowerCase();
    return programFolders(running.env).some((folder) => exe.startsWith(folder))
      ? { kind: 'nsis', perMachine: true }
      : { kind: 'nsis' };
  }
  if (running.env.APPIMAGE) return { kind: 'appimage', file: running.env.APPIMAGE };
  // electron-builder leaves `package-type` (deb, rpm, pacman) beside the app when it builds a
  // package with an update feed; without a feed, the package's install folder tells.
  const packageType = running.readText(path.join(running.resourcesPath, 'package-type'))?.trim();
  if (packageType) return { kind: 'package', manager: packageType };
  if (running.execPath.startsWith(`${PACKAGE_PREFIX}/${PRODUCT_NAME}/`))
    return { kind: 'package', manager: 'deb' };
  return { kind: 'unpacked' };
}
