// `seller-tray accounts` and `--account LABEL` (issue 23) against two simulators on two
// origins, through the real CLI, keychain and settings file: requests are counted at each
// simulator, so a command for one account that reached the other would show.

import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/server';
import { cliLaptop } from '../../test/support/cli-laptop';
import { markHeld } from '../../test/support/held-mark';
import { oneSellerMarketplace } from '../../test/support/one-seller-marketplace';
import { exitOf, spawnTs } from '../../test/support/processes';
import { admin } from '../../test/support/raw-api';
import { atTerminal } from '../../test/support/terminal';
import { accountFolder, accountRef } from '../core/account/account-ref';
import { takeRemovalLock, writeRemovalNote } from '../core/account/removal-notes';
import { AccountSession } from '../core/account/session';
import { KeytarSecretStore, secretOwner } from '../core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS, SETTINGS_VERSION } from '../core/settings';

const EU_CLIENT = { clientId: 'eu-cli-client', clientSecret: 'eu-cli-secret-5b1e' };
const US_CLIENT = { clientId: 'us-cli-client', clientSecret: 'us-cli-secret-93fa' };
/** The accounts' ids, as `accounts list` shows them and advice names them (`--id`). */
const idOf = (marketplace: Simulator, client: { clientId: string }) =>
  accountRef({ baseUrl: marketplace.url, clientId: client.clientId }).id;

let eu: Simulator;
let us: Simulator;
const homes: string[] = [];

beforeAll(async () => {
  eu = await oneSellerMarketplace(11, 6001, 4, EU_CLIENT);
  us = await oneSellerMarketplace(12, 7001, 6, US_CLIENT);
});
afterEach(async () => {
  for (const marketplace of [eu, us]) await admin(marketplace.url, 'POST', 'reset');
});
afterAll(async () => {
  await eu.close();
  await us.close();
  for (const [marketplace, client] of [
    [eu, EU_CLIENT],
    [us, US_CLIENT],
  ] as const)
    await new KeytarSecretStore().delete(secretOwner(marketplace.url, client.clientId));
  for (const dir of homes) await rm(dir, { recursive: true, force: true });
});

/** A laptop of its own: its own config home, no credentials in its environment. */
async function laptop() {
  const l = await cliLaptop('cli-accounts-');
  homes.push(l.home);
  return l;
}

/** A laptop whose settings file holds `settings` (as written by hand, an older or newer version). */
async function laptopWith(prefix: string, settings: object) {
  const l = await cliLaptop(prefix);
  homes.push(l.home);
  await mkdir(l.dataRoot, { recursive: true });
  const file = join(l.dataRoot, 'settings.json');
  await writeFile(file, JSON.stringify({ settingsVersion: SETTINGS_VERSION, ...settings }));
  return { ...l, file };
}

/** Resolves once `done` holds, checked every 50 ms; fails after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a child prints on stderr, and a wait for a text in it. */
function stderrOf(child: ChildProcess) {
  let text = '';
  child.stderr?.on('data', (chunk) => {
    text += chunk;
  });
  return {
    text: () => text,
    includes: (wanted: string, timeoutMs = 20_000) =>
      until(() => text.includes(wanted), timeoutMs).catch(() => {
        throw new Error(`stderr has no "${wanted}" within ${timeoutMs} ms:\n${text}`);
      }),
  };
}

/** Both accounts added, EU first. */
async function withBoth() {
  const l = await laptop();
  const addEu = await l.cli(
    ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
    EU_CLIENT.clientSecret,
  );
  expect(addEu).toMatchObject({ code: 0, stderr: '' });
  expect(addEu.stdout).toBe(
    `Added account EU: client ${EU_CLIENT.clientId} of seller 6001 at ${eu.url}; the secret is in the system keychain.\n`,
  );
  const addUs = await l.cli(
    ['accounts', 'add', 'US', '--base-url', us.url, '--client-id', US_CLIENT.clientId],
    US_CLIENT.clientSecret,
  );
  expect(addUs.code).toBe(0);
  return l;
}

