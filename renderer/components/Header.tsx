// The header and status bar: where the app is (Inbox, Settings), whether it reaches the
// marketplace, when it last did, what is still to be sent, whether notifications are
// paused; and "Check now".
import { useState } from 'react';
import type { AppState } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { connectionLabel, formatWhen, plural } from '../format';
import { useNow } from '../hooks/useNow';

export type Page = 'inbox' | 'settings';

export function Header({
  state,
  page,
  onNavigate,
  onState,
  onError,
}: {
  state: AppState;
  /** The page shown; an open order belongs to the inbox. */
  page: Page;
  onNavigate: (page: Page) => void;
  onState: (state: AppState) => void;
  onError: (problem: { message: string; details: readonly string[] }) => void;
}) {
  const bridge = useBridge();
  const now = useNow();
  const [checking, setChecking] = useState(false);

  async function checkNow(): Promise<void> {
    setChecking(true);
    try {
      onState(await call(bridge, 'checkNow', undefined));
    } catch (failure) {
      onError(asBridgeCallError(failure));
    } finally {
      setChecking(false);
    }
  }

  const paused = pausedUntil(state.notificationsPausedUntil, now);
  return (
    <header className="app-header">
      <div className="header-top">
        <span className="brand">
          Seller Tray{state.setup === 'demo' && <span className="badge">Demo</span>}
        </span>
        <nav aria-label="Main">
          <button
            type="button"
            className="nav-button"
            aria-current={page === 'inbox' ? 'page' : undefined}
            onClick={() => onNavigate('inbox')}
          >
            Inbox
            {state.waitingCount > 0 && (
              <>
                {' '}
                <span className="count">
                  {state.waitingCount}
                  <span className="sr-only"> waiting</span>
                </span>
              </>
            )}
          </button>
          <button
            type="button"
            className="nav-button"
            aria-current={page === 'settings' ? 'page' : undefined}
            onClick={() => onNavigate('settings')}
          >
            Settings
          </button>
        </nav>
        <button type="button" onClick={() => void checkNow()} disabled={checking}>
          {checking ? 'Checking…' : 'Check now'}
        </button>
      </div>
      <ul className="status-bar" aria-label="Status">
        <li className={`connection connection-${state.connection}`} aria-live="polite">
          <span className="dot" aria-hidden="true" />
          {connectionLabel(state.connection)}
        </li>
        <li>
          {state.lastSuccessfulPoll
            ? `Last checked ${formatWhen(state.lastSuccessfulPoll, now)}`
            : 'Not checked yet'}
        </li>
        <li>
          {state.pendingOutbox > 0
            ? `${plural(state.pendingOutbox, 'status', 'statuses')} to send`
            : 'Nothing to send'}
        </li>
        <li>{paused ? `Notifications paused until ${formatWhen(paused, now)}` : 'Notifications on'}</li>
      </ul>
    </header>
  );
}

/** The pause's end, if it is still ahead. */
function pausedUntil(until: string | null, now: number): string | null {
  if (!until) return null;
  const ms = Date.parse(until);
  return Number.isFinite(ms) && ms > now ? until : null;
}
