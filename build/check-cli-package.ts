// `test/with-keychain.sh npm run check:cli-package`: the server's install route (docs/cli.md#set-up)
// done for real. `npm pack` (its prepack bundles the CLI), `npm install --global` of the tarball
// into a temporary prefix (from the npm registry: keytar and what builds it), then the installed
// `seller-tray` against two simulators: an account added into the (private) keychain, and two
// accounts served from systemd credentials only. Last, the bundle copied away from its package
// must say that keytar is missing beside it, not blame the keyring. Needs the network; exits 1
// on the first thing that is not so.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { credentialName, secretOwner } from '../main/core/secrets';
import { SETTINGS_VERSION } from '../main/core/settings';
import { oneSellerMarketplace } from '../test/support/one-seller-marketplace';

const EU = { clientId: 'eu-package-client', clientSecret: 'eu-package-secret-5e1a' };
const US = { clientId: 'us-package-client', clientSecret: 'us-package-secret-c07b' };

const work = mkdtempSync(join(tmpdir(), 'seller-tray-package-'));
// npm and the installed bin run on this Node (the project's 22), as on a server that has it.
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;

function check(that: boolean, what: string, output = ''): void {
  if (!that) throw new Error(`${what}\n${output}`);
  console.log(`ok: ${what}`);
}

function npm(args: string[]): string {
  return execFileSync('npm', args, {
    env: { ...process.env, PATH },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

const eu = await oneSellerMarketplace(31, 6201, 4, EU);
const us = await oneSellerMarketplace(32, 7201, 6, US);
try {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work]))[0];
  const files = packed.files.map((f: { path: string }) => f.path).sort();
  check(
    JSON.stringify(files) === JSON.stringify(['README.md', 'dist/cli/seller-tray.mjs', 'package.json']),
    'the package holds the CLI bundle, its package.json and README only',
    files.join('\n'),
  );
  const prefix = join(work, 'prefix');
  npm([
    'install',
    '--global',
    '--allow-scripts=keytar',
    '--no-audit',
    '--no-fund',
    '--prefix',
    prefix,
    join(work, packed.filename),
  ]);
  const installed = readdirSync(join(prefix, 'lib', 'node_modules', 'seller-tray', 'node_modules'));
  check(
    installed.includes('keytar') && !installed.includes('electron'),
    'installed with keytar, without electron',
  );

  const home = join(work, 'home');
  const credentials = join(work, 'credentials');
  mkdirSync(credentials, { recursive: true });
  // Asynchronous: the simulators answer in this process.
  const run = (bin: string[], args: string[], extra: NodeJS.ProcessEnv = {}, input = '') =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(bin[0] ?? '', [...bin.slice(1), ...args], {
        env: { ...process.env, PATH, XDG_CONFIG_HOME: home, SELLER_CLIENT_SECRET: '', ...extra },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(input);
    });
  const seller = [join(prefix, 'bin', 'seller-tray')];

  const added = await run(
    seller,
    ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU.clientId],
    {},
    EU.clientSecret,
  );
  check(
    added.status === 0,
    'the installed seller-tray adds an account into the keychain',
    added.stdout + added.stderr,
  );
  const listed = await run(seller, ['accounts', 'list']);
  check(
    listed.stdout.includes('\tsecret stored\t'),
    'and reads it back from there',
    listed.stdout + listed.stderr,
  );
  check((await run(seller, ['accounts', 'remove', 'EU'])).status === 0, 'and removes it');

  writeFileSync(
    join(home, 'Seller Tray', 'settings.json'),
    JSON.stringify({
      settingsVersion: SETTINGS_VERSION,
      accounts: [
        { label: 'EU', baseUrl: eu.url, clientId: EU.clientId },
        { label: 'US', baseUrl: us.url, clientId: US.clientId },
      ],
    }),
  );
  for (const [marketplace, client] of [
    [eu, EU],
    [us, US],
  ] as const)
    writeFileSync(
      join(credentials, credentialName(secretOwner(marketplace.url, client.clientId))),
      client.clientSecret,
    );
  // No keyring at all: a D-Bus address where nothing listens.
  const server = {
    CREDENTIALS_DIRECTORY: credentials,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(work, 'no-bus')}`,
  };
  for (const [label, count] of [
    ['EU', 4],
    ['US', 6],
  ] as const) {
    const orders = await run(seller, ['orders', 'list', '--account', label, '--json'], server);
    check(
      orders.status === 0 && JSON.parse(orders.stdout).length === count,
      `with no keyring, account ${label} is served from its own credential`,
      orders.stdout + orders.stderr,
    );
  }

  const copied = join(work, 'elsewhere', 'seller-tray.mjs');
  mkdirSync(dirname(copied));
  copyFileSync(join(prefix, 'lib', 'node_modules', 'seller-tray', 'dist', 'cli', 'seller-tray.mjs'), copied);
  const alone = await run([process.execPath, copied], ['orders', 'list', '--account', 'EU']);
  check(
    alone.status !== 0 &&
      alone.stderr.includes(
        'The keytar module, by which Seller Tray reaches the keychain, is not installed beside it',
      ) &&
      !alone.stderr.includes('gnome-keyring'),
    'the bundle copied away from its package says keytar is missing beside it',
    alone.stderr,
  );
  console.log(`The CLI package installs and runs: ${packed.filename}`);
} finally {
  await eu.close();
  await us.close();
  rmSync(work, { recursive: true, force: true });
}
