// The header and status bar: where the app is (Inbox, Needs attention, Insights, Settings, Help: the screen's
// one h1 names it), whether it reaches the marketplace, when it last read it ("Checked 1 min ago",
// renewed by the window's clock; "Last read 3 min ago" while polls fail, for they tried but read
// nothing, and "Not read for 20 min" marked as a warning when too long ago),
// what is still to be sent; Pause
// (notifications) and Check now, which says what it found. Serving several accounts, it says each
// one's state instead (connected, down and why in the banner, paused, credentials rejected,
// checked how long ago). Compact, so that with a banner it takes at most a quarter of a tray-sized
// window.
import { type ReactNode, useEffect, useState } from 'react';
import type { AppState } from '../../preload/contract';
import { attentionTotal } from '../../preload/model';
import { servedAccounts } from '../../preload/served-account';
import { checkFoundText, lastReadText, servedAccountText } from '../../preload/status-words';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { formatWhen, noAnswer, plural, standingLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { PauseMenu, pauseEnd } from './PauseControl';

export type Page = 'inbox' | 'attention' | 'insights' | 'settings' | 'help';

/** How long what Check now found stays said. */
const FOUND_SHOWN_MS = 8_000;

export function Header({
  state,
  screen,
  page,
  onNavigate,
  onState,
  onError,
  popover = false,
}: {
  state: AppState;
  /** The screen's name (Inbox, Order, Settings): with the app's name, the screen's one h1. */
  screen: string;
  /** The page shown; an open order belongs to the inbox. */
  page: Page;
  onNavigate: (page: Page) => void;
  onState: (state: AppState) => void;
  onError: (problem: { message: string; details: readonly string[] }) => void;
  /** Shown as the tray popover (the desktop app): it offers the full-size window. */
  popover?: boolean;
}) {
  const bridge = useBridge();
  const now = useNow();
  const attention = attentionTotal(state.attention);
  const stale = state.health !== 'healthy';
  const waiting = noAnswer(state);
  const accounts = servedAccounts(state.accounts);
  const [checking, setChecking] = useState(false);
  const [found, setFound] = useState<string | null>(null);
  useEffect(() => {
    if (found === null) return;
    const timer = setTimeout(() => setFound(null), FOUND_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [found]);

  async function openInWindow(): Promise<void> {
    try {
      await call(bridge, 'openInWindow', undefined);
    } catch (failure) {
      onError(explained(failure));
    }
  }

  async function checkNow(): Promise<void> {
    setChecking(true);
    setFound(null);
    try {
      const result = await call(bridge, 'checkNow', undefined);
      onState(result.state);
      setFound(checkFoundText(result));
    } catch (failure) {
      onError(explained(failure));
    } finally {
      setChecking(false);
    }
  }

  return (
    <header className="app-header">
      <div className="header-top">
        <h1 className="brand">
          Seller Tray<span className="sr-only">: {screen}</span>
        </h1>
        <nav aria-label="Main">
          <NavButton to="inbox" page={page} onNavigate={onNavigate}>
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
          </NavButton>
          <NavButton to="attention" page={page} onNavigate={onNavigate}>
            <span className="nav-first-word">Needs </span>
            <span className="nav-last-word">attention</span>
            {attention > 0 && (
              <>
                {' '}
                <span className="count count-attention">
                  {attention}
                  <span className="sr-only"> items</span>
                </span>
              </>
            )}
          </NavButton>
          <NavButton to="insights" page={page} onNavigate={onNavigate}>
            <span className="nav-word">Insights</span>
            <InsightsMark />
          </NavButton>
          <NavButton to="settings" page={page} onNavigate={onNavigate}>
            <span className="nav-word">Settings</span>
            <SettingsMark />
          </NavButton>
          <NavButton to="help" page={page} onNavigate={onNavigate} keys="?">
            <span className="nav-word">Help</span>
            <span className="nav-mark" aria-hidden="true">
              ?
            </span>
          </NavButton>
        </nav>
        <PauseMenu state={state} onState={onState} />
        <button type="button" onClick={() => void checkNow()} disabled={checking}>
          {checking ? 'Checking…' : 'Check now'}
        </button>
      </div>
      <ul className="status-bar" aria-label="Status">
        {accounts.length === 0 ? (
          <>
            <li
              className={`connection connection-${waiting ? 'no-answer' : state.connection}`}
              aria-live="polite"
            >
              <span className="dot" aria-hidden="true" />
              {standingLabel(state)}
            </li>
            <li className={stale ? 'checked checked-stale' : 'checked'}>
              {stale && <span aria-hidden="true">⚠ </span>}
              {/* Its banner, under the header, may say it keeps trying: not said twice in a tray-sized window's room. */}
              {lastReadText(state, now, true)}
              {state.lastSuccessfulPoll && (
                <span className="sr-only"> (last read at {formatWhen(state.lastSuccessfulPoll, now)})</span>
              )}
            </li>
          </>
        ) : (
          accounts.map((account) => {
            const late = account.health !== 'healthy';
            return (
              <li
                key={account.id}
                className={`connection account-state connection-${noAnswer(account) ? 'no-answer' : account.connection}${late ? ' checked-stale' : ''}`}
              >
                <span className="dot" aria-hidden="true" />
                <span>
                  <strong className="account-state-label">{account.label}</strong>{' '}
                  {late && <span aria-hidden="true">⚠ </span>}
                  {servedAccountText(account, now, (until) => pauseEnd(until, now))}
                </span>
              </li>
            );
          })
        )}
        {state.pendingOutbox > 0 && <li>{plural(state.pendingOutbox, 'status', 'statuses')} to send</li>}
        <li className="check-found">
          <span role="status">{found}</span>
        </li>
        {popover && (
          <li className="open-in-window">
            <button type="button" className="link-button" onClick={() => void openInWindow()}>
              Open in a window
            </button>
          </li>
        )}
      </ul>
    </header>
  );
}

/** One of the header's places: marked as the current page when it is shown. */
function NavButton({
  to,
  page,
  onNavigate,
  keys,
  children,
}: {
  to: Page;
  page: Page;
  onNavigate: (page: Page) => void;
  /** The key that opens it anywhere, said to assistive technology. */
  keys?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="nav-button"
      aria-current={page === to ? 'page' : undefined}
      aria-keyshortcuts={keys}
      onClick={() => onNavigate(to)}
    >
      {children}
    </button>
  );
}

/** Insights as a tray-sized header shows it: three bars (the word is still read out). */
function InsightsMark() {
  return (
    <svg className="nav-mark nav-icon" viewBox="0 0 14 14" width="14" height="14" aria-hidden="true">
      <rect x="1" y="7" width="3" height="6" />
      <rect x="5.5" y="2" width="3" height="11" />
      <rect x="10" y="5" width="3" height="8" />
    </svg>
  );
}

/** Settings as a tray-sized header shows it: three sliders (the word is still read out). */
function SettingsMark() {
  return (
    <svg className="nav-mark nav-icon" viewBox="0 0 14 14" width="14" height="14" aria-hidden="true">
      <path d="M1 3h12M1 7h12M1 11h12" strokeWidth="1.5" />
      <circle cx="4" cy="3" r="1.8" />
      <circle cx="10" cy="7" r="1.8" />
      <circle cx="6" cy="11" r="1.8" />
    </svg>
  );
}
