// `seller-tray accounts remove` killed (kill -9) at each step of its hand-over (issue 23): while
// it waits for another process to let the account's store go, after the account's folder is
// deleted but before its secret, after its secret but before its automations', and once a refused
// removal put the account back but before it dropped its note. Each time nothing is lost, and the
// user has a way on that `accounts list` shows, naming the account by id: `accounts remove` again
// finishes the job (or puts the account back while it has statuses to deliver), `accounts add`
// brings it back with what is left of its data. Every end state is the account listed with its
// folder, or nothing of it: no folder moved aside is ever left. Real CLI processes, the real
// keychain (test/with-keychain.sh).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRef, accountFolder, accountRef, keychainEntry } from '../main/core/account/account-ref';
import { interruptedRemovals } from '../main/core/account/removal-notes';
import { automationSecretEntry } from '../main/core/automation/ports';
import { KeytarSecretStore } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore } from '../main/core/settings';
import type { Simulator } from '../simulator/server';
import { webhookAutomation } from './support/automation-runs';
import { cliLaptop } from './support/cli-laptop';
import { ManualTimers } from './support/core';
import { markHeld, openHolding } from './support/held-mark';
import { oneSellerMarketplace } from './support/one-seller-marketplace';
import { exitOf, runTs, spawnTs, waitForLine } from './support/processes';

const CLIENT = { clientId: 'removal-client', clientSecret: 'removal-secret-7f3a' };
const HOOK_SECRET = 'hook-secret-19c4';

let sim: Simulator;
const secrets = new KeytarSecretStore();
const homes: string[] = [];
beforeAll(async () => {
  sim = await oneSellerMarketplace(21, 8101, 3, CLIENT);
});
afterEach(async () => {
  const ref = accountRef({ baseUrl: sim.url, clientId: CLIENT.clientId });
  await secrets.delete(keychainEntry(ref));
  await secrets.delete(automationSecretEntry(ref, 'provision'));
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});
afterAll(() => sim.close());

// An automation whose secret for the account is a keychain entry of its own, to leave with the account.
const provision = webhookAutomation('http://127.0.0.1:9/', 'provision');

/**
 * A laptop with the account EU (added by the CLI), an automation with a secret for it, and one
 * status marked but not yet delivered (the app was closed within the time to undo).
 */
async function laptopWithEu() {
  const { home, env, cli, dataRoot } = await cliLaptop('removal-crash-');
  homes.push(home);
  const added = await cli(
    ['accounts', 'add', 'EU', '--base-url', sim.url, '--client-id', CLIENT.clientId],
    CLIENT.clientSecret,
  );
  expect(added).toMatchObject({ code: 0, stderr: '' });
  const settings = new ConfSettingsStore({ cwd: dataRoot });
  settings.save({ ...settings.load().settings, automations: [provision] });
  const ref = accountRef({ baseUrl: sim.url, clientId: CLIENT.clientId, label: 'EU' });
  await secrets.set(automationSecretEntry(ref, provision.name), HOOK_SECRET);
  const marked = await markHeld(ref, dataRoot, CLIENT.clientSecret);
  const listed = () => settings.load().settings.accounts.map((a) => a.label);
  return { env, cli, dataRoot, ref, folder: accountFolder(dataRoot, ref.id), listed, marked };
}

const open = (ref: AccountRef, dataRoot: string) => openHolding(ref, dataRoot, CLIENT.clientSecret);

async function undelivered(ref: AccountRef, dataRoot: string): Promise<number> {
  const session = await open(ref, dataRoot);
  try {
    return session.core.status().pendingOutbox;
  } finally {
    await session.close();
  }
}

const idOfEu = () => accountRef({ baseUrl: sim.url, clientId: CLIENT.clientId }).id;
const interrupted = () =>
  `EU\t${idOfEu()}\t${sim.url}\tremoval-client\tremoval interrupted\n  seller-tray accounts remove --id ${idOfEu()} finishes it; seller-tray accounts add --id ${idOfEu()} brings it back with what is left of its data\n`;

