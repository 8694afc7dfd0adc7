// Words people read, the same everywhere (the window, the tray, the CLI): the provisioning
// statuses (New, In progress, Completed, Failed; one the app does not know is shown as it
// came), what the tray says of a connection that does not work, what Check now found, and when
// the marketplace was last read. Pure, importable by every process.
import type { Connection } from './model';

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

/** What Check now found, as the header and the tray say it. */
export function checkFoundText(result: { state: { connection: string }; newOrders: number }): string {
  if (result.state.connection !== 'ok') return 'Check failed';
  if (result.newOrders === 0) return 'No new orders';
  return result.newOrders === 1 ? '1 new order' : `${result.newOrders} new orders`;
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

/**
 * When a poll last read the marketplace, as the header, the tray and the CLI say it: "Checked 1 min
 * ago", or while that is too long ago (`stale`, liveness.ts), "Not checked for 20 min".
 */
export function checkedText(lastSuccessfulPoll: string | null, nowMs: number, stale = false): string {
  const ms = lastSuccessfulPoll === null ? Number.NaN : Date.parse(lastSuccessfulPoll);
  if (!Number.isFinite(ms)) return 'Not checked yet';
  const age = ageText(ms, nowMs);
  if (stale) return `Not checked for ${age}`;
  return age === 'just now' ? 'Checked just now' : `Checked ${age} ago`;
}
