// `seller-tray accounts remove LABEL [--force]` as the CLI runs it (its stores, the real keychain,
// the settings file of XDG_CONFIG_HOME), stopped at a chosen step for the test to kill it (kill -9):
// `folder-deleted` before the account's secret is deleted (its folder gone), `secret-deleted`
// before its automations' secrets are. It prints `paused <step>` and waits to be killed.

import { cliStores } from '../../main/cli/account';
import { accountsCommand } from '../../main/cli/accounts';
import { silentLog } from '../../main/core/log';
import type { SecretOwner } from '../../main/core/secrets';

const [label = '', pauseAt = '', force = ''] = process.argv.slice(2);
const stores = cliStores(process.env);
const deletes = ['folder-deleted', 'secret-deleted'];
const { secrets } = stores;
const paused = {
  ...stores,
  secrets: {
    get: (owner: SecretOwner) => secrets.get(owner),
    set: (owner: SecretOwner, secret: string) => secrets.set(owner, secret),
    adoptUnbound: (owner: SecretOwner) => secrets.adoptUnbound(owner),
    delete: async (owner: SecretOwner) => {
      if (deletes.shift() === pauseAt) {
        console.log(`paused ${pauseAt}`);
        setInterval(() => undefined, 60_000);
        await new Promise(() => undefined);
      }
      return secrets.delete(owner);
    },
  },
};
process.stdout.write(
  await accountsCommand(['remove', label], paused, {
    json: false,
    force: force === '--force',
    log: silentLog,
  }),
);
