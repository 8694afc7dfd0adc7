// What a removal of an account by the CLI leaves on disk until it is done, so a removal killed
// midway (kill -9, a power cut) is never a secret or a folder nobody knows of: the account's note
// (`removals/<id>.json`: its entry, its place in the list, its automations) is written before the
// settings file loses the account and deleted last. While the account is not listed, its note
// tells the app at its start and `accounts list` to show the interrupted removal, `accounts remove` to finish it (or put
// the account back if it has statuses to deliver) and `accounts add` where the account was. The
// account's folder is moved aside (`accounts/<id>.removing`) before it is deleted, so a kill during the
// deletion never leaves half a store where the account would open it again.

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AccountEntry } from '../../../preload/settings-declaration';
import { writeFileDurably } from '../durable-file';
import { checkAccounts } from '../settings';
import { type AccountId, accountFolder, accountRef, labelArgument } from './account-ref';

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

export function writeRemovalNote(dataRoot: string, note: RemovalNote): void {
  writeFileDurably(notePath(dataRoot, accountRef(note.entry).id), JSON.stringify(note));
}

/**
 * The removal of the account is over (done, refused, or the account added again): its note goes,
 * and what a kill left of its folder being deleted (the removal had counted or discarded its statuses).
 */
export function dropRemovalNote(dataRoot: string, id: AccountId): void {
  rmSync(removalTrash(dataRoot, id), { recursive: true, force: true });
  rmSync(notePath(dataRoot, id), { force: true });
}

/**
 * The removals not finished of accounts no longer listed (a listed account's note is from a
 * removal killed before the list was saved, or one that put it back: nothing to finish).
 * A note that cannot be read is left out, never a failed command.
 */
export function interruptedRemovals(dataRoot: string, listed: readonly AccountEntry[]): RemovalNote[] {
  const folder = removals(dataRoot);
  if (!existsSync(folder)) return [];
  const ids = new Set(listed.map((entry) => accountRef(entry).id));
  return readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const note = readNote(join(folder, name));
      return note && !ids.has(accountRef(note.entry).id) ? [note] : [];
    });
}

/** The unfinished removal of an account by its label (any case), if there is one. */
export function interruptedRemoval(
  dataRoot: string,
  listed: readonly AccountEntry[],
  label: string,
): RemovalNote | undefined {
  const wanted = label.trim().toLowerCase();
  return interruptedRemovals(dataRoot, listed).find((note) => note.entry.label.toLowerCase() === wanted);
}

/** What the app says at its start of a removal left unfinished (the CLI's `accounts list` shows it too). */
export function interruptedRemovalWords(label: string): string {
  const argument = labelArgument(label);
  return `Removing the account ${label} was interrupted, so its data or its secret may still be on this computer: run seller-tray accounts remove ${argument} to finish it, or seller-tray accounts add ${argument} to bring it back.`;
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
