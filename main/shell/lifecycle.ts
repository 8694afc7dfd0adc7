// The app's lifecycle: one instance (a second launch's arguments go to the first one), the
// Windows notification identity, no dock icon on macOS, a poll at once on wake, and the
// window closing for real only when the app quits.
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

/** After ready: no dock icon on macOS; check for orders at once when the machine wakes. */
export function afterReady(
  options: LifecycleOptions & { powerMonitor: PowerMonitorPort; service: SellerTrayService },
): void {
  if (options.platform === 'darwin') options.app.dock?.hide();
  options.powerMonitor.on('resume', () => {
    void options.service.handle('checkNow', undefined);
  });
}
