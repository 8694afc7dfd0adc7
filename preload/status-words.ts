// Words people read, the same everywhere (the window, the tray, the CLI): the provisioning
// statuses (New, In progress, Completed, Failed; one the app does not know is shown as it
// came), what the tray says of a connection that does not work, and what Check now found. Pure,
// importable by every process.
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
