// What each provisioning status is called wherever people read it (the window, the core's
// messages): one list, so the app never says "Started" in one place and "New" in another.
// Imports nothing, so every process may use it.

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
