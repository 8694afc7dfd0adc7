// The service as the app runs it, in the Electron shell and the browser preview alike:
// settings in the user data directory, the secret in the OS keychain, the demo marketplace
// on request, the log file in its logs/ folder. The shell passes Electron's parts
// (electron-store, net.fetch, a file manager); the preview runs in plain Node and keeps conf and
// Node's fetch, and has no file manager to reach: "Open log folder" shows the folder's path there.
// Both read the organization's policies where the platform keeps them, and watch them, and watch the
// settings file for the accounts the CLI adds, renames or removes.
import type { Transport } from './core/api/transport';
import type { ConfirmCommandPort } from './core/automation/automation-editing';
import type { Post } from './core/automation/delivery';
import { watchFile } from './core/file-watch';
import { ensurePrivateDir } from './core/paths';
import { type PolicySource, policySourceFor } from './core/policy/sources';
import { PolicyWatcher } from './core/policy/watcher';
import { KeytarSecretStore } from './core/secrets';
import { type LogFolderPort, type SaveFilePort, SellerTrayService } from './core/service';
import { ConfSettingsStore, type ConfSettingsStoreOptions } from './core/settings';
import { builtInDemo } from './demo';
import { fileLog, logsDir } from './file-log';

export interface AppServiceParts {
  openSettingsFile?: ConfSettingsStoreOptions['open'];
  transport?: Transport;
  /** Automations' deliveries, where the platform sends them its own way (plain Node's nodeNetwork). */
  post?: Post;
  /** Shows a folder in the platform's file manager. */
  openFolder?: LogFolderPort['open'];
  /** Turns the tray popover into the full-size window (the Electron shell). */
  openInWindow?: () => void;
  /** Saves a file where the user says: the shell's save dialog (shell/save-file.ts). */
  saveFile?: SaveFilePort;
  /** Asks to allow a command automation in the shell's own dialog (shell/confirm-command.ts). */
  confirmCommand?: ConfirmCommandPort;
  /** The locale notifications write amounts in; the runtime's default when absent. */
  locale?: string | undefined;
  /** Where the organization's policies are read; the platform's place by default (sources.ts `policySourceFor`). */
  policySource?: PolicySource;
}

export async function openAppService(dataRoot: string, parts: AppServiceParts = {}) {
  ensurePrivateDir(dataRoot);
  const demo = builtInDemo(dataRoot);
  const logFolder = logsDir(dataRoot);
  const log = fileLog(logFolder);
  const policies = await PolicyWatcher.start(parts.policySource ?? policySourceFor(), { log });
  const settings = new ConfSettingsStore({
    cwd: dataRoot,
    log,
    ...(parts.openSettingsFile ? { open: parts.openSettingsFile } : {}),
  });
  const service = await SellerTrayService.open({
    settings,
    settingsChanges: (changed) => watchFile(settings.path, changed),
    secrets: new KeytarSecretStore(),
    dataRoot,
    demo,
    log,
    logFolder: {
      path: logFolder,
      problem: log.problem,
      ...(parts.openFolder ? { open: parts.openFolder } : {}),
    },
    ...(parts.transport ? { transport: parts.transport } : {}),
    ...(parts.post ? { post: parts.post } : {}),
    ...(parts.openInWindow ? { openInWindow: parts.openInWindow } : {}),
    ...(parts.saveFile ? { saveFile: parts.saveFile } : {}),
    ...(parts.confirmCommand ? { confirmCommand: parts.confirmCommand } : {}),
    locale: parts.locale,
    policies,
  });
  // The log goes back too: the shell logs what it cannot do (link registration, updates) there.
  return { service, demo, log, policies };
}
