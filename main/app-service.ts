// The service as the app runs it, in the Electron shell and the browser preview alike:
// settings in the user data directory, the secret in the OS keychain, the demo marketplace
// on request.
import { KeytarSecretStore } from './core/secrets';
import { SellerTrayService } from './core/service';
import { ConfSettingsStore } from './core/settings';
import { builtInDemo } from './demo';

export async function openAppService(dataRoot: string) {
  const demo = builtInDemo(dataRoot);
  const service = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dataRoot }),
    secrets: new KeytarSecretStore(),
    dataRoot,
    demo,
  });
  return { service, demo };
}
