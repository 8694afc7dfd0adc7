// `seller-tray accounts remove LABEL [--force]` as the CLI runs it (its stores, the real keychain,
// the settings file of XDG_CONFIG_HOME), stopped at a chosen step for the test to kill it (kill -9):
// `folder-deleted` before the account's secret is deleted (its folder gone), `secret-deleted`
// before its automations' secrets are, `put-back` once a refused removal saved the list with the
// account back in it, before its note is dropped. It prints `paused <step>` and waits to be killed.
// `secret-refused` is no pause: the keychain refuses to delete the account's secret, as a locked one does.

import { writeSync } from 'node:fs';
import { cliStores } from '../../main/cli/account';
import { accountsCommand } from '../../main/cli/accounts';
import { silentLog } from '../../main/core/log';
import type { SecretOwner } from '../../main/core/secrets';
import type { Settings } from '../../main/core/settings';

const [label = '', pauseAt = '', force = ''] = process.argv.slice(2);
const stores = cliStores(process.env);

/** Stops here for good (synchronously, as a save is): the test kills the process. */
function pause(): never {
  writeSync(1, `paused ${pauseAt}\n`);
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

const deletes = ['folder-deleted', 'secret-deleted'];
const { secrets, settings } = stores;
// A removal saves the list without the account, then (refused) with it back.
const saves = ['list-saved', 'put-back'];
const paused = {
  ...stores,
  settings: {
    load: () => settings.load(),
    save: (changed: Settings) => {
      settings.save(changed);
      if (saves.shift() === pauseAt) pause();
    },
  },
  secrets: {
    get: (owner: SecretOwner) => secrets.get(owner),
    set: (owner: SecretOwner, secret: string) => secrets.set(owner, secret),
    adoptUnbound: (owner: SecretOwner) => secrets.adoptUnbound(owner),
    delete: async (owner: SecretOwner) => {
      const step = deletes.shift();
      if (step === 'folder-deleted' && pauseAt === 'secret-refused')
        throw new Error('The keychain refused to delete the secret (it is locked)');
      if (step === pauseAt) pause();
      return secrets.delete(owner);
    },
  },
};
process.stdout.write(
  await accountsCommand(['remove', label], paused, {
    json: false,
    force: force === '--force',
    log: silentLog,
    terminal: false,
  }),
);
