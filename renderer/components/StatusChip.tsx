// An order's provisioning status as a small coloured label; its text says it all, the
// colour only helps. A status the app does not know is shown as the server sent it.
import { statusLabel, statusTone } from '../format';
import { ServerText } from './ServerText';

export function StatusChip({ status }: { status: string | undefined }) {
  return (
    <span className={`chip chip-${statusTone(status)}`} title={statusLabel(status)}>
      <ServerText text={statusLabel(status)} />
    </span>
  );
}
