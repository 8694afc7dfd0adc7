// Making the system open seller-tray:// links with this app, where no installer did:
// - macOS app bundle: its Info.plist declares the scheme (electron-builder `protocols`); nothing here.
// - deb/rpm: the package's desktop entry lists `x-scheme-handler/seller-tray`; nothing here.
// - Windows (NSIS installs register no schemes) and macOS development runs: Electron's
//   app.setAsDefaultProtocolClient, in development with Electron's binary and the app folder.
// - Linux AppImage, unpacked folder and development runs: a desktop entry of our own in
//   $XDG_DATA_HOME/applications, made the scheme's default with `xdg-mime` (Electron's own call
//   needs an installed desktop entry named after the app, which these do not have).
// Done at every start, so a moved AppImage or a reinstall points links at the copy that runs.
import path from 'node:path';
import { ORDER_LINK_SCHEME } from '../../preload/order-link';
import { PRODUCT_NAME } from '../core/app-identity';
import { removeLeftoverTemporaries, writeFileDurably } from '../core/durable-file';
import type { Log } from '../core/log';
import type { Installation } from './installation';
import { execLine } from './open-at-login';

export const LINK_ENTRY_FILE_NAME = 'seller-tray-links.desktop';
export const LINK_MIME_TYPE = `x-scheme-handler/${ORDER_LINK_SCHEME}`;

/** Electron's app, as far as URL schemes go. */
export interface ProtocolClientPort {
  setAsDefaultProtocolClient(protocol: string, path?: string, args?: string[]): boolean;
}

export interface LinkRegistrationOptions {
  platform: NodeJS.Platform;
  installation: Installation;
  app: ProtocolClientPort;
  /** What starts this app (open-at-login's `launchCommand`). */
  command: readonly string[];
  /** Linux: `$XDG_DATA_HOME/applications` (see `applicationsDir`). */
  applicationsDir: string;
  /** Linux: runs `xdg-mime` with these arguments; rejects when it fails. */
  xdgMime(args: string[]): Promise<void>;
  /** Told of a temporary a write cut short left there, removed. */
  log?: Log;
}

/** Who registers the links for this copy of the app. */
export type LinkRegistrar = 'installer' | 'electron' | 'desktop-entry';

/** `$XDG_DATA_HOME/applications`, else `~/.local/share/applications`. */
export function applicationsDir(env: NodeJS.ProcessEnv, home: string): string {
  const dataHome = env.XDG_DATA_HOME ? env.XDG_DATA_HOME : path.posix.join(home, '.local', 'share');
  return path.posix.join(dataHome, 'applications');
}

/** Registers this app for seller-tray:// links; rejects with the reason when the system refused. */
export async function registerLinkHandler(options: LinkRegistrationOptions): Promise<LinkRegistrar> {
  const { installation, platform, app } = options;
  if (installation.kind === 'macos' || installation.kind === 'package') return 'installer';
  if (platform === 'darwin' || platform === 'win32') {
    const [executable, ...args] = options.command;
    // Only Windows takes a program and arguments: a development run is Electron given the app folder.
    const registered =
      platform === 'win32' && installation.kind === 'development' && executable !== undefined
        ? app.setAsDefaultProtocolClient(ORDER_LINK_SCHEME, executable, args)
        : app.setAsDefaultProtocolClient(ORDER_LINK_SCHEME);
    if (!registered)
      throw new Error('the system did not accept Seller Tray as the handler of seller-tray:// links');
    return 'electron';
  }
  removeLeftoverTemporaries(options.applicationsDir, { of: LINK_ENTRY_FILE_NAME, log: options.log });
  writeFileDurably(path.join(options.applicationsDir, LINK_ENTRY_FILE_NAME), linkEntry(options.command));
  await options.xdgMime(['default', LINK_ENTRY_FILE_NAME, LINK_MIME_TYPE]);
  return 'desktop-entry';
}

/** A desktop entry that opens seller-tray:// links with `command` (hidden from menus: the app has its own). */
export function linkEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${PRODUCT_NAME}`,
    'Comment=Opens seller-tray:// order links in Seller Tray',
    `Exec=${execLine(command)} %u`,
    'Icon=seller-tray',
    'Terminal=false',
    'NoDisplay=true',
    `MimeType=${LINK_MIME_TYPE};`,
    '',
  ].join('\n');
}
