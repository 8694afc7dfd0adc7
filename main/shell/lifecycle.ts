// The app's lifecycle: one instance (a second launch's arguments go to the first one), the
// Windows notification identity, no dock icon on macOS, a poll (and the policies read) at once on
// wake, the policies read on unlock, the window
// closing for real only when the app quits, and a quit (or SIGINT/SIGTERM) that waits for the
// store to close.
import { CLOSE_WITHIN_MS } from '../core/seller-core';
import type { SellerTrayService } from '../core/service';
import type { AppPort, PowerMonitorPort } from './electron-ports';

export interface LifecycleOptions {
  app: AppPort;
  platform: NodeJS.Platform;
  appId: string;
  /** Electron's `process.defaultApp`: run as `electron <folder>`, so argv carries the folder too. */
  defaultApp: boolean;
}

/**
 * What a launch asks for: its arguments after the executable (and, in development, after the
 * app's folder). A link the desktop opens the app with (seller-tray://…) arrives here.
 */
export function launchArguments(argv: readonly string[], defaultApp: boolean): string[] {
  return argv.slice(defaultApp ? 2 : 1);
}

/**
 * Before ready: takes the single-instance lock; false (and quitting) when another instance has it.
 * A second launch's arguments, and on macOS each link the system opens, are handed to this, the
 * first instance.
 */
export function claimSingleInstance(options: LifecycleOptions, onLaunch: (args: string[]) => void): boolean {
  const { app } = options;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', (_event, argv) => onLaunch(launchArguments(argv, options.defaultApp)));
  // macOS hands links over as an event, not as arguments (at the first launch too, before ready).
  app.on('open-url', (event, url) => {
    event.preventDefault();
    onLaunch([url]);
  });
  // The app lives in the tray: closing its window does not end it.
  app.on('window-all-closed', () => {});
  if (options.platform === 'win32') app.setAppUserModelId(options.appId);
  return true;
}

/** Whether the app is quitting (set on before-quit), for the window's close handler. */
export function trackQuitting(app: AppPort): () => boolean {
  let quitting = false;
  app.on('before-quit', () => {
    quitting = true;
  });
  return () => quitting;
}

/** Where SIGINT and SIGTERM arrive: the process. */
export interface SignalsPort {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/** The longest a quit waits for `close`: the core's own bound, and a margin for the rest. */
export const QUIT_WITHIN_MS = CLOSE_WITHIN_MS + 1_000;

/**
 * Quitting waits for `close` (the core's work under way to end, the store to close cleanly), at
 * most `withinMs`: the first will-quit is held, and the app quits for real once `close` is done.
 * SIGINT and SIGTERM (a terminal's Ctrl+C, a session ending) quit the same way.
 */
export function closeBeforeQuit(
  app: AppPort,
  close: () => Promise<void>,
  options: { signals?: SignalsPort; withinMs?: number } = {},
): void {
  let closing: 'no' | 'under way' | 'done' = 'no';
  app.on('will-quit', (event) => {
    if (closing === 'done') return;
    event.preventDefault();
    if (closing === 'under way') return;
    closing = 'under way';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.withinMs ?? QUIT_WITHIN_MS);
    });
    void Promise.race([close().catch(() => undefined), late]).then(() => {
      clearTimeout(timer);
      closing = 'done';
      app.quit();
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    (options.signals ?? process).once(signal, () => app.quit());
}

/**
 * After ready: no dock icon on macOS; check for orders at once when the machine wakes. The
 * organization's policies are read again then and when the screen is unlocked: Windows' registry
 * cannot be watched (only read every 15 minutes), and a policy IT pushed while the laptop slept or
 * stood locked is in force when its user is back (docs/administrators.md).
 */
export function afterReady(
  options: LifecycleOptions & {
    powerMonitor: PowerMonitorPort;
    service: SellerTrayService;
    policies: { refresh(): Promise<void> };
  },
): void {
  if (options.platform === 'darwin') options.app.dock?.hide();
  options.powerMonitor.on('resume', () => {
    void options.policies.refresh();
    void options.service.handle('checkNow', undefined);
  });
  options.powerMonitor.on('unlock-screen', () => void options.policies.refresh());
}
