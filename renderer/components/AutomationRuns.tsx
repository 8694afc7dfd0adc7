// What this laptop's automations did for the order (docs/automations.md): the latest run of each,
// "Slack ✓ 12:03 · provision ✗ exit 2", with its output behind "Show output" and "Run again". The
// output and details were cleaned by the main process; they are still rendered only as text.
import { useState } from 'react';
import { type AutomationRun, type RunState, runOutcome } from '../../preload/automations';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { ErrorAlert } from './ErrorAlert';
import { Time } from './Time';

const MARKS: Record<RunState, { mark: string; words: string }> = {
  succeeded: { mark: '✓', words: 'succeeded' },
  failed: { mark: '✗', words: 'failed' },
  queued: { mark: '…', words: 'waiting to run' },
  running: { mark: '…', words: 'running' },
  skipped: { mark: '–', words: 'skipped' },
};

/** The latest run of each automation, in the order they first ran. */
function latestRuns(runs: readonly AutomationRun[]): AutomationRun[] {
  const latest = new Map<string, AutomationRun>();
  for (const run of runs) latest.set(run.automation, run);
  return [...latest.values()];
}

export function AutomationRuns({
  orderId,
  account,
  runs,
  onRan,
  allowed,
}: {
  orderId: string;
  /** The order's account (its id): it runs again there. */
  account?: string | undefined;
  runs: AutomationRun[];
  onRan: () => void;
  /** Whether automations may run on this computer: a policy may forbid them (no Run again then). */
  allowed: boolean;
}) {
  const bridge = useBridge();
  const [error, setError] = useState<Explained | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  if (runs.length === 0) return null;

  async function runAgain(automation: string): Promise<void> {
    setStarting(automation);
    try {
      await call(bridge, 'runAutomation', { orderId, automation, account });
      onRan();
    } catch (failure) {
      setError(explained(failure));
    } finally {
      setStarting(null);
    }
  }

  return (
    <section aria-labelledby="automations-section">
      <h3 id="automations-section">Automations</h3>
      <ErrorAlert problem={error} onDismiss={() => setError(null)} />
      {!allowed && (
        <p className="muted">
          Your organization does not allow automations on this computer: they do not run here.
        </p>
      )}
      <ul className="automation-runs">
        {latestRuns(runs).map((run) => {
          const { mark, words } = MARKS[run.state];
          const busy = run.state === 'queued' || run.state === 'running';
          const { code, detail } = runOutcome(run);
          return (
            <li key={run.deliveryId} className={`automation-run run-${run.state}`}>
              <span className="automation-name">{run.automation}</span> <span aria-hidden="true">{mark}</span>
              {/* Under way, both marks are "…": whether it waits (for a slot, minutes maybe) or runs is said in words. */}
              {busy && ' '}
              <span className={busy ? 'muted' : 'sr-only'}>{words}</span>{' '}
              {(run.finishedAt ?? run.startedAt) && <Time iso={run.finishedAt ?? run.startedAt ?? ''} />}
              {code && <> · {code}</>}
              {detail && <span className="muted"> — {detail}</span>}
              {run.output && (
                <details>
                  <summary>Show output</summary>
                  <pre className="automation-output">{run.output}</pre>
                </details>
              )}
              {allowed && (
                <>
                  {/* Apart from the time or detail before it (at a line's start, under the output, the space folds away). */}{' '}
                  <button
                    type="button"
                    className="link-button"
                    disabled={busy || starting === run.automation}
                    onClick={() => void runAgain(run.automation)}
                  >
                    Run again<span className="sr-only"> {run.automation}</span>
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
