// Pausing notifications: for an hour, until tomorrow morning, or resuming them. New orders
// still come into the inbox while paused; those that came are summed up on resume.
import { useState } from 'react';
import type { AppState } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { formatWhen } from '../format';
import { useNow } from '../hooks/useNow';

/** "Until tomorrow" ends at this hour, local time. */
export const TOMORROW_HOUR = 8;

export function tomorrowMorning(now: number): Date {
  const date = new Date(now);
  date.setDate(date.getDate() + 1);
  date.setHours(TOMORROW_HOUR, 0, 0, 0);
  return date;
}

export function PauseControl({
  pausedUntil,
  onState,
}: {
  pausedUntil: string | null;
  onState: (state: AppState) => void;
}) {
  const bridge = useBridge();
  const now = useNow();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const until = pausedUntil && Date.parse(pausedUntil) > now ? pausedUntil : null;

  async function pause(to: Date | null): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      onState(await call(bridge, 'pauseNotifications', { until: to === null ? null : to.toISOString() }));
    } catch (failure) {
      setError(asBridgeCallError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <fieldset className="pause-control">
      <legend>Pause notifications</legend>
      <p role="status">
        {until
          ? `Notifications are paused until ${formatWhen(until, now)}.`
          : 'Notifications are not paused.'}
      </p>
      <div className="button-row">
        <button type="button" disabled={busy} onClick={() => void pause(new Date(Date.now() + 3_600_000))}>
          Pause for 1 hour
        </button>
        <button type="button" disabled={busy} onClick={() => void pause(tomorrowMorning(Date.now()))}>
          Pause until tomorrow, {TOMORROW_HOUR}:00
        </button>
        <button type="button" disabled={busy || until === null} onClick={() => void pause(null)}>
          Resume notifications
        </button>
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
