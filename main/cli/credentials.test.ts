// The CLI on a server whose keychain is not unlocked (docs/automations.md): each saved account's
// secret, and each automation's, given by systemd as a credential, a file in $CREDENTIALS_DIRECTORY.
// Real files in a temporary directory, the real CLI against two simulators on two origins (requests
// counted at each, so a secret sent to the other marketplace would show), and the real keychain
// (test/with-keychain.sh), which holds none of these secrets unless a test writes one.
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { startWebhookReceiver } from '../../test/support/capture-server';
import { cliLaptop } from '../../test/support/cli-laptop';
import { oneSellerMarketplace } from '../../test/support/one-seller-marketplace';
import { admin } from '../../test/support/raw-api';
import { accountRef } from '../core/account/account-ref';
import { automationSecretEntry } from '../core/automation/ports';
import { credentialName, KeytarSecretStore, secretOwner } from '../core/secrets';
import { SETTINGS_VERSION } from '../core/settings';

const EU_CLIENT = { clientId: 'eu-credential-client', clientSecret: 'eu-credential-secret-71c2' };
const US_CLIENT = { clientId: 'us-credential-client', clientSecret: 'us-credential-secret-0d9e' };

let eu: Simulator;
let us: Simulator;
const dirs: string[] = [];
beforeAll(async () => {
  eu = await oneSellerMarketplace(21, 6101, 4, EU_CLIENT);
  us = await oneSellerMarketplace(22, 7101, 6, US_CLIENT);
});
afterAll(async () => {
  await eu.close();
  await us.close();
  const keychain = new KeytarSecretStore();
  for (const [marketplace, client] of [
    [eu, EU_CLIENT],
    [us, US_CLIENT],
  ] as const)
    await keychain.delete(secretOwner(marketplace.url, client.clientId));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const refOf = (marketplace: Simulator, client: { clientId: string }) =>
  accountRef({ baseUrl: marketplace.url, clientId: client.clientId });
/** The credential a unit loads for the account's client secret. */
const credentialOf = (marketplace: Simulator, client: { clientId: string }) =>
  credentialName(secretOwner(marketplace.url, client.clientId));

let server: Awaited<ReturnType<typeof cliLaptop>>;
let credentials: string;
/** As systemd runs the command: $CREDENTIALS_DIRECTORY set. */
const asService = (args: string[], input = '', extra: NodeJS.ProcessEnv = {}) =>
  server.cli(args, input, { CREDENTIALS_DIRECTORY: credentials, ...extra });

/** A server whose settings list EU and US (as copied from a laptop), and whose unit loads both secrets. */
beforeEach(async () => {
  server = await cliLaptop('cli-credentials-');
  credentials = await mkdtemp(join(tmpdir(), 'credentials-'));
  dirs.push(server.home, credentials);
  await mkdir(server.dataRoot, { recursive: true });
  await writeFile(
    join(server.dataRoot, 'settings.json'),
    JSON.stringify({
      settingsVersion: SETTINGS_VERSION,
      accounts: [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
      ],
      automations: [{ name: 'CRM hook', action: { type: 'webhook', url: 'https://crm.example/hook' } }],
    }),
  );
  await writeFile(join(credentials, credentialOf(eu, EU_CLIENT)), `${EU_CLIENT.clientSecret}\n`);
  await writeFile(join(credentials, credentialOf(us, US_CLIENT)), US_CLIENT.clientSecret);
});

const requests = (marketplace: Simulator) => marketplace.requestCounts.listOrders;

describe('systemd credentials as the secrets of saved accounts', () => {
  it('serves two accounts each with its own credential, sent to its own marketplace only', async () => {
    // Not from the keychain: without the credentials, neither has a secret.
    const bare = await server.cli(['orders', 'list', '--account', 'EU']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(`No client secret is stored for client ${EU_CLIENT.clientId}`);

    const before = { eu: requests(eu), us: requests(us) };
    const euOrders = await asService(['orders', 'list', '--account', 'EU', '--json']);
    // Nothing wrong told: only whose orders these are, while two accounts are saved.
    expect(euOrders.stderr).toBe(
      'seller-tray: from account EU; 2 accounts are saved (--account LABEL reads another).\n',
    );
    expect(JSON.parse(euOrders.stdout)).toHaveLength(4);
    const usOrders = await asService(['orders', 'list', '--account', 'US', '--json']);
    expect(JSON.parse(usOrders.stdout)).toHaveLength(6);
    expect({ eu: requests(eu), us: requests(us) }).toEqual({ eu: before.eu + 1, us: before.us + 1 });
    // Every account, as `seller-tray run` serves them.
    const watched = await asService(['watch', '--once']);
    expect(watched.code).toBe(0);
    for (const output of [bare, euOrders, usOrders, watched])
      for (const secret of [EU_CLIENT.clientSecret, US_CLIENT.clientSecret])
        expect(output.stdout + output.stderr).not.toContain(secret);
  });

  it('accounts list names the credential to load for each, and where each secret comes from', async () => {
    const json = JSON.parse((await server.cli(['accounts', 'list', '--json'])).stdout);
    expect(json).toMatchObject([
      { label: 'EU', secretStored: false, credential: credentialOf(eu, EU_CLIENT) },
      { label: 'US', secretStored: false, credential: credentialOf(us, US_CLIENT) },
    ]);
    await rm(join(credentials, credentialOf(us, US_CLIENT)));
    const listed = await asService(['accounts', 'list']);
    expect(listed.stdout).toBe(
      `EU\t${refOf(eu, EU_CLIENT).id}\t${eu.url}\t${EU_CLIENT.clientId}\tsecret from credential ${credentialOf(eu, EU_CLIENT)}\tthe window's\n` +
        `US\t${refOf(us, US_CLIENT).id}\t${us.url}\t${US_CLIENT.clientId}\tno secret stored (credential ${credentialOf(us, US_CLIENT)} not loaded)\t\n`,
    );
  });

  it('an empty or unreadable credential stops the command, naming the credential and its file, never its content', async () => {
    const file = join(credentials, credentialOf(us, US_CLIENT));
    await writeFile(file, '\n');
    const empty = await asService(['orders', 'list', '--account', 'US']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe(
      `seller-tray: The credential ${credentialOf(us, US_CLIENT)} (${file}) is empty: put the secret in the file LoadCredential= names, or drop that line to use the keychain.\n`,
    );
    // EU is served all the same.
    expect((await asService(['orders', 'list', '--account', 'EU'])).code).toBe(0);
    await rm(file);
    await mkdir(file);
    const unreadable = await asService(['orders', 'list', '--account', 'US']);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toBe(
      `seller-tray: The credential ${credentialOf(us, US_CLIENT)} (${file}) is not a file: LoadCredential= must name a file holding the secret alone.\n`,
    );
  });

  it('a refused credential is to be replaced in its file and the service restarted, not stored in the keychain it is read before', async () => {
    const file = join(credentials, credentialOf(us, US_CLIENT));
    await writeFile(file, 'rotated-away\n');
    const refused = await asService(['orders', 'list', '--account', 'US']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the client id or secret was rejected: check them in the Seller Console, then put the current client secret in the file that LoadCredential=${credentialOf(us, US_CLIENT)}: names and restart the service (systemd copies it at its start)\n`,
    );
    expect(refused.stderr).not.toContain('accounts add');
  });

  it('accounts add and automations secret write the keychain, and say a loaded credential shadows it', async () => {
    const added = await asService(['accounts', 'add', 'US'], US_CLIENT.clientSecret);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(
      `Reconnected account US: client ${US_CLIENT.clientId} of seller 7101 at ${us.url}; the secret is in the system keychain. The credential ${credentialOf(us, US_CLIENT)} loaded here is read before it, as long as the service loads it.\n`,
    );
    expect(await new KeytarSecretStore().get(secretOwner(us.url, US_CLIENT.clientId))).toBe(
      US_CLIENT.clientSecret,
    );

    const hook = credentialName(automationSecretEntry(refOf(eu, EU_CLIENT), 'CRM hook'));
    await writeFile(join(credentials, hook), 'whsec_from_credential');
    const stored = await asService(['automations', 'secret', 'CRM hook', '--account', 'EU'], 'whsec_typed');
    expect(stored.code).toBe(0);
    expect(stored.stdout).toContain(
      `The credential ${hook} loaded here is read before it, as long as the service loads it.`,
    );
    await new KeytarSecretStore().delete(automationSecretEntry(refOf(eu, EU_CLIENT), 'CRM hook'));
  });

  it("automations list names each account's credential for an automation's secret", async () => {
    const hook = (marketplace: Simulator, client: { clientId: string }) =>
      credentialName(automationSecretEntry(refOf(marketplace, client), 'CRM hook'));
    await writeFile(join(credentials, hook(eu, EU_CLIENT)), 'whsec_eu');
    const eus = await asService(['automations', 'list', '--account', 'EU']);
    expect(eus.stdout).toMatch(/CRM hook\ton\twebhook .*\tcredential\n/);
    expect(eus.stdout).toContain(`CRM hook's secret for EU: credential ${hook(eu, EU_CLIENT)} (loaded)\n`);
    const uss = await asService(['automations', 'list', '--account', 'US']);
    expect(uss.stdout).toMatch(/CRM hook\ton\twebhook .*\tmissing\n/);
    expect(uss.stdout).toContain(
      `CRM hook's secret for US: credential ${hook(us, US_CLIENT)} (not loaded)\n`,
    );
    expect(eus.stdout + uss.stdout).not.toContain('whsec_eu');
  });

  it("signs each account's webhook with that account's own signing secret from its credential", async () => {
    const receiver = await startWebhookReceiver();
    const { received, url } = receiver;
    try {
      const settings = JSON.parse(await readFile(join(server.dataRoot, 'settings.json'), 'utf8'));
      settings.automations = [{ name: 'CRM hook', action: { type: 'webhook', url } }];
      await writeFile(join(server.dataRoot, 'settings.json'), JSON.stringify(settings));
      for (const [marketplace, client, label, secret] of [
        [eu, EU_CLIENT, 'EU', 'whsec_eu_credential'],
        [us, US_CLIENT, 'US', 'whsec_us_credential'],
      ] as const) {
        const entry = automationSecretEntry(refOf(marketplace, client), 'CRM hook');
        await writeFile(join(credentials, credentialName(entry)), `${secret}\n`);
        const orderId = (await admin(marketplace.url, 'POST', 'purchases')).json.orderId as string;
        const test = await asService([
          'automations',
          'test',
          'CRM hook',
          '--account',
          label,
          '--order',
          orderId,
        ]);
        expect(test.stdout).toMatch(/^CRM hook: succeeded/);
        const signed = received.at(-1);
        expect(JSON.parse(signed?.body ?? '{}').orderId).toBe(orderId);
        const t = /t=(\d+)/.exec(signed?.signature ?? '')?.[1];
        const expected = createHmac('sha256', secret).update(`${t}.${signed?.body}`).digest('hex');
        expect(signed?.signature).toBe(`t=${t},v1=${expected}`);
        expect(test.stdout + test.stderr).not.toContain(secret);
      }
    } finally {
      await receiver.close();
    }
  });

  it("a run whose secret's credential is unusable says so of the credential, not of the keychain", async () => {
    const entry = automationSecretEntry(refOf(eu, EU_CLIENT), 'CRM hook');
    await writeFile(join(credentials, credentialName(entry)), '\n');
    const orderId = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const test = await asService(['automations', 'test', 'CRM hook', '--account', 'EU', '--order', orderId]);
    expect(test.code).toBe(1);
    expect(test.stdout).toContain(
      `its signing secret could not be read: The credential ${credentialName(entry)}`,
    );
    expect(test.stdout).toContain(
      'is empty: put the secret in the file LoadCredential= names, or drop that line to use the keychain; tried again at',
    );
    expect(test.stdout).not.toContain('from the keychain');
  });

  it('a run whose secret is neither loaded nor stored names the credential to load, as a service is given its secrets', async () => {
    const entry = automationSecretEntry(refOf(eu, EU_CLIENT), 'CRM hook');
    const orderId = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const test = await asService(['automations', 'test', 'CRM hook', '--account', 'EU', '--order', orderId]);
    expect(test.code).toBe(1);
    expect(test.stdout).toContain(
      `its signing secret is not set on this computer: load it with LoadCredential=${credentialName(entry)}:FILE`,
    );
  });

  it('with no keyring to reach, doctor, orders list and accounts list name the credential to load', async () => {
    await rm(join(credentials, credentialOf(us, US_CLIENT)));
    const noKeyring = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(credentials, 'no-bus')}`, DISPLAY: '' };
    const toLoad = `give it to the service as the systemd credential ${credentialOf(us, US_CLIENT)}`;
    const doctor = await server.cli(['doctor', '--account', 'US'], '', noKeyring);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(toLoad);
    const orders = await server.cli(['orders', 'list', '--account', 'US'], '', noKeyring);
    expect(orders.stderr).toContain(toLoad);
    const asServed = await asService(['orders', 'list', '--account', 'US'], '', noKeyring);
    expect(asServed.stderr).toContain(
      `No credential ${credentialOf(us, US_CLIENT)} is in ${credentials} ($CREDENTIALS_DIRECTORY) either: load it with LoadCredential=${credentialOf(us, US_CLIENT)}:FILE`,
    );
    expect((await server.cli(['accounts', 'list'], '', noKeyring)).stdout).toContain(
      `\tkeychain unavailable (credential ${credentialOf(us, US_CLIENT)} not loaded)\t`,
    );
  });

  it('login writes the keychain too, and says a loaded credential is read before it', async () => {
    const fresh = await cliLaptop('cli-credentials-login-');
    dirs.push(fresh.home);
    const login = await fresh.cli(
      ['login', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
      EU_CLIENT.clientSecret,
      { CREDENTIALS_DIRECTORY: credentials },
    );
    expect(login.stdout).toBe(
      `Logged in as client ${EU_CLIENT.clientId} of seller 6101; the secret is in the system keychain. The credential ${credentialOf(eu, EU_CLIENT)} loaded here is read before it, as long as the service loads it.\n`,
    );
    await new KeytarSecretStore().delete(secretOwner(eu.url, EU_CLIENT.clientId));
  });
});
