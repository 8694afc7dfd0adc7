// "Open at login", the way each system does it: a login item on macOS and Windows (Electron's
// app.setLoginItemSettings), an XDG autostart entry on Linux (Electron has no login items
// there): ~/.config/autostart/seller-tray.desktop, written when on, removed when off.
//
// The setting in the app is the one source of truth: it is applied at every start and whenever
// it changes, so the system's entry follows it.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { PRODUCT_NAME } from '../core/app-identity';
import { writeFileDurably } from '../core/durable-file';
import { xdgConfigHome } from '../core/paths';
import type { SellerTrayService } from '../core/service';

export const AUTOSTART_FILE_NAME = 'seller-tray.desktop';

/** Electron's app, as far as login items go. */
export interface LoginItemsPort {
  setLoginItemSettings(settings: { openAtLogin: boolean; path?: string; args?: string[] }): void;
}

export interface OpenAtLoginOptions {
  platform: NodeJS.Platform;
  app: LoginItemsPort;
  /** What starts this app: see `launchCommand`. */
  command: readonly string[];
  /** Linux: the XDG autostart directory (see `autostartDir`). */
  autostartDir: string;
}

/** The XDG autostart directory: `$XDG_CONFIG_HOME/autostart`, else `~/.config/autostart`. */
export function autostartDir(env: NodeJS.ProcessEnv = process.env, home?: string): string {
  return path.posix.join(xdgConfigHome(env, home), 'autostart');
}

/**
 * The command line that starts this app again. An AppImage runs from a mount that changes at each
 * start, so its own file ($APPIMAGE) is what to run; a development run (`npm start`) is the Electron
 * binary given the app's folder.
 */
export function launchCommand(running: {
  execPath: string;
  env: NodeJS.ProcessEnv;
  isPackaged: boolean;
  appPath: string;
}): string[] {
  if (running.env.APPIMAGE) return [running.env.APPIMAGE];
  return running.isPackaged ? [running.execPath] : [running.execPath, running.appPath];
}

/** Makes the system start the app at login, or no longer. Throws when that cannot be done. */
export function applyOpenAtLogin(enabled: boolean, options: OpenAtLoginOptions): void {
  const [executable, ...args] = options.command;
  if (executable === undefined) throw new Error('There is no command to start the app with.');
  if (options.platform === 'darwin') {
    options.app.setLoginItemSettings({ openAtLogin: enabled });
  } else if (options.platform === 'win32') {
    // Electron's default is the running executable without arguments: a development run needs both.
    options.app.setLoginItemSettings({ openAtLogin: enabled, path: executable, args });
  } else {
    const file = path.join(options.autostartDir, AUTOSTART_FILE_NAME);
    if (enabled) writeFileDurably(file, autostartEntry(options.command));
    else rmSync(file, { force: true });
  }
}

/** An XDG desktop entry that starts `command` at login (Desktop Entry Specification 1.5). */
export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${PRODUCT_NAME}`,
    'Comment=New marketplace orders and their provisioning status',
    `Exec=${command.map(execArgument).join(' ')}`,
    'Icon=seller-tray',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * One argument of the Exec key: `%` doubled (field codes), quoted when it holds a reserved character,
 * with `"`, `` ` ``, `$` and `\` escaped inside the quotes; then the backslashes escaped once more,
 * as the key's value is itself an escaped string. A line break cannot be carried and is refused.
 * (GLib finds the program before it reads `%%` as `%`, so GNOME cannot start a program whose own
 * path holds a `%`; the entry is still the one the spec asks for.)
 */
function execArgument(argument: string): string {
  if (/\p{Cc}/u.test(argument)) {
    throw new Error('The app cannot be started at login from a path holding control characters.');
  }
  const literal = argument.replaceAll('%', '%%');
  const quoted = /^[\w/.,:+=@%-]+$/.test(literal) ? literal : `"${literal.replace(/["`$\\]/g, '\\$&')}"`;
  return quoted.replaceAll('\\', '\\\\');
}

/**
 * Applies the setting now and after each change of it; a failure is reported (the app goes on).
 * Returns the unsubscribe function.
 */
export function followOpenAtLogin(
  service: SellerTrayService,
  apply: (enabled: boolean) => void,
  onFailure: (message: string) => void,
): () => void {
  let applied: boolean | undefined;
  const sync = async () => {
    const settings = await service.handle('getSettings', undefined);
    if (!settings.ok || settings.value.openAtLogin === applied) return;
    applied = settings.value.openAtLogin;
    try {
      apply(applied);
    } catch (error) {
      onFailure(
        `Open at login could not be ${applied ? 'turned on' : 'turned off'}: ${(error as Error).message}`,
      );
    }
  };
  void sync();
  return service.onEvent((event) => {
    if (event.type === 'app-state') void sync();
  });
}