describe('seller-tray accounts', () => {
  it('adds accounts to the list the app reads, lists them, and keeps each secret in the keychain only', async () => {
    const l = await withBoth();
    const saved = await l.settings();
    expect(saved).toMatchObject({
      settingsVersion: 2,
      baseUrl: eu.url,
      clientId: EU_CLIENT.clientId,
      accounts: [
        { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
        { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
      ],
    });
    expect(JSON.stringify(saved)).not.toMatch(/secret-/);
    const listed = await l.cli(['accounts', 'list']);
    expect(listed.stdout).toBe(
      `EU\t${idOf(eu, EU_CLIENT)}\t${eu.url}\t${EU_CLIENT.clientId}\tsecret stored\tthe window's\nUS\t${idOf(us, US_CLIENT)}\t${us.url}\t${US_CLIENT.clientId}\tsecret stored\t\n`,
    );
    const json = JSON.parse((await l.cli(['accounts', 'list', '--json'])).stdout);
    expect(json.map((a: { label: string; secretStored: boolean }) => [a.label, a.secretStored])).toEqual([
      ['EU', true],
      ['US', true],
    ]);
  }, 60_000);

  it('refuses a wrong secret, a label already used and an account already listed, saving nothing', async () => {
    const l = await withBoth();
    const before = await l.settings();
    const wrong = await l.cli(
      ['accounts', 'add', 'Test', '--base-url', us.url, '--client-id', 'someone-else'],
      'wrong',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('rejected');
    const sameLabel = await l.cli(
      ['accounts', 'add', 'eu', '--base-url', us.url, '--client-id', 'x'],
      US_CLIENT.clientSecret,
    );
    expect(sameLabel.code).toBe(2);
    expect(sameLabel.stderr).toContain(
      `EU is already the account of client ${EU_CLIENT.clientId} at ${eu.url}: choose another label, or remove it first`,
    );
    const sameAccount = await l.cli(
      ['accounts', 'add', 'Again', '--base-url', us.url, '--client-id', US_CLIENT.clientId],
      US_CLIENT.clientSecret,
    );
    expect(sameAccount.code).toBe(2);
    // Words for what was typed: the client is listed under another label, and what to do instead.
    expect(sameAccount.stderr).toContain(
      `client ${US_CLIENT.clientId} at ${us.url} is listed already, as US: reconnect or relabel that account instead`,
    );
    // The same client typed with spaces around it, or the address with a slash after it.
    const spaced = await l.cli(
      ['accounts', 'add', 'Again', '--base-url', `${us.url}/`, '--client-id', ` ${US_CLIENT.clientId} `],
      US_CLIENT.clientSecret,
    );
    expect(spaced.stderr).toContain(`client ${US_CLIENT.clientId} at ${us.url}`);
    expect(spaced.stderr).toContain('is listed already, as US');
    const ftp = await l.cli(
      ['accounts', 'add', 'Files', '--base-url', 'ftp://files.example', '--client-id', 'x'],
      'x',
    );
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain(
      'seller-tray: the base URL ftp://files.example is not usable: the base URL must use https',
    );
    // https:// to a port that answers in plain http: the address is wrong, not a certificate.
    const plain = await l.cli(
      ['accounts', 'add', 'Web', '--base-url', us.url.replace('http:', 'https:'), '--client-id', 'x'],
      'x',
    );
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('the server did not answer in TLS');
    expect(plain.stderr).toContain('http:// rather than https://');
    expect(plain.stderr).not.toContain('certificate');
    const labelTaken = await l.cli(['accounts', 'rename', 'US', 'eu']);
    expect(labelTaken.code).toBe(2);
    expect(labelTaken.stderr).toContain('"eu" is the label of EU already: choose another');
    // A label that cannot be used says why, for the label typed (not "account 3's label is not usable").
    for (const [label, why] of [
      ['  ', 'the label is empty'],
      ['x'.repeat(25), 'the label has 25 characters, more than 24'],
      // Shown in the tray, the header and notifications: no override turns them around, no break forges a line.
      ['EU\u202eSU', 'the label holds an invisible control character'],
      ['US\u2028EU: Checked', 'the label holds an invisible control character'],
    ] as const) {
      const added = await l.cli(
        ['accounts', 'add', label, '--base-url', us.url, '--client-id', 'x'],
        US_CLIENT.clientSecret,
      );
      expect(added.code).toBe(2);
      expect(added.stderr).toContain(why);
      // The refusal is the last thing read: the accounts command's usage after it, not the whole help.
      expect(added.stderr).toMatch(/\n\nUsage: seller-tray accounts list \| accounts add LABEL .*\n$/);
      expect(added.stderr).not.toContain('Commands:');
      const renamed = await l.cli(['accounts', 'rename', 'US', label]);
      expect(renamed.code).toBe(2);
      expect(renamed.stderr).toContain(why);
    }
    expect(await l.settings()).toEqual(before);
  }, 60_000);

  it("says an order not found at the account may be another listed account's, naming it by --id", async () => {
    const l = await withBoth();
    const orderId = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    const hint = `Account EU has no such order; it may be another account's: add --id ${idOf(us, US_CLIENT)} (US).\n`;
    // By its beginning (no order's id begins so) and whole (the marketplace's 404).
    for (const given of [orderId.slice(0, 8), orderId]) {
      const run = await l.cli(['orders', 'get', given]);
      expect(run.code).toBe(1);
      expect(run.stderr.endsWith(`seller-tray: ${hint}`)).toBe(true);
    }
    const found = await l.cli(['orders', 'get', orderId, '--id', idOf(us, US_CLIENT)]);
    expect(found.code).toBe(0);
    // One account listed: nothing else to try.
    const alone = await laptop();
    await alone.cli(
      ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
      EU_CLIENT.clientSecret,
    );
    expect((await alone.cli(['orders', 'get', orderId])).stderr).not.toContain('another account');
  });

  it('names the account a listing read while several are saved, on stderr apart from the rows', async () => {
    const l = await withBoth();
    const named = 'seller-tray: from account US; 2 accounts are saved (--account LABEL reads another).\n';
    const listings = [
      ['orders', 'list'],
      ['events', 'new'],
      ['licenses', 'list'],
      ['ping'],
      ['automations', 'list'],
      ['automations', 'runs'],
      ['statuses', 'export'],
    ];
    for (const command of listings) {
      const run = await l.cli([...command, '--account', 'US']);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(named);
      expect(run.stdout).not.toContain('account');
      // JSON too: a script's reader of stderr is told whose rows it read.
      expect((await l.cli([...command, '--account', 'US', '--json'])).stderr).toContain(named);
    }
    // The first account, unnamed, is named the same way.
    expect((await l.cli(['orders', 'list'])).stderr).toContain('seller-tray: from account EU; 2 accounts');
    // One account listed: nothing to tell apart.
    const alone = await laptop();
    await alone.cli(
      ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
      EU_CLIENT.clientSecret,
    );
    expect((await alone.cli(['orders', 'list'])).stderr).not.toContain('from account');
  }, 90_000);

  it('names the account whose marketplace failed, whatever the failure, while several are saved', async () => {
    const l = await withBoth();
    // A failure that is neither the connection's nor one that may pass: a permission this client lacks.
    await admin(us.url, 'PATCH', 'faults', {
      script: [{ operation: 'listNewEvents', action: 'status', status: 403, times: 10 }],
    });
    try {
      const failed = await l.cli(['events', 'new', '--account', 'US']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^seller-tray: account US: /);
    } finally {
      await admin(us.url, 'PATCH', 'faults', { script: [] });
    }
  });

  it('--account LABEL reads and marks at that account only, with its own secret, counted at each marketplace', async () => {
    const l = await withBoth();
    const counts = () => ({
      eu: eu.requestCounts.listOrders + eu.requestCounts.sendEvent,
      us: us.requestCounts.listOrders + us.requestCounts.sendEvent,
    });
    let before = counts();
    // A secret in the environment names no marketplace: --account never sends it.
    const listed = await l.cli(['orders', 'list', '--account', 'us', '--json'], '', {
      SELLER_CLIENT_SECRET: EU_CLIENT.clientSecret,
    });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(6);
    expect(counts()).toEqual({ eu: before.eu, us: before.us + 1 });

    const orderId = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    before = counts();
    // Its link names the account, as the app's Copy link does while several are listed: the id may be EU's too.
    const shown = await l.cli(['orders', 'get', orderId, '--account', 'US']);
    expect(shown.stdout).toContain(`Link:           seller-tray://order/US/${orderId}\n`);
    expect(shown.stdout).toContain('\nAccount:        US\n');
    const marked = await l.cli(['status', orderId, 'InProgress', '--account', 'US', '--as', 'Anna']);
    expect(marked.code).toBe(0);
    // Which marketplace took it is said, while several accounts are listed.
    expect(marked.stdout).toContain('; the marketplace of account US accepted it (event ');
    expect(us.requestCounts.sendEvent).toBeGreaterThan(0);
    expect(counts().eu).toBe(before.eu);
    // doctor names the account by its label, as every command does, its address beside it.
    const doctor = await l.cli(['doctor', '--account', 'US']);
    expect(doctor.stdout.split('\n')[1]).toBe(
      `Account US: marketplace ${us.url}, client ${US_CLIENT.clientId}, page size 100`,
    );
    expect(JSON.parse((await l.cli(['doctor', '--account', 'US', '--json'])).stdout).account).toBe('US');
    // Named by its variables (not the first saved account, so unlabelled): as the CLI's lines name it.
    const byVariables = await l.cli(['doctor', '--json'], '', {
      SELLER_API_BASE_URL: us.url,
      SELLER_CLIENT_ID: US_CLIENT.clientId,
      SELLER_CLIENT_SECRET: US_CLIENT.clientSecret,
    });
    expect(JSON.parse(byVariables.stdout).account).toBe(`${US_CLIENT.clientId} at ${new URL(us.url).host}`);

    // Without --account: the first account, as the app's window.
    expect(JSON.parse((await l.cli(['orders', 'list', '--json'])).stdout)).toHaveLength(4);
    const login = await l.cli(['login', '--account', 'US'], US_CLIENT.clientSecret);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain(`seller-tray accounts add --id ${idOf(us, US_CLIENT)}`);
    const renamed = await l.cli(['accounts', 'rename', 'us', 'Americas']);
    expect(renamed).toMatchObject({ code: 0, stdout: 'Renamed account US to Americas.\n' });
    expect((await l.cli(['orders', 'list', '--account', 'americas', '--json'])).code).toBe(0);
    expect((await l.cli(['accounts', 'rename', 'Americas', 'eu'])).stderr).toContain(
      '"eu" is the label of EU already: choose another',
    );
    const unknown = await l.cli(['orders', 'list', '--account', 'APAC']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('there is no account labelled "APAC": the accounts are EU, Americas');
  }, 60_000);

  it('--id names an account wherever a label goes, and a label that begins with "-" is given as --account=LABEL', async () => {
    const l = await laptop();
    // A label a shell or the option parser would misread, for the account of EU's marketplace.
    const added = await l.cli(
      ['accounts', 'add', '--account=-x $HOME', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
      EU_CLIENT.clientSecret,
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toContain('Added account -x $HOME: client');
    const id = idOf(eu, EU_CLIENT);
    const listed = JSON.parse((await l.cli(['accounts', 'list', '--json'])).stdout);
    expect(listed.map((a: { label: string; id: string }) => [a.label, a.id])).toEqual([['-x $HOME', id]]);
    // Typed as the next argument it reads as an option, and the parser says how to give it.
    const typed = await l.cli(['orders', 'list', '--account', '-x $HOME']);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain("use '--account=-XYZ'");
    expect((await l.cli(['orders', 'list', '--account=-x $home', '--json'])).code).toBe(0);
    const byId = await l.cli(['orders', 'list', '--id', id, '--json']);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout)).toHaveLength(4);
    expect(await l.cli(['accounts', 'rename', '--id', id, 'EU'])).toMatchObject({
      code: 0,
      stdout: 'Renamed account -x $HOME to EU.\n',
    });
    const both = await l.cli(['orders', 'list', '--id', id, '--account', 'EU']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--id and --account each name an account: give one of them');
    const unknown = await l.cli(['accounts', 'remove', '--id', 'feedfacefeedface']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `there is no account of id feedfacefeedface: the accounts are ${id} (EU)`,
    );
    // An id typed in capitals is the same id.
    expect((await l.cli(['accounts', 'remove', '--id', id.toUpperCase()])).code).toBe(0);
    expect((await l.settings()).accounts).toEqual([]);
  }, 60_000);

  it('removes an account: its secret and data go, the next one becomes the first', async () => {
    const l = await withBoth();
    expect((await l.cli(['watch', '--once', '--account', 'EU'])).code).toBe(0);
    const folder = accountFolder(
      l.dataRoot,
      accountRef({ baseUrl: eu.url, clientId: EU_CLIENT.clientId }).id,
    );
    expect(existsSync(folder)).toBe(true);
    const removed = await l.cli(['accounts', 'remove', 'EU']);
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(removed.stdout).toBe(
      'Removed account EU: its secret left the keychain and its data on this computer is deleted.\n',
    );
    expect(existsSync(folder)).toBe(false);
    expect(await l.settings()).toMatchObject({
      baseUrl: us.url,
      clientId: US_CLIENT.clientId,
      accounts: [{ label: 'US' }],
    });
    expect((await l.cli(['accounts', 'list'])).stdout).toBe(
      `US\t${idOf(us, US_CLIENT)}\t${us.url}\t${US_CLIENT.clientId}\tsecret stored\tthe window's\n`,
    );
    // Added again without its secret: none is left in the keychain for it.
    const again = await l.cli(['orders', 'list', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`No client secret is stored for client ${EU_CLIENT.clientId}`);
  }, 60_000);

  it('at a terminal, asks before removing (no keeps it, yes removes it); a script is not asked', async () => {
    const l = await withBoth();
    const cli = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts'];
    const question = 'Remove account US?';
    const kept = await atTerminal([...cli, 'accounts', 'remove', 'US'], l.env, question, ['n\r']);
    expect(kept.code, kept.output).toBe(0);
    expect(kept.output).toContain(
      'Remove account US? Its secret leaves the keychain and its data leaves this computer; the marketplace keeps everything. [y/N] ',
    );
    expect(kept.output).toContain('Kept account US: nothing was removed.');
    expect((await l.settings()).accounts.map((a: { label: string }) => a.label)).toEqual(['EU', 'US']);
    const removed = await atTerminal([...cli, 'accounts', 'remove', 'US'], l.env, question, ['y\r']);
    expect(removed.code, removed.output).toBe(0);
    expect(removed.output).toContain('Removed account US');
    expect((await l.settings()).accounts.map((a: { label: string }) => a.label)).toEqual(['EU']);
    // Piped (a script, its stdin not a terminal): removed without a question.
    const piped = await l.cli(['accounts', 'remove', 'EU']);
    expect(piped.code).toBe(0);
    expect(piped.stdout + piped.stderr).not.toContain('[y/N]');
  }, 90_000);

  it('at a terminal, lists the accounts under a header with the columns lined up; piped, the bare rows', async () => {
    const l = await withBoth();
    const cli = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts'];
    const shown = await atTerminal([...cli, 'accounts', 'list'], l.env, 'WINDOW', []);
    expect(shown.code, shown.output).toBe(0);
    const lines = shown.output.replace(/\r/g, '').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^LABEL +ID +BASE URL +CLIENT ID +SECRET +WINDOW$/);
    expect(lines).toHaveLength(3);
    // Each row's id, base URL and secret begin where their headers do; no tab reaches the terminal.
    const header = lines[0] ?? '';
    for (const [line, sim, client] of [
      [lines[1] ?? '', eu, EU_CLIENT],
      [lines[2] ?? '', us, US_CLIENT],
    ] as const) {
      expect(line).not.toContain('\t');
      expect(line.slice(header.indexOf('ID'))).toMatch(new RegExp(`^${idOf(sim, client)} `));
      expect(line.slice(header.indexOf('BASE URL'))).toMatch(new RegExp(`^${sim.url} `));
      expect(line.slice(header.indexOf('SECRET'))).toMatch(/^secret stored/);
    }
    expect((await l.cli(['accounts', 'list'])).stdout).not.toContain('LABEL');
  }, 60_000);

  it('refuses to remove an account with a status not yet delivered, unless --force discards it', async () => {
    const l = await withBoth();
    const ref = accountRef({ baseUrl: us.url, clientId: US_CLIENT.clientId, label: 'US' });
    // The app marked an order and was closed within the time to undo: the status waits in the store.
    await markHeld(ref, l.dataRoot, US_CLIENT.clientSecret);
    const posts = us.requestCounts.sendEvent;

    const refused = await l.cli(['accounts', 'remove', 'US']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `US has 1 marked status not yet delivered to its marketplace: run seller-tray watch --once --id ${idOf(us, US_CLIENT)} until they are`,
    );
    // Each named on a line of its own, to be looked at before --force discards it.
    expect(refused.stderr).toMatch(/\n {2}In progress for .+ \(order [0-9a-f-]{36}\)\n/);
    expect((await l.settings()).accounts).toHaveLength(2);
    const forced = await l.cli(['accounts', 'remove', 'US', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('; 1 undelivered status was discarded.');
    expect((await l.settings()).accounts).toEqual([
      { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
    ]);
    expect(us.requestCounts.sendEvent).toBe(posts);
  }, 60_000);

  it('refuses to remove an account another process keeps open past the hand-over (one not following the settings file), putting it back', async () => {
    const l = await withBoth();
    const ref = accountRef({ baseUrl: us.url, clientId: US_CLIENT.clientId, label: 'US' });
    const folder = accountFolder(l.dataRoot, ref.id);
    // This test's process stands for a process that does not follow the settings file (an older
    // `seller-tray run`, or one stuck): its session of US has the store open.
    const session = await AccountSession.open(ref, {
      surface: 'app',
      dataRoot: l.dataRoot,
      clientSecret: async () => US_CLIENT.clientSecret,
      settings: () => DEFAULT_SETTINGS,
    });
    // --force discards undelivered statuses; it never removes an account from under a process.
    const refused = await l.cli(['accounts', 'remove', 'US', '--force']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'US is still open in another Seller Tray process (seller-tray run or watch, or an app that did not let it go): stop it and remove the account again',
    );
    // Put back where it was, its data and secret kept.
    expect((await l.settings()).accounts.map((a: { label: string }) => a.label)).toEqual(['EU', 'US']);
    expect(existsSync(folder)).toBe(true);
    expect((await l.cli(['accounts', 'list'])).stdout).toContain(
      `US\t${idOf(us, US_CLIENT)}\t${us.url}\t${US_CLIENT.clientId}\tsecret stored`,
    );

    await session.close();
    expect((await l.cli(['accounts', 'remove', 'US'])).code).toBe(0);
    expect(existsSync(folder)).toBe(false);
  }, 60_000);

  it('watch serves every saved account, each line naming its own; one refusing its secret leaves the other watched', async () => {
    const l = await withBoth();
    const first = await l.cli(['watch', '--once']);
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(first.stderr).toContain('seller-tray: EU: first run on this computer: recorded 4 existing orders');
    expect(first.stderr).toContain('seller-tray: US: first run on this computer: recorded 6 existing orders');
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    const seen = await l.cli(['watch', '--once', '--json']);
    expect(seen).toMatchObject({ code: 0, stderr: '' });
    const printed = seen.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(printed.map((o: { account: string; orderId: string }) => [o.account, o.orderId]).sort()).toEqual([
      ['EU', euOrder],
      ['US', usOrder],
    ]);

    await new KeytarSecretStore().set(secretOwner(us.url, US_CLIENT.clientId), 'no-longer-the-secret');
    const next = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const halfway = await l.cli(['watch', '--once']);
    expect(halfway.code).toBe(1);
    expect(halfway.stdout.split('\t').slice(0, 2)).toEqual(['EU', next]);
    expect(halfway.stderr).toContain(
      `seller-tray: US: the marketplace rejected client ${US_CLIENT.clientId}: store the current client secret with seller-tray accounts add --id ${idOf(us, US_CLIENT)} (it reads the secret from standard input: piped, or typed at its prompt)`,
    );
    // Read at a terminal: its advice names the CLI's commands, never the app's screens.
    expect(halfway.stderr).not.toMatch(/Settings|order page|Diagnose connection/);
    // A command of that account says how to store the current secret, by id.
    const refused = await l.cli(['orders', 'list', '--account', 'US']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the client id or secret was rejected: check them in the Seller Console, then store the current client secret with seller-tray accounts add --id ${idOf(us, US_CLIENT)} (it reads the secret from standard input: piped, or typed at its prompt)`,
    );
    const reconnected = await l.cli(['accounts', 'add', 'US'], US_CLIENT.clientSecret);
    expect(reconnected.stdout).toBe(
      `Reconnected account US: client ${US_CLIENT.clientId} of seller 7001 at ${us.url}; the secret is in the system keychain.\n`,
    );
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
  }, 60_000);
});

describe('seller-tray run with a refused secret', () => {
  it('keeps the account, and serves it again once its secret is replaced in the keychain (accounts add), calling the marketplace not once meanwhile', async () => {
    const l = await laptop();
    const add = () =>
      l.cli(
        ['accounts', 'add', 'US', '--base-url', us.url, '--client-id', US_CLIENT.clientId],
        US_CLIENT.clientSecret,
      );
    expect((await add()).code).toBe(0);
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
    // Rotated in the marketplace: the secret in the keychain is refused from now on.
    await new KeytarSecretStore().set(secretOwner(us.url, US_CLIENT.clientId), 'rotated-away');
    const run = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], l.env);
    const told = stderrOf(run);
    let exited: number | null | undefined;
    run.once('exit', (code) => {
      exited = code;
    });
    let stdout = '';
    run.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    const calls = () => Object.values(us.requestCounts).reduce((sum, n) => sum + n, 0);
    try {
      await told.includes(`the marketplace rejected client ${US_CLIENT.clientId}`);
      const refusedAt = calls();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect({ exited, calls: calls() - refusedAt }).toEqual({ exited: undefined, calls: 0 });
      expect(told.text()).toContain('run tries it again once the secret stored for it changes');
      expect(await add()).toMatchObject({ code: 0 });
      const orderId = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
      // Within the poll interval (30 s) of the refusal, the secret is read again and the account polled.
      await until(() => stdout.includes(orderId), 40_000).catch(() => {
        throw new Error(`no line for ${orderId}:\n${told.text()}`);
      });
    } finally {
      run.kill('SIGTERM');
      expect(await exitOf(run)).toBe(0);
    }
  }, 90_000);
});

describe('seller-tray run with several accounts', () => {
  it('serves every saved account and follows the settings file: an automation added applies, an account removed is let go, one added is served', async () => {
    const l = await withBoth();
    // This computer has read both histories: the next purchases are news.
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
    const ran = join(l.home, 'ran.txt');
    const command = (name: string) => ({
      name,
      action: {
        type: 'command',
        command: [
          process.execPath,
          '-e',
          `require('fs').appendFileSync(process.argv[1], process.argv[2]+' '+process.env.SELLER_TRAY_ACCOUNT+' '+process.env.SELLER_TRAY_ORDER_ID+'\\n')`,
          ran,
          name,
        ],
      },
    });
    const withAutomations = async (...automations: object[]) => {
      const file = join(l.dataRoot, 'settings.json');
      await writeFile(file, JSON.stringify({ ...(await l.settings()), automations }));
    };
    const lines = () => (existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n').sort() : []);
    await withAutomations(command('first'));
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    // Polled every 30 s, the least there is: the order after the change waits for the next poll.
    const run = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], l.env);
    const told = stderrOf(run);
    try {
      await until(() => lines().length === 2);
      expect(lines()).toEqual([`first EU ${euOrder}`, `first US ${usOrder}`]);

      // Removed while run has it open: run lets it go within the hand-over, so the removal goes through.
      const removed = await l.cli(['accounts', 'remove', 'US']);
      expect(removed).toMatchObject({ code: 0 });
      await told.includes('settings read again accounts=EU ');

      // An automation added to the file runs for the next new order, without a restart.
      await withAutomations(command('first'), command('second'));
      await told.includes('settings read again accounts=EU automations=2');
      const next = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
      await admin(us.url, 'POST', 'purchases');
      await until(() => lines().length === 4, 40_000).catch((error) => {
        throw new Error(`${error.message}: ${lines().join(' | ')}\n${told.text()}`);
      });
      expect(lines()).toEqual(
        [`first EU ${euOrder}`, `first EU ${next}`, `first US ${usOrder}`, `second EU ${next}`].sort(),
      );

      // Added back: served again, from a first run of its own (its data went with the removal).
      const added = await l.cli(
        ['accounts', 'add', 'US', '--base-url', us.url, '--client-id', US_CLIENT.clientId],
        US_CLIENT.clientSecret,
      );
      expect(added.code).toBe(0);
      await told.includes('seller-tray: US: first run on this computer');
    } finally {
      run.kill('SIGTERM');
      expect(await exitOf(run)).toBe(0);
    }
  }, 90_000);
});

describe('two `accounts remove` of one account at the same instant', () => {
  it('take turns, round after round: the account ends gone with nothing left, and each answer is true', async () => {
    const l = await laptop();
    const ref = accountRef({ baseUrl: eu.url, clientId: EU_CLIENT.clientId, label: 'EU' });
    const owner = secretOwner(eu.url, EU_CLIENT.clientId);
    const keychain = new KeytarSecretStore();
    const settings = new ConfSettingsStore({ cwd: l.dataRoot });
    const answers = new Map<string, number>();
    for (let round = 0; round < 20; round++) {
      // EU listed beside US, its secret stored and its store on disk, as `accounts add` and a poll leave it.
      settings.save({
        ...DEFAULT_SETTINGS,
        accounts: [
          { label: 'EU', baseUrl: eu.url, clientId: EU_CLIENT.clientId },
          { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId },
        ],
      });
      await keychain.set(owner, EU_CLIENT.clientSecret);
      const session = await AccountSession.open(ref, {
        surface: 'app',
        dataRoot: l.dataRoot,
        clientSecret: async () => EU_CLIENT.clientSecret,
        settings: () => DEFAULT_SETTINGS,
      });
      await session.close();

      // By label and by id, as the app's Settings and a script would name it.
      const both = await Promise.all([
        l.cli(['accounts', 'remove', 'EU']),
        l.cli(['accounts', 'remove', '--id', ref.id]),
      ]);
      const said = both.map(answerOf);
      for (const answer of said) answers.set(answer, (answers.get(answer) ?? 0) + 1);
      expect(
        said.filter((answer) => answer === 'removed'),
        JSON.stringify(both),
      ).toHaveLength(1);
      expect(
        said.filter((answer) => answer === 'unexpected'),
        JSON.stringify(both),
      ).toEqual([]);
      expect(settings.load().settings.accounts.map((a) => a.label)).toEqual(['US']);
      expect(existsSync(accountFolder(l.dataRoot, ref.id))).toBe(false);
      expect(existsSync(`${accountFolder(l.dataRoot, ref.id)}.removing`)).toBe(false);
      const notes = (await readdir(join(l.dataRoot, 'removals'))).filter((n) => n.endsWith('.json'));
      expect(notes).toEqual([]);
      expect(await keychain.get(owner)).toBeUndefined();
    }
    // The two met: in some rounds the second waited its turn (in others it came once the first was done).
    console.info('answers of both removals, all rounds:', Object.fromEntries(answers));
    expect(answers.get('removed by the other')).toBeGreaterThan(0);
  }, 240_000);
});

describe('`accounts add --id` while a removal of that account is under way', () => {
  it('waits for it to end, and never brings back an account whose secret and data it then deletes', async () => {
    const l = await withBoth();
    const entry = { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId };
    const ref = accountRef(entry);
    const owner = secretOwner(us.url, US_CLIENT.clientId);
    // A removal of US interrupted during its hand-over (noted, unlisted), and `seller-tray run`
    // (this test's session) still holding its store.
    const settings = new ConfSettingsStore({ cwd: l.dataRoot });
    writeRemovalNote(l.dataRoot, { entry, at: 1, automations: [] });
    settings.save({ ...settings.load().settings, accounts: [settings.load().settings.accounts[0] ?? entry] });
    const run = await AccountSession.open(ref, {
      surface: 'app',
      dataRoot: l.dataRoot,
      clientSecret: async () => US_CLIENT.clientSecret,
      settings: () => DEFAULT_SETTINGS,
    });
    let running = true;
    try {
      // `accounts remove --id` finishes it: it takes the removals' turn and waits for the hand-over.
      const removing = l.cli(['accounts', 'remove', '--id', ref.id]);
      for (;;) {
        const probe = await takeRemovalLock(l.dataRoot, 0);
        if (!probe) break;
        probe();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Meanwhile `accounts add --id` would bring it back; then `run` lets the store go.
      const adding = l.cli(['accounts', 'add', '--id', ref.id], US_CLIENT.clientSecret);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await run.close();
      running = false;
      const [removed, added] = await Promise.all([removing, adding]);
      expect(removed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Removed account US: /) });
      // Its turn come, there is nothing left to bring back: said so, nothing stored.
      expect(added.code).toBe(2);
      expect(added.stderr).toContain(`there is no account of id ${ref.id}`);
    } finally {
      if (running) await run.close();
    }
    expect(settings.load().settings.accounts.map((a) => a.label)).toEqual(['EU']);
    expect(existsSync(accountFolder(l.dataRoot, ref.id))).toBe(false);
    expect(await new KeytarSecretStore().get(owner)).toBeUndefined();
    expect((await readdir(join(l.dataRoot, 'removals'))).filter((n) => n.endsWith('.json'))).toEqual([]);
  }, 60_000);
});

/**
 * What an `accounts remove` said: removed by it, found removed meanwhile by the other, or (started
 * once the other was done) no such account; anything else (an error, the account put back) is not true.
 */
function answerOf({ code, stdout, stderr }: { code: number | null; stdout: string; stderr: string }) {
  if (code === 0 && /^Removed account EU: /.test(stdout)) return 'removed';
  if (code === 0 && /^Account EU was removed meanwhile by another Seller Tray process/.test(stdout))
    return 'removed by the other';
  if (code === 2 && /there is no account (labelled "EU"|of id [0-9a-f]+)/.test(stderr)) return 'already gone';
  return 'unexpected';
}

describe('the app in demo mode, another account saved', () => {
  it('a command naming no account says to name the saved one by --id, not to log in (which would end the demo)', async () => {
    const demo = { label: 'Demo', baseUrl: 'http://127.0.0.1:41234', clientId: 'demo-client' };
    const saved = { label: 'US', baseUrl: us.url, clientId: US_CLIENT.clientId };
    const l = await laptopWith('accounts-demo-', { demoMode: true, accounts: [demo, saved] });
    for (const command of [
      ['orders', 'list'],
      ['watch', '--once'],
    ]) {
      const refused = await l.cli(command);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`name a saved account with --id: US is --id ${idOf(us, US_CLIENT)}`);
    }
  }, 30_000);
});

describe('a settings file that cannot all be used', () => {
  it('is told on stderr: an account left out, a damaged file left as it is with the command stopped, so "no account" is never all a user reads', async () => {
    const eu = { label: 'EU', baseUrl: 'https://eu.example.com', clientId: 'eu-client' };
    const newer = {
      label: 'A label longer than this version takes',
      baseUrl: 'https://us.example.com',
      clientId: 'us',
    };
    const { file, ...l } = await laptopWith('accounts-damaged-', { accounts: [eu, newer] });
    const listed = await l.cli(['accounts', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^EU\t/);
    expect(listed.stderr).toContain(
      `seller-tray: Your settings file ${file} had settings that cannot be used`,
    );
    expect(listed.stderr).toContain('account 2');
    // A hand edit with a typo: every command stops and says where, moving nothing (another
    // process, `run` as a service, reads the same file; the person is correcting it).
    const whole = JSON.stringify({ accounts: [eu] }, null, 2);
    const broken = whole.slice(0, whole.lastIndexOf(']'));
    await writeFile(file, broken);
    for (const command of [['accounts', 'list'], ['automations', 'list'], ['run'], ['orders', 'list']]) {
      const stopped = await l.cli(command);
      expect(stopped.code).toBe(1);
      expect(stopped.stdout).toBe('');
      expect(stopped.stderr).toMatch(
        /^seller-tray: Your settings file .+settings\.json was unreadable \(not valid JSON at line \d+, column \d+\); it was left as it is\. Correct it \(or move it away to start afresh\), then run the command again\.\n$/,
      );
    }
    expect(await readFile(file, 'utf8')).toBe(broken);
    expect((await readdir(dirname(file))).filter((name) => name.includes('corrupt'))).toEqual([]);
    // Corrected: the accounts are all there.
    await writeFile(file, JSON.stringify({ accounts: [eu] }));
    const fixed = await l.cli(['accounts', 'list']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^EU\t/);
  }, 60_000);
});

describe('labels in usage errors', () => {
  it('are escaped for the terminal: a right-to-left override in a label never reaches it raw', async () => {
    // A file's label with an override (a hand edit, an older version) is read without it; a typed one is quoted escaped.
    const l = await laptopWith('accounts-usage-', {
      accounts: [
        { label: 'EU\u202eSU', baseUrl: 'https://eu.example.com', clientId: 'eu-client' },
        { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' },
      ],
    });
    const refused = await l.cli(['accounts', 'remove', 'AP\u202eAC']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('there is no account labelled "AP\\u202eAC": the accounts are EUSU, US');
    expect(refused.stderr).not.toContain('\u202e');
  }, 30_000);
});

describe('seller-tray run follows the settings file', () => {
  /** The settings file with one command automation appending "ACCOUNT ORDER" lines to a file of the laptop. */
  async function withRecordingAutomation(l: Awaited<ReturnType<typeof laptop>>) {
    const ran = join(l.home, 'ran.txt');
    const script = `require('fs').appendFileSync(process.argv[1], process.env.SELLER_TRAY_ACCOUNT+' '+process.env.SELLER_TRAY_ORDER_ID+'\\n')`;
    const automation = {
      name: 'record',
      action: { type: 'command', command: [process.execPath, '-e', script, ran] },
    };
    await writeFile(
      join(l.dataRoot, 'settings.json'),
      JSON.stringify({ ...(await l.settings()), automations: [automation] }),
    );
    return () => (existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n') : []);
  }

  /** `run` with these arguments on laptop `l`, then `accounts remove LABEL` once it serves: answers the removal. */
  async function removedWhileRunning(l: Awaited<ReturnType<typeof laptop>>, args: string[], label: string) {
    await withRecordingAutomation(l);
    const run = spawnTs('main/cli/seller-tray.ts', ['run', ...args, '--interval', '30'], l.env);
    try {
      await stderrOf(run).includes('first run on this computer');
      const removed = await l.cli(['accounts', 'remove', label]);
      return { code: removed.code, stderr: removed.stderr };
    } finally {
      run.kill('SIGTERM');
      await exitOf(run);
    }
  }

  it('`run --account US` lets US go when it is removed from the file, so the removal is not refused', async () => {
    // The run's own --account names an account no longer listed: it must not keep its store open.
    expect(await removedWhileRunning(await withBoth(), ['--account', 'US'], 'US')).toMatchObject({ code: 0 });
  }, 60_000);

  it('`run` lets the last account go when it is removed, so the removal is not refused', async () => {
    const l = await laptop();
    const addEu = await l.cli(
      ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
      EU_CLIENT.clientSecret,
    );
    expect(addEu.code).toBe(0);
    // No account left to serve: run must close EU's store (and may say it serves none), not keep it.
    expect(await removedWhileRunning(l, [], 'EU')).toMatchObject({ code: 0 });
  }, 60_000);

  it('a settings file made corrupt while run runs keeps the automations in force (the accounts are kept as before)', async () => {
    const l = await withBoth();
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
    const lines = await withRecordingAutomation(l);
    const run = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], l.env);
    const told = stderrOf(run);
    try {
      const first = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
      await until(() => lines().length === 1, 40_000);
      expect(lines()).toEqual([`EU ${first}`]);
      // An editor's half-saved file (or a typo): not JSON.
      await writeFile(join(l.dataRoot, 'settings.json'), '{"automations": [');
      await told.includes(
        'not valid JSON at line 1, column 18); it was left as it is, and the settings in force stay until it can be used',
      );
      const next = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
      // The accounts are served as before; the automations must be too, not the defaults' none.
      await until(() => lines().length === 2, 40_000).catch((error) => {
        throw new Error(`${error.message}: ${lines().join(' | ')}\n${told.text()}`);
      });
      expect(lines()).toEqual([`EU ${first}`, `EU ${next}`]);
    } finally {
      run.kill('SIGTERM');
      await exitOf(run);
    }
  }, 120_000);
});

describe('a rename while an automation runs for the account', () => {
  it('a command that outlives the close of the renamed session is not run a second time alongside it', async () => {
    const l = await withBoth();
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
    const ran = join(l.home, 'ran.txt');
    // Slow to end on SIGTERM (a provisioning step finishing its call): it is given 5 s before
    // SIGKILL, the session's close waits 4 s. A start while another copy lives is "overlap".
    const script = [
      "const f=require('fs'),[,log,pidFile]=process.argv",
      "const w=(s)=>f.appendFileSync(log,s+' '+process.env.SELLER_TRAY_ACCOUNT+'\\n')",
      "try{process.kill(Number(f.readFileSync(pidFile,'utf8')),0);w('overlap')}catch{}",
      'f.writeFileSync(pidFile,String(process.pid))',
      "process.on('SIGTERM',()=>w('sigterm'));w('start');setTimeout(()=>w('done'),7000)",
    ].join(';');
    const automation = {
      name: 'provision',
      action: { type: 'command', command: [process.execPath, '-e', script, ran, join(l.home, 'pid')] },
    };
    await writeFile(
      join(l.dataRoot, 'settings.json'),
      JSON.stringify({ ...(await l.settings()), automations: [automation] }),
    );
    const lines = () => (existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n') : []);
    const run = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], l.env);
    const told = stderrOf(run);
    try {
      await told.includes('account connected');
      await admin(us.url, 'POST', 'purchases');
      await until(() => lines().includes('start US'), 40_000);
      expect((await l.cli(['accounts', 'rename', 'US', 'Americas'])).code).toBe(0);
      await until(() => lines().includes('done Americas'), 40_000).catch((error) => {
        throw new Error(`${error.message}: ${lines().join(' | ')}\n${told.text()}`);
      });
      // Run again under the new label, once the first copy has ended: never two at once.
      expect(lines()).toEqual(['start US', 'sigterm US', 'start Americas', 'done Americas']);
      expect(told.text()).not.toContain('database is not open');
    } finally {
      run.kill('SIGTERM');
      await exitOf(run);
    }
  }, 120_000);
});

describe('terminal advice follows where the secret comes from', () => {
  it('the advice for an unlisted account refused, where others are saved, adds it beside them: followed, the first saved account stays', async () => {
    const l = await withBoth();
    const other = await startSimulator({ port: 0, seed: 3, orders: 2 });
    try {
      const variables = { SELLER_API_BASE_URL: other.url, SELLER_CLIENT_ID: 'demo-client' };
      const refused = await l.cli(['orders', 'list'], '', { ...variables, SELLER_CLIENT_SECRET: 'stale' });
      expect(refused.code).toBe(1);
      // Never `seller-tray login`, which would replace EU, the first saved account.
      expect(refused.stderr).not.toContain('seller-tray login');
      const advised = refused.stderr.match(
        /or unset it and store the secret with seller-tray (accounts add LABEL .*)/,
      )?.[1];
      expect(advised).toBeDefined();
      // Followed as advised: the variable unset, the secret stored under a label.
      const added = await l.cli(
        advised?.replace('LABEL', 'Other').split(' ') ?? [],
        'demo-secret\n',
        variables,
      );
      expect(added).toMatchObject({ code: 0 });
      const listed = (await l.settings()).accounts.map(
        (a: { label: string; baseUrl: string }) => `${a.label} ${a.baseUrl}`,
      );
      expect(listed[0]).toBe(`EU ${eu.url}`);
      expect(listed.map((line: string) => line.replace(/\/$/, ''))).toContain(
        `Other ${other.url.replace(/\/$/, '')}`,
      );
      // The command refused before now works as typed.
      expect((await l.cli(['orders', 'list'], '', variables)).code).toBe(0);
    } finally {
      await new KeytarSecretStore().delete(secretOwner(other.url, 'demo-client'));
      await other.close();
    }
  }, 60_000);

  it('a secret from SELLER_CLIENT_SECRET that is refused is advised fixed or unset, not stored in the keychain (the variable would still win)', async () => {
    const l = await withBoth();
    // A service's unit names the first saved account by its variables, its secret among them.
    const variables = {
      SELLER_API_BASE_URL: eu.url,
      SELLER_CLIENT_ID: EU_CLIENT.clientId,
      SELLER_CLIENT_SECRET: 'an-old-rotated-secret',
    };
    const refused = await l.cli(['orders', 'list'], '', variables);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the client id or secret was rejected');
    // Storing it with `accounts add --id` changes nothing while the variable is set: say the variable.
    expect(refused.stderr).toContain('SELLER_CLIENT_SECRET');
  }, 60_000);
});

describe('a saved account whose marketplace is down', () => {
  const DOWN_CLIENT = { clientId: 'down-cli-client', clientSecret: 'down-cli-secret-0c4d' };

  it('is told at once, naming the account and what to run next: a refused connection is not tried again', async () => {
    const l = await laptop();
    const down = await oneSellerMarketplace(13, 8001, 2, DOWN_CLIENT);
    try {
      // Saved first, so the commands below read it without --account, as a newcomer types them.
      const added = await l.cli(
        ['accounts', 'add', 'Down', '--base-url', down.url, '--client-id', DOWN_CLIENT.clientId],
        DOWN_CLIENT.clientSecret,
      );
      expect(added.code).toBe(0);
      const addEu = await l.cli(
        ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId],
        EU_CLIENT.clientSecret,
      );
      expect(addEu.code).toBe(0);
      // Nothing listens at its address now: each connection is refused.
      await down.close();
      const order = '00000000-0000-4000-8000-000000000001';
      for (const command of [
        ['orders', 'list'],
        ['orders', 'get', order],
        ['status', order, 'Completed'],
        ['events', 'new'],
      ]) {
        const failed = await l.cli([...command, '--verbose']);
        expect(failed.code, failed.stderr).toBe(1);
        // One attempt, not five over about 3 s of backoff: a person waits at the terminal.
        expect(failed.stderr.match(/call failed/g), failed.stderr).toHaveLength(1);
        expect(failed.stderr).toContain(
          `The marketplace of account Down refused the connection: nothing answers at ${down.url}, so it was not tried again.`,
        );
        expect(failed.stderr).toContain(
          `if it lasts, run seller-tray doctor --id ${idOf(down, DOWN_CLIENT)} and send the result to the marketplace`,
        );
      }
      // Its secret stored again (accounts add checks it with a token request): as quickly told.
      const reconnect = await l.cli(['accounts', 'add', 'Down', '--verbose'], DOWN_CLIENT.clientSecret);
      expect(reconnect.code, reconnect.stderr).toBe(1);
      expect(reconnect.stderr.match(/call failed/g), reconnect.stderr).toHaveLength(1);
      expect(reconnect.stderr).toContain('refused the connection');
      // Alone, the account is not named: there is no other to tell it from.
      expect((await l.cli(['accounts', 'remove', 'EU'])).code).toBe(0);
      const alone = await l.cli(['orders', 'list']);
      expect(alone.stderr).toContain(
        `The marketplace refused the connection: nothing answers at ${down.url}`,
      );
    } finally {
      await new KeytarSecretStore().delete(secretOwner(down.url, DOWN_CLIENT.clientId));
    }
  }, 120_000);

  it('a failure that may pass is tried again as the client does by design, each retry told as it waits where stderr is a terminal', async () => {
    const l = await withBoth();
    const fault = { script: [{ operation: 'listOrders', action: 'status', status: 503, times: 2 }] };
    await admin(eu.url, 'PATCH', 'faults', fault);
    const cli = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts'];
    const typed = await atTerminal([...cli, 'orders', 'list', '--limit', '1'], l.env, 'trying again in', []);
    expect(typed.code, typed.output).toBe(0);
    const told = typed.output.split(/\r?\n/).filter((line) => line.includes('trying again in'));
    expect(told, typed.output).toHaveLength(2);
    // Each says which try comes next and how many there are: how long the command may keep at it.
    for (const [i, line] of told.entries())
      expect(line).toMatch(
        new RegExp(
          `^seller-tray: the marketplace of account EU: .*\\b503\\b.*; trying again in \\d+(\\.\\d)? s \\(try ${i + 2} of at most 5\\)$`,
        ),
      );
    // A script's stderr (a pipe, cron's mail) carries no retry that ended well.
    await admin(eu.url, 'PATCH', 'faults', fault);
    const piped = await l.cli(['orders', 'list', '--limit', '1']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe(
      'seller-tray: from account EU; 2 accounts are saved (--account LABEL reads another).\n',
    );
  }, 60_000);
});

describe('a refused secret where the command itself reads it (accounts add, login)', () => {
  it('advises that command again, whole: followed as printed, piped, it works', async () => {
    const l = await laptop();
    /** The command advised after "run", as printed; run by the person with the right secret piped. */
    const follow = async (refused: { code: number | null; stderr: string }, secret: string) => {
      expect(refused.code, refused.stderr).toBe(1);
      // accounts add and login read the secret from standard input only: the variable changes nothing.
      expect(refused.stderr).not.toContain('SELLER_CLIENT_SECRET');
      const advised = refused.stderr.match(
        /then run (seller-tray .*) again with the current secret \(it reads the secret from standard input: piped, or typed at its prompt\)/,
      )?.[1];
      expect(advised, refused.stderr).toBeDefined();
      const followed = await l.cli(advised?.split(' ').slice(1) ?? [], secret);
      expect(followed.code, followed.stderr).toBe(0);
      return advised;
    };
    // The first account, nothing saved yet: the command as typed, never `login` with placeholders.
    const first = ['accounts', 'add', 'EU', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId];
    expect(await follow(await l.cli(first, 'wrong-secret\n'), EU_CLIENT.clientSecret)).toBe(
      `seller-tray ${first.join(' ')}`,
    );
    // Beside a saved one.
    const second = ['accounts', 'add', 'US', '--base-url', us.url, '--client-id', US_CLIENT.clientId];
    expect(await follow(await l.cli(second, 'wrong-secret\n'), US_CLIENT.clientSecret)).toBe(
      `seller-tray ${second.join(' ')}`,
    );
    // A saved account reconnected by its label: by its id, as advice names saved accounts.
    expect(
      await follow(await l.cli(['accounts', 'add', 'EU'], 'wrong-secret\n'), EU_CLIENT.clientSecret),
    ).toBe(`seller-tray accounts add --id ${idOf(eu, EU_CLIENT)}`);
    // login on a laptop of its own: with the flags it was typed with.
    const other = await laptop();
    const login = ['login', '--base-url', eu.url, '--client-id', EU_CLIENT.clientId];
    const refused = await other.cli(login, 'wrong-secret\n');
    expect(refused.stderr).toContain(
      `then run seller-tray ${login.join(' ')} again with the current secret (it reads the secret from standard input: piped, or typed at its prompt)`,
    );
    expect((await other.cli(login, EU_CLIENT.clientSecret)).code).toBe(0);
  }, 60_000);

  it('a command given its account by flags advises login with those flags, so it works as printed', async () => {
    const l = await laptop();
    const typed = ['--base-url', eu.url, '--client-id', EU_CLIENT.clientId];
    const refused = await l.cli(['orders', 'list', ...typed], '', { SELLER_CLIENT_SECRET: 'stale' });
    expect(refused.code).toBe(1);
    const advised = refused.stderr.match(
      /or unset it and store the secret with (seller-tray login[^\n]*)$/m,
    )?.[1];
    expect(advised).toBe(`seller-tray login ${typed.join(' ')}`);
    const followed = await l.cli(advised?.split(' ').slice(1) ?? [], EU_CLIENT.clientSecret);
    expect(followed.code, followed.stderr).toBe(0);
    expect((await l.cli(['orders', 'list', ...typed])).code).toBe(0);
  }, 60_000);
});

describe('seller-tray accounts pause', () => {
  /** A time zone the machine is unlikely to be in, half an hour off the hour from UTC. */
  const INDIA = { TZ: 'Asia/Kolkata' };
  /** An ISO time as a clock in India reads it: "2026-11-28 20:15 +05:30". */
  const inIndia = (iso: string) =>
    `${new Date(Date.parse(iso) + 5.5 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ')} +05:30`;

  it("holds one account's new orders from watch while the other's are printed, both polled; resume hands them over", async () => {
    const l = await withBoth();
    const usId = idOf(us, US_CLIENT);
    expect((await l.cli(['watch', '--once'])).code).toBe(0);
    const paused = await l.cli(['accounts', 'pause', 'US', '--for', '4h'], '', INDIA);
    expect(paused).toMatchObject({ code: 0, stderr: '' });
    // Kept beside the list, where the app reads it (and follows it while it runs).
    const until = (await l.settings()).accountPauses[usId];
    expect(Date.parse(until) - Date.now()).toBeGreaterThan(3.9 * 3_600_000);
    // Its end in the user's time zone (the process's TZ), as a clock there reads it.
    const end = inIndia(until);
    expect(paused.stdout).toBe(
      `Paused notifications of account US until ${end}; its orders are still read, and the other accounts' notifications go on.\n`,
    );
    expect((await l.cli(['accounts', 'list'], '', INDIA)).stdout.split('\n')[1]).toMatch(
      new RegExp(`^US\\t${usId}\\t.*\\tpaused until ${end.replace('+', '\\+')}$`),
    );
    // At a terminal, under its heading: said once, not again in the row.
    const cli = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts'];
    const shown = await atTerminal([...cli, 'accounts', 'list'], { ...l.env, ...INDIA }, 'WINDOW', []);
    const lines = shown.output.replace(/\r/g, '').trimEnd().split('\n');
    const column = lines[0]?.indexOf('NOTIFICATIONS') ?? -1;
    expect(column).toBeGreaterThan(0);
    expect(lines[2]?.slice(column)).toBe(`paused until ${end}`);
    expect(lines[1]?.slice(column)).toBe('');

    const before = { eu: eu.requestCounts.listNewEvents, us: us.requestCounts.listNewEvents };
    const euOrder = (await admin(eu.url, 'POST', 'purchases')).json.orderId as string;
    const usOrder = (await admin(us.url, 'POST', 'purchases')).json.orderId as string;
    const seen = await l.cli(['watch', '--once']);
    expect(seen).toMatchObject({ code: 0, stderr: '' });
    expect(
      seen.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t').slice(0, 2)),
    ).toEqual([['EU', euOrder]]);
    expect({ eu: eu.requestCounts.listNewEvents, us: us.requestCounts.listNewEvents }).toEqual({
      eu: before.eu + 1,
      us: before.us + 1,
    });
    // Read all the same: the order is in US's inbox.
    expect((await l.cli(['orders', 'list', '--account', 'US'])).stdout).toContain(usOrder);

    expect(await l.cli(['accounts', 'resume', 'US'])).toMatchObject({
      code: 0,
      stdout: 'Resumed notifications of account US.\n',
    });
    expect((await l.settings()).accountPauses).toEqual({});
    const resumed = await l.cli(['watch', '--once']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(usOrder);
  }, 60_000);

  it('pauses until resumed without --for, names the way back by id, and refuses a --for it does not know', async () => {
    const l = await withBoth();
    const euId = idOf(eu, EU_CLIENT);
    const paused = await l.cli(['accounts', 'pause', '--id', euId]);
    expect(paused.stdout).toContain(
      `Paused notifications of account EU until you resume them (seller-tray accounts resume --id ${euId})`,
    );
    expect((await l.cli(['accounts', 'list'])).stdout.split('\n')[0]).toMatch(/\tpaused until resumed$/);
    const wrong = await l.cli(['accounts', 'pause', 'US', '--for', '2h']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--for must be one of 1h, 4h, tomorrow, or left out to pause until resumed',
    );
    expect((await l.cli(['accounts', 'resume', 'US', '--for', '1h'])).code).toBe(2);
    expect((await l.cli(['accounts', 'pause', 'Nowhere'])).stderr).toContain(
      'there is no account labelled "Nowhere"',
    );
    // Only EU is paused still.
    expect(Object.keys((await l.settings()).accountPauses)).toEqual([euId]);
  }, 60_000);
});
