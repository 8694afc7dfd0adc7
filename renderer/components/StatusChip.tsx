// An order's provisioning status as a small coloured label; its text says it all, the
// colour only helps.
import { statusLabel, statusTone } from '../format';

export function StatusChip({ status }: { status: string | undefined }) {
  return <span className={`chip chip-${statusTone(status)}`}>{statusLabel(status)}</span>;
}
