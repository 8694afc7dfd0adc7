// A run as just queued, never started, for tests that describe or show one (the fake bridge's
// runs, the CLI's words for a run): only what tells it apart is given.
import type { AutomationRun } from '../../preload/automations';

export function queuedRun(
  run: Pick<AutomationRun, 'deliveryId' | 'orderId' | 'automation' | 'trigger' | 'queuedAt'> &
    Partial<AutomationRun>,
): AutomationRun {
  return {
    state: 'queued',
    claimed: false,
    attempts: 0,
    dueAt: run.queuedAt,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    httpStatus: null,
    detail: null,
    output: null,
    ...run,
  };
}
