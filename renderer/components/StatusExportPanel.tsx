// "Proof of delivery" (issue 26): every status this laptop marked, saved as a CSV file for finance
// and disputes: who, when held and sent, the request id, the marketplace's answer and when a check
// read it back. The desktop app asks where to save it; the browser preview saves it in its data
// folder. From the store alone: no marketplace call.
import { useId, useState } from 'react';
import { useBridgeCall } from '../hooks/useBridgeCall';
import { CopyButton } from './CopyButton';
import { ErrorAlert } from './ErrorAlert';

export function StatusExportPanel() {
  const headingId = useId();
  const sinceId = useId();
  const [since, setSince] = useState('');
  const { run, answer, error, busy, dismissError } = useBridgeCall(
    'exportStatuses',
    since === '' ? {} : { since },
  );

  return (
    <section className="status-export" aria-labelledby={headingId}>
      <h3 id={headingId}>Proof of delivery</h3>
      <p className="hint">
        Every status marked on this computer, with who marked it, when it was sent, the request id, the
        marketplace's answer and when a check saw it listed there. Kept 400 days.
      </p>
      <label htmlFor={sinceId} className="export-since">
        Marked since (optional)
      </label>
      <input
        id={sinceId}
        className="export-since"
        type="date"
        value={since}
        onChange={(event) => setSince(event.target.value)}
      />
      <button type="button" disabled={busy} onClick={() => void run()}>
        Export statuses (CSV)
      </button>
      <ErrorAlert problem={error} onDismiss={dismissError} />
      <p role="status">
        {answer &&
          (answer.path === null ? (
            'Not exported: no file was chosen.'
          ) : (
            <>
              {`Exported ${answer.rows} status${answer.rows === 1 ? '' : 'es'} to `}
              <code>{answer.path}</code> <CopyButton value={answer.path} label="export file path" />
            </>
          ))}
      </p>
    </section>
  );
}
