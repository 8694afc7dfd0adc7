// Words people read, the same everywhere (the window, the tray, the CLI): the provisioning
// statuses (New, In progress, Completed, Failed; one the app does not know is shown as it
// came), what the tray says of a connection that does not work, what Check now found, and when
// the marketplace was last read, and each account's state beside the others. Pure, importable by
// every process.
import type { AccountState } from './contract';
import type { Connection } from './model';
import { pausedUntil } from './pause';
import { servedAccounts } from './served-account';

const STATUS_LABELS: Readonly<Record<string, string>> = {
  ProvisioningStarted: 'New',
  ProvisioningInProgress: 'In progress',
  ProvisioningCompleted: 'Completed',
  ProvisioningFailed: 'Failed',
};

/** A provisioning status in words; an unknown code is shown as it is. */
export function statusLabel(status: string | undefined): string {
  if (status === undefined) return 'No status';
  return STATUS_LABELS[status] ?? status;
}

/** What the tray's tooltip says of a connection that does not work (Help lists them too). */
export const TRAY_PROBLEMS: Readonly<Record<Connection, string | null>> = {
  starting: null,
  ok: null,
  paused: null,
  offline: 'offline',
  'server-problem': 'the marketplace is having problems',
  failing: 'connection problem',
  'credentials-rejected': 'credentials rejected',
};

/**
 * What Check now found, as the header and the tray say it; with several accounts, which of them
 * could not be checked ("1 new order; Down could not be checked").
 */
export function checkFoundText(result: {
  state: { connection: Connection; accounts: readonly AccountState[] };
  newOrders: number;
}): string {
  const served = servedAccounts(result.state.accounts);
  const failed = served.filter((account) => account.connection !== 'ok' && account.connection !== 'paused');
  const found =
    result.newOrders === 0
      ? 'No new orders'
      : result.newOrders === 1
        ? '1 new order'
        : `${result.newOrders} new orders`;
  if (served.length === 0) return result.state.connection === 'ok' ? found : 'Check failed';
  if (failed.length === served.length) return 'Check failed';
  if (failed.length === 0) return found;
  return `${found}; ${failed.map((account) => account.label).join(', ')} could not be checked`;
}

/** How long since `fromMs`, compactly: "just now", "12 min", "3 h", "5 d". */
export function ageText(fromMs: number, nowMs: number): string {
  const minutes = Math.floor((nowMs - fromMs) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** When a poll last read the marketplace, while polls work: "Checked 1 min ago", "Not checked yet". */
function checkedText(lastSuccessfulPoll: string | null, nowMs: number): string {
  return sinceText('Checked', 'checked', lastSuccessfulPoll, nowMs, false);
}

/**
 * When a poll last read the marketplace, true whatever the polls do now (the header's words while
 * they fail): "Last read 3 h ago", "Not read yet"; `stale`: "Not read for 3 h". Without `stale`,
 * for what knows that moment alone (a diagnosis).
 */
export function lastReadAgoText(lastSuccessfulPoll: string | null, nowMs: number, stale = false): string {
  return sinceText('Last read', 'read', lastSuccessfulPoll, nowMs, stale);
}

/** "Checked 1 min ago", "Not read for 20 min", "Not checked yet": `done` begins a sentence, `doneWord` follows "Not". */
function sinceText(
  done: string,
  doneWord: string,
  last: string | null,
  nowMs: number,
  stale: boolean,
): string {
  const ms = last === null ? Number.NaN : Date.parse(last);
  if (!Number.isFinite(ms)) return `Not ${doneWord} yet`;
  const age = ageText(ms, nowMs);
  if (stale) return `Not ${doneWord} for ${age}`;
  return age === 'just now' ? `${done} just now` : `${done} ${age} ago`;
}

/**
 * Whether the polls go on by themselves after such a failure (rejected credentials wait for new
 * ones, poller.ts; a pause for its end), and whether the failure's own words, in the banner, say
 * so already (failure-words.ts): those of offline and of the marketplace's problems do; those of an
 * answer that cannot be used (a certificate, an odd answer, a wrong address: failing) do not.
 */
export const TRIES_AGAIN: Readonly<Record<Connection, 'no' | 'told' | 'untold'>> = {
  starting: 'no',
  ok: 'no',
  paused: 'no',
  offline: 'told',
  'server-problem': 'told',
  failing: 'untold',
  'credentials-rejected': 'no',
};

/**
 * When the marketplace was last read, as true of the connection, the one choice of these words for
 * the header, the tray and the liveness notification: "Checked 1 min ago" while polls work; while
 * they fail, get no answer for too long (`health`, liveness.ts) or are paused, a poll tried read
 * nothing, so "Last read 3 min ago", "Not read for 20 min", "Not read yet", and ", trying again"
 * while the polls go on by themselves, unless `besideBanner` (the window's one account, its banner
 * under it; the notification's advice) and those words say so.
 */
export function lastReadText(
  status: Pick<AccountState, 'connection' | 'health' | 'lastSuccessfulPoll'>,
  nowMs: number,
  besideBanner = false,
): string {
  const stale = status.health !== 'healthy';
  if ((status.connection === 'ok' || status.connection === 'starting') && !stale)
    return checkedText(status.lastSuccessfulPoll, nowMs);
  const read = lastReadAgoText(status.lastSuccessfulPoll, nowMs, stale);
  const tries = TRIES_AGAIN[status.connection];
  return tries === 'untold' || (tries === 'told' && !besideBanner) ? `${read}, trying again` : read;
}

/**
 * One served account's state beside the others, as the header and the tray give it: "Checked 1
 * min ago", "Offline; not read for 20 min, trying again", "Credentials rejected; last read 3 min ago".
 */
export function accountStateText(
  account: Pick<AccountState, 'connection' | 'health' | 'lastSuccessfulPoll'>,
  nowMs: number,
): string {
  const read = lastReadText(account, nowMs);
  const problem = account.connection === 'paused' ? 'checking paused' : TRAY_PROBLEMS[account.connection];
  if (!problem) return read;
  return `${problem.charAt(0).toUpperCase()}${problem.slice(1)}; ${read.charAt(0).toLowerCase()}${read.slice(1)}`;
}

/**
 * A served account's line beside the others (the header, the tray): its state, and its own
 * notifications paused while they are, until when in `pauseEnd`, the words the surface says the
 * app's pause end in ("until 14:30"; the app's pause has its own item and words).
 */
export function servedAccountText(
  account: Pick<AccountState, 'connection' | 'health' | 'lastSuccessfulPoll' | 'notificationsPausedUntil'>,
  nowMs: number,
  pauseEnd: (until: Date) => string,
): string {
  const state = accountStateText(account, nowMs);
  const paused = pausedUntil(account.notificationsPausedUntil, nowMs);
  return paused ? `${state}; notifications paused ${pauseEnd(paused)}` : state;
}