/** No folder moved aside (`accounts/<id>.removing`) is left, whatever the end state. */
function noTrash(dataRoot: string): void {
  const accounts = join(dataRoot, 'accounts');
  expect(existsSync(accounts) ? readdirSync(accounts).filter((n) => n.endsWith('.removing')) : []).toEqual(
    [],
  );
}

/** What is left of the removal's notes. */
/** The removal notes (beside them, the empty lock file removals take turns on stays). */
const notes = (dataRoot: string) =>
  existsSync(join(dataRoot, 'removals'))
    ? readdirSync(join(dataRoot, 'removals')).filter((name) => name.endsWith('.json'))
    : [];

/** What the app tells at its start on this laptop (its problems), then closed. */
async function appTells(dataRoot: string): Promise<string[]> {
  const settings = new ConfSettingsStore({ cwd: dataRoot });
  const service = await SellerTrayService.open({ settings, secrets, dataRoot, timers: new ManualTimers() });
  const problems: string[] = [];
  service.onEvent((event) => {
    if (event.type === 'problem') problems.push(event.message);
  });
  service.listening();
  // The start finishes them in the background, and a closed app tells nothing: kept open till then.
  await until(
    () =>
      problems.length > 0 || interruptedRemovals(dataRoot, settings.load().settings.accounts).length === 0,
    20_000,
  );
  await service.close();
  return problems;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `accounts remove EU --force` killed while it waits for another process (this test's, as the
 * app or `seller-tray run`) to let the store go; that process marked one more status meanwhile.
 */
async function killedDuringHandOver() {
  const l = await laptopWithEu();
  const holder = await open(l.ref, l.dataRoot);
  const removal = spawnTs('main/cli/seller-tray.ts', ['accounts', 'remove', 'EU', '--force'], l.env);
  await until(() => l.listed().length === 0);
  const order = holder.core
    .orders({ filter: 'all', search: '', offset: 0, limit: 10 })
    .rows.find((row) => row.orderId !== l.marked);
  await holder.core.markStatus({
    orderId: order?.orderId ?? '',
    statusCode: 'ProvisioningInProgress',
    description: 'Marked meanwhile.',
  });
  removal.kill('SIGKILL');
  await exitOf(removal);
  await holder.close();
  // What the user finds: the account gone from the list, its data and secret still there, told so.
  expect(existsSync(l.folder)).toBe(true);
  expect(await secrets.get(keychainEntry(l.ref))).toBe(CLIENT.clientSecret);
  expect((await l.cli(['accounts', 'list'])).stdout).toBe(interrupted());
  return l;
}

/** The account ended for good by `accounts remove --force`: nothing of it is left. */
async function removedForGood(l: Awaited<ReturnType<typeof laptopWithEu>>): Promise<void> {
  expect((await l.cli(['accounts', 'remove', 'EU', '--force'])).code).toBe(0);
  await nothingLeft(l);
}

/** No account, no folder, no folder moved aside, no secret, no note; the list and the app say so. */
async function nothingLeft(l: Awaited<ReturnType<typeof laptopWithEu>>): Promise<void> {
  expect(l.listed()).toEqual([]);
  expect(existsSync(l.folder)).toBe(false);
  noTrash(l.dataRoot);
  expect(notes(l.dataRoot)).toEqual([]);
  expect(await secrets.get(keychainEntry(l.ref))).toBeUndefined();
  expect(await secrets.get(automationSecretEntry(l.ref, provision.name))).toBeUndefined();
  expect((await l.cli(['accounts', 'list'])).stdout).toBe(
    'No account is saved yet: seller-tray accounts add LABEL adds one.\n',
  );
  expect(await appTells(l.dataRoot)).toEqual([]);
}

describe('accounts remove killed', () => {
  it('while it waits for the hand-over: remove again puts it back, both statuses still to deliver', async () => {
    const l = await killedDuringHandOver();
    const again = await l.cli(['accounts', 'remove', 'EU']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('EU has 2 marked statuses not yet delivered to its marketplace');
    expect(l.listed()).toEqual(['EU']);
    expect(await undelivered(l.ref, l.dataRoot)).toBe(2);
    expect((await l.cli(['accounts', 'list'])).stdout).toBe(
      `EU\t${idOfEu()}\t${sim.url}\t${CLIENT.clientId}\tsecret stored\tthe window's\n`,
    );
    noTrash(l.dataRoot);
    // And --force then ends it for good.
    await removedForGood(l);
  }, 60_000);

  it('once a refused removal put it back, before it dropped its note: it is listed with its data, as if the note were dropped', async () => {
    const l = await killedDuringHandOver();
    // Finishing it finds the two statuses, puts the account back, and is killed there.
    const removal = spawnTs('test/support/removal-child.ts', ['EU', 'put-back'], l.env);
    await waitForLine(removal, /^paused put-back$/);
    removal.kill('SIGKILL');
    await exitOf(removal);
    expect(l.listed()).toEqual(['EU']);
    expect(notes(l.dataRoot)).toEqual([`${l.ref.id}.json`]);
    // Listed, its folder and statuses kept, nothing told. Its note, under a minute old, could be a
    // removal under way elsewhere: kept until then, and harmless, as a listed account's note is.
    expect((await l.cli(['accounts', 'list'])).stdout).toBe(
      `EU\t${idOfEu()}\t${sim.url}\t${CLIENT.clientId}\tsecret stored\tthe window's\n`,
    );
    expect(await undelivered(l.ref, l.dataRoot)).toBe(2);
    expect(await appTells(l.dataRoot)).toEqual([]);
    noTrash(l.dataRoot);
    await removedForGood(l);
  }, 60_000);

  it('while it waits for the hand-over: its label is not given to another account, and the advice, by id, finishes it', async () => {
    const l = await killedDuringHandOver();
    const other = await l.cli(
      ['accounts', 'add', 'eu', '--base-url', 'https://other.example.com', '--client-id', 'other-client'],
      'other-secret',
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      `EU is the label of an account whose removal was interrupted (client ${CLIENT.clientId} at ${sim.url}): run seller-tray accounts remove --id ${idOfEu()} to finish it`,
    );
    expect(l.listed()).toEqual([]);
    expect((await l.cli(['accounts', 'list'])).stdout).toBe(interrupted());
    // As the advice says, by id: the removal is finished.
    const finished = await l.cli(['accounts', 'remove', '--id', idOfEu(), '--force']);
    expect(finished).toMatchObject({ code: 0, stderr: '' });
    expect(finished.stdout).toContain('; 2 undelivered statuses were discarded');
    await nothingLeft(l);
  }, 60_000);

  for (const by of ['id', 'label'] as const)
    it(`while it waits for the hand-over: add brings it back, by its ${by} alone, under its label, with its statuses`, async () => {
      const l = await killedDuringHandOver();
      const added = await l.cli(
        ['accounts', 'add', ...(by === 'id' ? ['--id', idOfEu()] : ['EU'])],
        CLIENT.clientSecret,
      );
      expect(added).toMatchObject({ code: 0, stderr: '' });
      expect(added.stdout).toContain(
        `Added account EU: client ${CLIENT.clientId} of seller 8101 at ${sim.url}`,
      );
      expect(l.listed()).toEqual(['EU']);
      expect(await undelivered(l.ref, l.dataRoot)).toBe(2);
      expect((await l.cli(['accounts', 'list'])).stdout).not.toContain('removal interrupted');
      expect(notes(l.dataRoot)).toEqual([]);
      noTrash(l.dataRoot);
    }, 60_000);

  for (const step of ['folder-deleted', 'secret-deleted'] as const) {
    it(`after ${step === 'folder-deleted' ? 'its folder is deleted, before its secret' : "its secret is deleted, before its automations'"}: remove again finishes the job`, async () => {
      const l = await laptopWithEu();
      const removal = spawnTs('test/support/removal-child.ts', ['EU', step, '--force'], l.env);
      await waitForLine(removal, new RegExp(`^paused ${step}$`));
      removal.kill('SIGKILL');
      await exitOf(removal);
      // The folder went whole; what is left is in the keychain, and the list says how to end it.
      expect(existsSync(l.folder)).toBe(false);
      expect(await secrets.get(keychainEntry(l.ref))).toBe(
        step === 'folder-deleted' ? CLIENT.clientSecret : undefined,
      );
      expect(await secrets.get(automationSecretEntry(l.ref, provision.name))).toBe(HOOK_SECRET);
      expect(l.listed()).toEqual([]);
      expect((await l.cli(['accounts', 'list'])).stdout).toBe(interrupted());

      // As the list advises, by id.
      const finished = await l.cli(['accounts', 'remove', '--id', idOfEu()]);
      expect(finished).toMatchObject({ code: 0, stderr: '' });
      expect(finished.stdout).toBe(
        'Removed account EU: its secret left the keychain and its data on this computer is deleted.\n',
      );
      await nothingLeft(l);
    }, 60_000);
  }
});

describe('the app started after accounts remove was killed', () => {
  it('finishes a removal killed after its folder was deleted: nothing is left and nothing told', async () => {
    const l = await laptopWithEu();
    const removal = spawnTs('test/support/removal-child.ts', ['EU', 'folder-deleted', '--force'], l.env);
    await waitForLine(removal, /^paused folder-deleted$/);
    removal.kill('SIGKILL');
    await exitOf(removal);
    expect(await secrets.get(keychainEntry(l.ref))).toBe(CLIENT.clientSecret);
    expect(await appTells(l.dataRoot)).toEqual([]);
    await nothingLeft(l);
  }, 60_000);

  it('puts back an account killed during its hand-over with statuses to deliver, and says so', async () => {
    const l = await killedDuringHandOver();
    expect(await appTells(l.dataRoot)).toEqual([
      'The account EU was not removed and is listed again: EU has 2 marked statuses not yet delivered to its marketplace. They are sent as it is checked: remove it again in Settings once they are, or to discard them.',
    ]);
    expect(l.listed()).toEqual(['EU']);
    expect(await undelivered(l.ref, l.dataRoot)).toBe(2);
    expect(notes(l.dataRoot)).toEqual([]);
    noTrash(l.dataRoot);
  }, 60_000);
});

describe('accounts remove', () => {
  it('whose secret the keychain refuses to delete, its folder gone: keeps it removed, says to run it again by id, which finishes it', async () => {
    const l = await laptopWithEu();
    const failed = await runTs('test/support/removal-child.ts', ['EU', 'secret-refused', '--force'], l.env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      `the removal of EU did not finish: The keychain refused to delete the secret (it is locked); Seller Tray finishes it when it next starts, as seller-tray accounts remove --id ${idOfEu()} does now`,
    );
    // Never put back with an empty store: unlisted, its data deleted, its secret told of.
    expect(l.listed()).toEqual([]);
    expect(existsSync(l.folder)).toBe(false);
    noTrash(l.dataRoot);
    expect((await l.cli(['accounts', 'list'])).stdout).toBe(interrupted());
    expect((await l.cli(['accounts', 'remove', '--id', idOfEu()])).code).toBe(0);
    await nothingLeft(l);
  }, 60_000);

  it("deletes an account whose folder is on another file system than the data folder's (accounts linked to another volume)", async () => {
    const { home, cli, dataRoot } = await cliLaptop('removal-volume-');
    homes.push(home);
    // /dev/shm is a tmpfs here, another file system than the temporary folder's: a rename from one
    // to the other fails (EXDEV), so the folder must be moved aside where it is.
    const volume = await mkdtemp('/dev/shm/removal-volume-');
    homes.push(volume);
    await mkdir(dataRoot, { recursive: true });
    await symlink(volume, join(dataRoot, 'accounts'));
    expect(statSync(volume).dev).not.toBe(statSync(dataRoot).dev);
    const added = await cli(
      ['accounts', 'add', 'EU', '--base-url', sim.url, '--client-id', CLIENT.clientId],
      CLIENT.clientSecret,
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const ref = accountRef({ baseUrl: sim.url, clientId: CLIENT.clientId });
    await (await open(ref, dataRoot)).close(); // its store, as the app's first start makes it
    expect(existsSync(join(volume, ref.id))).toBe(true);
    const removed = await cli(['accounts', 'remove', 'EU']);
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(await readdir(volume)).toEqual([]);
    expect(await secrets.get(keychainEntry(ref))).toBeUndefined();
  }, 60_000);
});
