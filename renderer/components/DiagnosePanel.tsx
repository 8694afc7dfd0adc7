// "Diagnose connection": tries each operation the app reads with and shows the report as
// text, to read or to copy into a support ticket (it holds no secret and no token).
import { useId } from 'react';
import { useBridgeCall } from '../hooks/useBridgeCall';
import { CopyButton } from './CopyButton';
import { ErrorAlert } from './ErrorAlert';

export function DiagnosePanel() {
  const headingId = useId();
  const { run, answer: result, error, busy, dismissError } = useBridgeCall('diagnose', undefined);

  return (
    <section className="diagnose" aria-labelledby={headingId}>
      <h3 id={headingId}>Diagnose connection</h3>
      <p className="hint">
        Tries each thing Seller Tray asks the marketplace and says what answered and where it differs from the
        Seller API. Send the report to your marketplace contact or IT if something does not work.
      </p>
      <button type="button" onClick={() => void run()} disabled={busy}>
        {busy ? 'Diagnosing…' : 'Diagnose connection'}
      </button>
      <ErrorAlert problem={error} onDismiss={dismissError} />
      {result && (
        <>
          <p role="status">
            {result.failed
              ? 'Some operations failed: Seller Tray cannot fully work with this marketplace yet.'
              : 'Every operation answered.'}{' '}
            <CopyButton value={result.report} label="diagnosis report" />
          </p>
          <section aria-label="Diagnosis report">
            <pre className="diagnosis-report">{result.report}</pre>
          </section>
        </>
      )}
    </section>
  );
}
