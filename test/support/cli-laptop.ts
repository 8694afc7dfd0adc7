// A laptop of its own for CLI tests: its own config home (so its own settings file and data
// folder), no credentials in its environment, and the CLI run there as users run it.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTs } from './processes';

/** Its home is the caller's to delete. */
export async function cliLaptop(prefix: string) {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const env = {
    SELLER_API_BASE_URL: '',
    SELLER_CLIENT_ID: '',
    SELLER_CLIENT_SECRET: '',
    XDG_CONFIG_HOME: home,
  };
  const cli = (args: string[], input = '', extra: NodeJS.ProcessEnv = {}) =>
    runTs('main/cli/seller-tray.ts', args, { ...env, ...extra }, input);
  const dataRoot = join(home, 'Seller Tray');
  const settings = async () => JSON.parse(await readFile(join(dataRoot, 'settings.json'), 'utf8'));
  return { home, env, cli, settings, dataRoot };
}
