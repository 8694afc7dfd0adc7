// The app's lifecycle: one instance (a second launch shows the first one's window), the
// Windows notification identity, no dock icon on macOS, a poll at once on wake, and the
// window closing for real only when the app quits.
import type { SellerTrayService } from '../core/service';
import type { AppPort, PowerMonitorPort } from './electron-ports';

export interface LifecycleOptions {
  app: AppPort;
  platform: NodeJS.Platform;
  appId: string;
}

/** Before ready: takes the single-instance lock; false (and quitting) when another instance has it. */
export function claimSingleInstance(options: LifecycleOptions, onSecondInstance: () => void): boolean {
  const { app } = options;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', onSecondInstance);
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
