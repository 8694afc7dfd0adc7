// Pausing notifications from where people are: a Pause menu in the header (1 hour, 4 hours,
// until tomorrow 08:00, until I resume), a banner with Resume while paused, and the same
// choices in Settings. New orders still come into the inbox while paused; those that came are
// summed up on resume. The choices are the tray menu's (preload/pause.ts). A pause that fails
// says so in plain words, its detail behind "Details": in the menu's panel and in Settings where
// it was asked for; the banner's goes to the app's problems, so the banners never grow.

import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { AppState } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { PAUSE_CHOICES, pausedUntil, pauseEndText } from '../../preload/pause';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { formatWhen } from '../format';
import { useEscapeLayer } from '../hooks/useEscapeLayer';
import { useNow } from '../hooks/useNow';
import { useRefusedChoice } from '../hooks/useRefusedChoice';
import type { BannerProps } from './banner';
import { ErrorAlert } from './ErrorAlert';

/** "until 14:30", "until Nov 22, 2026, 8:00 AM", or "until you resume them". */
export function pauseEnd(until: Date, now: number): string {
  return pauseEndText(until, (time) => formatWhen(time.toISOString(), now));
}

/**
 * The pause as the state has it, and a way to change it that says what went wrong: to `onError`
 * if given, else in `failureAlert`.
 */
function usePause(
  state: AppState,
  onState: (state: AppState) => void,
  onError?: (problem: Explained) => void,
) {
  const bridge = useBridge();
  const now = useNow();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Explained | null>(null);
  /** Whether the pause changed. */
  async function pause(until: Date | null): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      onState(
        await call(bridge, 'pauseNotifications', { until: until === null ? null : until.toISOString() }),
      );
      return true;
    } catch (failure) {
      (onError ?? setError)(explained(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }
  const dismissFailure = useCallback(() => setError(null), []);
  const failureAlert = <ErrorAlert problem={error} onDismiss={dismissFailure} />;
  return {
    until: pausedUntil(state.notificationsPausedUntil, now),
    now,
    busy,
    failureAlert,
    dismissFailure,
    pause,
  };
}

/** The header's Pause button: one click opens the choices, one more pauses. */
export function PauseMenu({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const { until, busy, failureAlert, dismissFailure, pause } = usePause(state, onState);
  const [open, setOpen] = useState(false);
  const refused = useRefusedChoice(busy);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);

  // The choices open afresh, without the failure of an earlier try.
  useEffect(() => {
    if (!open) return;
    dismissFailure();
    panelRef.current?.querySelector('button')?.focus();
    const closeOutside = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!panelRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('mousedown', closeOutside);
    return () => document.removeEventListener('mousedown', closeOutside);
  }, [open, dismissFailure]);

  function close(): void {
    setOpen(false);
    buttonRef.current?.focus();
  }

  useEscapeLayer(open, close);

  /**
   * Closes once the pause is made. A failed one leaves the choices open under its message, the
   * focus back on the choice (disabled while it ran), so it can be tried again or closed with Escape.
   */
  async function choose(to: Date | null, chosen: HTMLButtonElement): Promise<void> {
    refused(null);
    if (await pause(to)) close();
    else refused(chosen);
  }

  return (
    <div className="pause-menu">
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
      >
        {until ? 'Paused' : 'Pause'}
        <span className="sr-only"> notifications</span>
      </button>
      {/* A disclosure of plain buttons: Tab and Shift+Tab move through them, Escape closes. */}
      <div ref={panelRef} id={menuId} className="pause-panel" hidden={!open}>
        <p className="pause-panel-title">Pause notifications</p>
        <ul className="plain">
          {PAUSE_CHOICES.map((choice) => (
            <li key={choice.label}>
              <button
                type="button"
                disabled={busy}
                onClick={(e) => void choose(choice.until(new Date()), e.currentTarget)}
              >
                {choice.label}
              </button>
            </li>
          ))}
          {until && (
            <li>
              <button type="button" disabled={busy} onClick={(e) => void choose(null, e.currentTarget)}>
                Resume now
              </button>
            </li>
          )}
        </ul>
        {failureAlert}
      </div>
    </div>
  );
}

/** While paused: a banner that says until when, with Resume; a failed Resume goes to `onError`. */
export function PausedBanner({ state, onState, onError }: BannerProps) {
  const { until, now, busy, pause } = usePause(state, onState, onError);
  if (!until) return null;
  return (
    <div className="paused-banner" role="status">
      <span>
        Notifications paused {pauseEnd(until, now)}.
        <span className="paused-more"> New orders still arrive here.</span>
      </span>
      <button type="button" disabled={busy} onClick={() => void pause(null)}>
        Resume
      </button>
    </div>
  );
}

/** The same choices in Settings, with the pause said in full. */
export function PauseControl({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const { until, now, busy, failureAlert, pause } = usePause(state, onState);
  return (
    <fieldset className="pause-control">
      <legend>Pause notifications</legend>
      <p role="status">
        {until ? `Notifications are paused ${pauseEnd(until, now)}.` : 'Notifications are not paused.'}
      </p>
      <div className="button-row">
        {PAUSE_CHOICES.map((choice) => (
          <button
            key={choice.label}
            type="button"
            disabled={busy}
            onClick={() => void pause(choice.until(new Date()))}
          >
            {choice.label}
          </button>
        ))}
        <button type="button" disabled={busy || until === null} onClick={() => void pause(null)}>
          Resume notifications
        </button>
      </div>
      {failureAlert}
    </fieldset>
  );
}
