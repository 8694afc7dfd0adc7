// `seller-tray statuses export`: the proof of delivery (issue 26) of one account, read from the
// store the app shares with the CLI (no marketplace call): every status marked on this computer
// through the app or `watch`, as CSV (default) or JSON, to stdout or --output FILE.

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { plural } from '../../preload/counted';
import { accountFolder, accountName, privateAccountFolder } from '../core/account/account-ref';
import { type ProofFormat, proofRows, proofText } from '../core/status-records';
import { AccountStore, DATABASE_FILE } from '../core/store/account-store';
import type { Account, CliStores } from './account';
import { UsageError } from './refusals';

export interface ExportOptions {
  /** `--since DATE`: a day (YYYY-MM-DD, from its start in UTC) or an ISO time. */
  since?: string | undefined;
  format?: string | undefined;
  /** `--output FILE`: written there instead of stdout. */
  output?: string | undefined;
}

/** The export as text, or written to --output (then a line saying where and how many). */
export async function exportStatuses(
  account: Account,
  stores: CliStores,
  options: ExportOptions,
): Promise<string> {
  const format = formatOption(options.format);
  const since = sinceOption(options.since);
  const dataDir = accountFolder(stores.dataRoot, account.ref.id);
  // No store yet: nothing was marked here (and a read creates none).
  let records: ReturnType<AccountStore['statusRecords']> = [];
  if (existsSync(join(dataDir, DATABASE_FILE))) {
    const { store } = AccountStore.open(privateAccountFolder(stores.dataRoot, account.ref.id));
    try {
      records = store.statusRecords(since);
    } finally {
      store.close();
    }
  }
  const rows = proofRows(accountName(account.ref), records);
  const text = proofText(rows, format);
  if (options.output === undefined) return text;
  try {
    await writeFile(options.output, text);
  } catch (error) {
    throw new Error(outputProblem(options.output, error as NodeJS.ErrnoException));
  }
  return `${plural(rows.length, 'status', 'statuses')} written to ${options.output}\n`;
}

function formatOption(raw: string | undefined): ProofFormat {
  if (raw === undefined || raw === 'csv' || raw === 'json') return raw ?? 'csv';
  throw new UsageError('--format is csv or json');
}

function sinceOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(raw);
  const isDay = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const time = isDay ? Date.parse(`${raw}T00:00:00Z`) : Date.parse(raw);
  // Date.parse rolls a day that does not exist (2026-02-30) into the next month, and reads a time
  // without its zone in this computer's, which a script run on another cannot know.
  const exists =
    day !== null &&
    new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))).toISOString().startsWith(day[0]);
  const zoned = isDay || /(?:Z|[+-]\d{2}:?\d{2})$/i.test(raw);
  if (!exists || !zoned || Number.isNaN(time))
    throw new UsageError(
      '--since takes a day (2026-11-01) or a time with its zone (2026-11-01T08:00:00Z, 2026-11-01T09:00:00+01:00)',
    );
  return new Date(time).toISOString();
}

/** Why the file --output names could not be written, in words: it is the user's, not Seller Tray's own. */
const OUTPUT_REASONS: Readonly<Record<string, string>> = {
  EISDIR: 'it is a folder (EISDIR); name a file for --output',
  ENOENT: 'its folder does not exist (ENOENT)',
  ENOTDIR: 'a part of its path is a file, not a folder (ENOTDIR)',
  EACCES: 'this user may not write it (EACCES)',
  EPERM: 'this user may not write it (EPERM)',
  EROFS: 'its disk is read-only (EROFS)',
  ENOSPC: 'the disk is full (ENOSPC)',
};

function outputProblem(file: string, error: NodeJS.ErrnoException): string {
  return `${file} could not be written: ${OUTPUT_REASONS[error.code ?? ''] ?? error.message}`;
}
