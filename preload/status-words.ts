// The provisioning statuses as people read them, the same everywhere (the window, the
// confirmation dialogs, the CLI): New, In progress, Completed, Failed. A status the app does
// not know is shown as it came. Pure, importable by every process.
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
