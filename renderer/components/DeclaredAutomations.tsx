// Settings → Automations: the automations the settings file declares, read only (they are
// edited in the file, docs/automations.md), each with what it does, for which orders and
// whether it reports the status.
import { type AutomationSetting, describeAutomation } from '../../preload/automations';
import { statusLabel } from '../format';

const REPORTS = { 'in-progress': 'ProvisioningInProgress', completed: 'ProvisioningCompleted' } as const;

export function DeclaredAutomations({ automations }: { automations: AutomationSetting[] }) {
  if (automations.length === 0) {
    return (
      <p className="hint">
        None are declared yet: they are added to the settings file (see docs/automations.md).
      </p>
    );
  }
  return (
    <ul className="declared-automations" aria-label="Declared automations">
      {automations.map((a) => {
        const { action, orders } = describeAutomation(a);
        return (
          <li key={a.name}>
            <span className="automation-name">{a.name}</span>
            {!a.enabled && ' (off)'}: {action}, for {orders}
            {a.reportStatus && `; marks ${statusLabel(REPORTS[a.reportStatus])} or Failed`}
          </li>
        );
      })}
    </ul>
  );
}
