// The service as the app runs it, in the Electron shell and the browser preview alike:
// settings in the user data directory, the secret in the OS keychain, the demo marketplace
// on request. The shell passes Electron's parts (electron-store, net.fetch); the preview runs
// in plain Node and keeps conf and Node's fetch.
import type { Transport } from './core/api/transport';
import { ensurePrivateDir } from './core/paths';
import { KeytarSecretStore } from './core/secrets';
import { SellerTrayService } from './core/service';
import { ConfSettingsStore, type ConfSettingsStoreOptions } from './core/settings';
import { builtInDemo } from './demo';

export interface AppServiceParts {
  openSettingsFile?: ConfSettingsStoreOptions['open'];
  transport?: Transport;
}

export async function openAppService(dataRoot: string, parts: AppServiceParts = {}) {
  ensurePrivateDir(dataRoot);
  const demo = builtInDemo(dataRoot);
  const service = await SellerTrayService.open({
    settings: new ConfSettingsStore({
      cwd: dataRoot,
      ...(parts.openSettingsFile ? { open: parts.openSettingsFile } : {}),
    }),
    secrets: new KeytarSecretStore(),
    dataRoot,
    demo,
    ...(parts.transport ? { transport: parts.transport } : {}),
  });
  return { service, demo };
}
