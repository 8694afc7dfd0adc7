// "Open at login", the way each system does it: a login item on macOS and Windows (Electron's
// app.setLoginItemSettings), an XDG autostart entry on Linux (Electron has no login items
// there): ~/.config/autostart/seller-tray.desktop, written when on, removed when off.
//
// The setting in the app is the one source of truth: it is applied at every start and whenever
// it changes, so the system's entry follows it. A failure is told once; turning the setting off
// and on again, or the next start, tries again.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { PRODUCT_NAME } from '../core/app-identity';
import { removeLeftoverTemporaries, writeFileDurably } from '../core/durable-file';
import type { Log } from '../core/log';
import { xdgConfigHome } from '../core/paths';
import type { SellerTrayService } from '../core/service';

export const AUTOSTART_FILE_NAME = 'seller-tray.desktop';

/** Electron's app, as far as login items go. */
export interface LoginItemsPort {
  setLoginItemSettings(settings: { openAtLogin: boolean; path?: string; args?: string[] }): void;
  /** `status` is macOS 13+'s: whether the user must still allow the item. */
  getLoginItemSettings(): { status?: string };
}

/** macOS 13+ may register the item but hold it until the user allows it; they must be told where. */
export const APPROVAL_NEEDED =
  'To open Seller Tray at login, allow it in System Settings → General → Login Items.';

export interface OpenAtLoginOptions {
  platform: NodeJS.Platform;
  app: LoginItemsPort;
  /** What starts this app: see `launchCommand`. */
  command: readonly string[];
  /** Linux: the XDG autostart directory (see `autostartDir`). */
  autostartDir: string;
  /** Told of a temporary a write cut short left there, removed. */
  log?: Log;
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

/**
 * Makes the system start the app at login, or no longer. Throws when that cannot be done; returns
 * what the user must still do, if anything.
 */
export function applyOpenAtLogin(enabled: boolean, options: OpenAtLoginOptions): string | undefined {
  const [executable, ...args] = options.command;
  if (executable === undefined) throw new Error('There is no command to start the app with.');
  if (options.platform === 'darwin') {
    // The app bundle itself (a development run registers Electron.app without the app folder:
    // login items on macOS take no arguments).
    options.app.setLoginItemSettings({ openAtLogin: enabled });
    if (enabled && options.app.getLoginItemSettings().status === 'requires-approval') return APPROVAL_NEEDED;
  } else if (options.platform === 'win32') {
    // Electron's default is the running executable without arguments: a development run needs both.
    // The arguments go into the Run key's command line as they are, so they are quoted here.
    options.app.setLoginItemSettings({
      openAtLogin: enabled,
      path: executable,
      args: args.map(windowsArgument),
    });
  } else {
    const file = path.join(options.autostartDir, AUTOSTART_FILE_NAME);
    removeLeftoverTemporaries(options.autostartDir, { of: AUTOSTART_FILE_NAME, log: options.log });
    if (enabled) writeFileDurably(file, autostartEntry(options.command));
    else rmSync(file, { force: true });
  }
  return undefined;
}

/** One argument of a Windows command line, as CommandLineToArgvW reads it back. */
function windowsArgument(argument: string): string {
  if (argument !== '' && !/[\s"]/.test(argument)) return argument;
  // Backslashes are literal unless they precede a quote (escaped or the closing one): then doubled.
  return `"${argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/** An XDG desktop entry that starts `command` at login (Desktop Entry Specification 1.5). */
export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${PRODUCT_NAME}`,
    'Comment=New marketplace orders and their provisioning status',
    `Exec=${execLine(command)}`,
    'Icon=seller-tray',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** The Exec key's value that runs `command` (each argument as `execArgument` writes it). */
export function execLine(command: readonly string[]): string {
  return command.map(execArgument).join(' ');
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
 * Applies the setting now and after each change of it; a failure, or a step left to the user, is
 * told (the app goes on).
 * Returns the unsubscribe function.
 */
export function followOpenAtLogin(
  service: SellerTrayService,
  apply: (enabled: boolean) => string | undefined,
  tell: (message: string) => void,
): () => void {
  let applied: boolean | undefined;
  const sync = () => {
    const { openAtLogin } = service.currentSettings();
    if (openAtLogin === applied) return;
    applied = openAtLogin;
    try {
      const stillToDo = apply(applied);
      if (stillToDo) tell(stillToDo);
    } catch (error) {
      tell(`Open at login could not be ${applied ? 'turned on' : 'turned off'}: ${(error as Error).message}`);
    }
  };
  sync();
  // Settings changes come as app-state events; most of those (each poll) leave this setting be.
  return service.onEvent((event) => {
    if (event.type === 'app-state') sync();
  });
}
