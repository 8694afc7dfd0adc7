// What a removal of an account (by the app or the CLI) leaves on disk until it is done, so a
// removal killed midway (kill -9, a power cut) or failed past the deletion of its data is never a
// secret or a folder nobody knows of: the account's note (`removals/<id>.json`: its entry, its
// place in the list, its automations) is written before the settings file loses the account and
// deleted last. While the account is not listed, its note tells the app at its start and
// `accounts list` to show the interrupted removal, `accounts remove` to finish it (or put the
// account back if it has statuses to deliver) and `accounts add` where the account was. The
// account's folder is moved aside (`accounts/<id>.removing`) before it is deleted, so a kill
// during the deletion never leaves half a store where the account would open it again.
// `settleRemovals`, at each start of the app and of `accounts`, ends what a kill left whatever the
// step: a note of an account listed again goes (once it is older than a removal under way can be),
// and a folder moved aside is deleted (its statuses were counted first). The app then finishes the
// removals still noted, as `accounts remove --id` does (service.ts), in the background after its
// start. Removals take turns on `removals/under-way.lock` (takeRemovalLock), a file that holds nothing
// and stays.

import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { waitLeftMs } from '../../../preload/hold';
import { escapedControls } from '../../../preload/marketplace-text';
import type { AccountEntry } from '../../../preload/settings-declaration';
import { removeLeftoverTemporaries, writeFileDurably } from '../durable-file';
import type { Log } from '../log';
import { checkAccounts, labelKey } from '../settings';
import { lockExclusively } from '../store/database';
import { type AccountId, accountFolder, accountRef, accountsFolder } from './account-ref';

/** A removal under way: the account as it was listed, where, and the automations it ran with. */
export interface RemovalNote {
  entry: AccountEntry;
  /** Its place in the list, where it goes back. */
  at: number;
  /** The automations whose secrets for it are to be deleted too. */
  automations: string[];
}

const removals = (dataRoot: string) => join(dataRoot, 'removals');
const notePath = (dataRoot: string, id: AccountId) => join(removals(dataRoot), `${id}.json`);

/**
 * Where the account's folder waits to be deleted, out of the account's way: beside it, so the move
 * is one rename on one file system (an `accounts` folder linked to another volume included).
 */
export const removalTrash = (dataRoot: string, id: AccountId): string =>
  `${accountFolder(dataRoot, id)}.removing`;

/**
 * One removal at a time on this computer (the app's Settings, its start, every `accounts remove`):
 * two removals of one account meeting at any step (its note, the list, its folder, its secret)
 * would each undo or fail on what the other did. The lock is `removals/under-way.lock`, held with
 * SQLite's exclusive lock, so a removal killed midway (its note tells the rest) never leaves a lock
 * behind. Waits for another removal to end, at most `withinMs`: undefined if it did not. A lock
 * file that cannot be used throws, in words that name it and say what to do.
 */
export async function takeRemovalLock(dataRoot: string, withinMs: number): Promise<(() => void) | undefined> {
  const file = join(removals(dataRoot), 'under-way.lock');
  const end = Date.now() + withinMs;
  for (;;) {
    const lock = usableLock(file);
    if (lock) return lock.release;
    if (Date.now() >= end) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** lockExclusively on the removals' lock file, or why it cannot be used (a thrown Error for people). */
function usableLock(file: string): { release: () => void } | undefined {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // SQLite opens a file it cannot write read-only, where BEGIN EXCLUSIVE locks nothing at all.
    if (existsSync(file)) accessSync(file, constants.W_OK);
    try {
      return lockExclusively(file);
    } catch (error) {
      if (!/not a database|malformed/i.test(String(error))) throw error;
      // Damaged (a disk error, a stray write): it holds nothing, and empty it is a sound database.
      // Emptied, not deleted, so a process that emptied it first keeps holding the one file.
      truncateSync(file, 0);
      return lockExclusively(file);
    }
  } catch (error) {
    throw new Error(
      `removals on this computer take turns on the file ${file}, which cannot be used (${(error as Error).message}): give this user write access to it and its folder, or delete it (it holds nothing), then try again`,
      { cause: error },
    );
  }
}

/** Whether a removal of the account is noted: under way, or interrupted. */
export const removalNoted = (dataRoot: string, id: AccountId): boolean => existsSync(notePath(dataRoot, id));

export function writeRemovalNote(dataRoot: string, note: RemovalNote): void {
  writeFileDurably(notePath(dataRoot, accountRef(note.entry).id), JSON.stringify(note));
}

/**
 * The removal of the account is over (done, refused, or the account added again): its note goes.
 * A note that cannot be deleted is left for `settleRemovals` (or the next `accounts remove`),
 * never a failure of what is already done.
 */
export function dropRemovalNote(dataRoot: string, id: AccountId, log?: Log): void {
  try {
    rmSync(notePath(dataRoot, id), { force: true });
  } catch (error) {
    log?.warn('the note of a removal could not be deleted', { reason: (error as Error).message });
  }
}

/**
 * Ends what a removal killed at any step left, so every end state is either the account listed
 * with its folder, or no account, folder, trash or note: the note of an account listed again (a
 * removal killed before it saved the list, or after it put the account back) goes, and every
 * folder moved aside is deleted (a removal moves it only once its statuses are counted or
 * discarded). What cannot be deleted now is left for the next start.
 */
export function settleRemovals(dataRoot: string, listed: readonly AccountEntry[], log?: Log): void {
  const ids = new Set<string>(listed.map((entry) => accountRef(entry).id));
  removeLeftoverTemporaries(removals(dataRoot), { log });
  for (const name of names(removals(dataRoot)).filter((n) => n.endsWith('.json'))) {
    const id = name.slice(0, -'.json'.length) as AccountId;
    if (ids.has(id) && !inFlight(dataRoot, id)) dropRemovalNote(dataRoot, id, log);
  }
  const accounts = accountsFolder(dataRoot);
  for (const name of names(accounts).filter((n) => n.endsWith('.removing'))) {
    try {
      rmSync(join(accounts, name), { recursive: true, force: true });
    } catch (error) {
      log?.warn("a removed account's folder could not be deleted yet", { reason: (error as Error).message });
    }
  }
}

/**
 * A note younger than this may be a removal under way in another process that has not saved the
 * list yet (it writes its note first, then waits up to 10 s to hand the store over): left alone, it
 * is harmless, as a listed account's note is never told nor finished.
 */
const NOTE_IN_FLIGHT_MS = 60_000;
/**
 * How far a note's time may read ahead of this process's clock and still be taken as just written:
 * a file's time is finer than Date.now's millisecond, and a file system's clock may lead a little.
 */
const FILE_CLOCK_LEAD_MS = 2_000;

/**
 * Written within NOTE_IN_FLIGHT_MS; one that reads as ahead of the clock by more than a file's
 * clock may lead was written before the clock was set back.
 */
function inFlight(dataRoot: string, id: AccountId): boolean {
  try {
    const writtenMs = statSync(notePath(dataRoot, id)).mtimeMs;
    return waitLeftMs(writtenMs + NOTE_IN_FLIGHT_MS, NOTE_IN_FLIGHT_MS + FILE_CLOCK_LEAD_MS, Date.now()) > 0;
  } catch {
    return true;
  }
}

const names = (folder: string): string[] => (existsSync(folder) ? readdirSync(folder) : []);

/**
 * The removals not finished of accounts no longer listed (a listed account's note is from a
 * removal killed before the list was saved, or one that put it back: nothing to finish).
 * A note that cannot be read is left out, never a failed command.
 */
export function interruptedRemovals(dataRoot: string, listed: readonly AccountEntry[]): RemovalNote[] {
  const folder = removals(dataRoot);
  const ids = new Set(listed.map((entry) => accountRef(entry).id));
  return names(folder)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const note = readNote(join(folder, name));
      return note && !ids.has(accountRef(note.entry).id) ? [note] : [];
    });
}

/** How a command names an account: by its label (compared as labelKey does), or by its id (`--id`). */
export type AccountChoice = { label: string } | { id: string };

/** Whether the account of `entry` (its id `id`) is the one chosen. */
export function isChosen(entry: AccountEntry, id: AccountId, which: AccountChoice): boolean {
  return 'id' in which
    ? id === which.id.trim().toLowerCase() // ids are lower-case hex (or "demo"), as typed or not
    : labelKey(entry.label) === labelKey(which.label);
}

/** The unfinished removal of the chosen account, if there is one. */
export function interruptedRemoval(
  dataRoot: string,
  listed: readonly AccountEntry[],
  which: AccountChoice,
): RemovalNote | undefined {
  return interruptedRemovals(dataRoot, listed).find((note) =>
    isChosen(note.entry, accountRef(note.entry).id, which),
  );
}

/**
 * What the app says at its start of an interrupted removal it could not finish either (it tries
 * at each start; the app ships without the CLI, so the words do not send people to it).
 */
export function interruptedRemovalWords(entry: AccountEntry, reason: string): string {
  return `Removing the account ${escapedControls(entry.label)} was interrupted and could not be finished now (${escapedControls(reason)}), so its data or its secret may still be on this computer. Seller Tray tries again at its next start.`;
}

function readNote(file: string): RemovalNote | undefined {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<RemovalNote>;
    const checked = checkAccounts([raw.entry]);
    const [entry] = checked.ok ? checked.accounts : [];
    if (!entry || !Number.isInteger(raw.at) || !Array.isArray(raw.automations)) return undefined;
    return {
      entry,
      at: raw.at as number,
      automations: raw.automations.filter((name): name is string => typeof name === 'string'),
    };
  } catch {
    return undefined;
  }
}
