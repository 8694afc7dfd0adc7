// Every setting of the Settings schema: the account (base URL, client id), how often to
// check, notifications and their pause, reminders, the name statuses are marked with and the
// time to undo one, opening at login, and whether this is the demo (read-only: starting the
// demo or entering an account changes it). The service
// validates; its message is shown next to the form. The secret is write-only (SecretField).
// Below the form: the pause, the secret, Diagnose connection and the log file's folder.
import { type FormEvent, useEffect, useId, useState } from 'react';
import { type AppState, LIMITS } from '../../preload/contract';
import { ACTOR_NAME_MAX } from '../../preload/marked-by';
import {
  ESCALATE_AFTER_MINUTES,
  MAX_CLIENT_ID_LENGTH,
  POLL_INTERVAL_SECONDS,
  REMINDER_AFTER_MINUTES,
  type Settings,
  STALE_IN_PROGRESS_DAYS,
  UNDO_SECONDS,
} from '../../preload/model';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { SECRET_BINDING, sameMarketplace } from '../marketplace-origin';
import { AboutPanel } from './AboutPanel';
import { LeaveDemoButton } from './DemoBanner';
import { DiagnosePanel } from './DiagnosePanel';
import { ErrorAlert } from './ErrorAlert';
import { INBOX_SORT_CHOICES } from './inbox-query';
import { LogFolderPanel } from './LogFolderPanel';
import { PauseControl } from './PauseControl';
import { SecretField } from './SecretField';

interface Draft {
  baseUrl: string;
  clientId: string;
  pollIntervalSeconds: string;
  notificationsEnabled: boolean;
  reminderAfterMinutes: string;
  escalateAfterMinutes: string;
  staleInProgressDays: string;
  inboxSort: Settings['inboxSort'];
  actorName: string;
  undoSeconds: string;
  openAtLogin: boolean;
  checkForUpdatesAutomatically: boolean;
}

function draftOf(settings: Settings): Draft {
  return {
    baseUrl: settings.baseUrl,
    clientId: settings.clientId,
    pollIntervalSeconds: String(settings.pollIntervalSeconds),
    notificationsEnabled: settings.notificationsEnabled,
    reminderAfterMinutes: String(settings.reminderAfterMinutes),
    escalateAfterMinutes: String(settings.escalateAfterMinutes),
    staleInProgressDays: String(settings.staleInProgressDays),
    inboxSort: settings.inboxSort,
    actorName: settings.actorName,
    undoSeconds: String(settings.undoSeconds),
    openAtLogin: settings.openAtLogin,
    checkForUpdatesAutomatically: settings.checkForUpdatesAutomatically,
  };
}

/** A whole number as a number; anything else as typed, for the service to refuse in words. */
function numberOf(text: string): number | string {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
}

/** The settings the user changed, and only those: an unchanged account is not reconnected. */
function changes(settings: Settings, draft: Draft): Record<string, unknown> {
  const next: Record<string, unknown> = {
    baseUrl: draft.baseUrl.trim(),
    clientId: draft.clientId.trim(),
    pollIntervalSeconds: numberOf(draft.pollIntervalSeconds),
    notificationsEnabled: draft.notificationsEnabled,
    reminderAfterMinutes: numberOf(draft.reminderAfterMinutes),
    escalateAfterMinutes: numberOf(draft.escalateAfterMinutes),
    staleInProgressDays: numberOf(draft.staleInProgressDays),
    inboxSort: draft.inboxSort,
    actorName: draft.actorName.trim(),
    undoSeconds: numberOf(draft.undoSeconds),
    openAtLogin: draft.openAtLogin,
    checkForUpdatesAutomatically: draft.checkForUpdatesAutomatically,
  };
  return Object.fromEntries(
    Object.entries(next).filter(([key, value]) => settings[key as keyof Settings] !== value),
  );
}

/** A refusal as the form shows it: each field's message at its field, the rest above Save. */
interface Refusal {
  message: string;
  details: readonly string[];
  fields: ReadonlyMap<string, string>;
}

export function SettingsView({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const id = useId();
  const ids = {
    heading: `${id}-heading`,
    baseUrl: `${id}-base-url`,
    clientId: `${id}-client-id`,
    accountHint: `${id}-account-hint`,
    poll: `${id}-poll`,
    notifications: `${id}-notifications`,
    reminder: `${id}-reminder`,
    escalate: `${id}-escalate`,
    stale: `${id}-stale`,
    sort: `${id}-sort`,
    actorName: `${id}-actor-name`,
    actorHint: `${id}-actor-hint`,
    undo: `${id}-undo`,
    login: `${id}-login`,
    updates: `${id}-updates`,
    error: `${id}-error`,
  };

  useEffect(() => {
    let current = true;
    call(bridge, 'getSettings', undefined).then(
      (loaded) => {
        if (!current) return;
        setSettings(loaded);
        setDraft(draftOf(loaded));
      },
      (failure: unknown) => {
        if (current) setError(refusalOf(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [bridge]);

  async function save(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (!settings || !draft) return;
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const stored = await call(bridge, 'setSettings', changes(settings, draft));
      setSettings(stored);
      setDraft(draftOf(stored));
      setSaved('Settings saved.');
    } catch (failure) {
      setError(refusalOf(failure));
    } finally {
      setBusy(false);
    }
  }

  const update = (patch: Partial<Draft>) => {
    setSaved(null);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };
  /** The refusal's message for a field, and the id it is shown under. */
  const fieldError = (field: keyof Draft) => {
    const message = error?.fields.get(field);
    return message === undefined ? undefined : { message, id: `${id}-${field}-error` };
  };
  const accountError = fieldError('baseUrl') ?? fieldError('clientId');

  return (
    <section className="settings" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Settings</h2>
      {!draft || !settings ? (
        error ? (
          <ErrorAlert problem={error} />
        ) : (
          <p role="status">Loading the settings…</p>
        )
      ) : (
        <>
          <form
            className="form"
            noValidate
            aria-label="Settings"
            aria-describedby={error ? ids.error : undefined}
            onSubmit={(e) => void save(e)}
          >
            <h3>Marketplace</h3>
            <label htmlFor={ids.baseUrl}>Base URL</label>
            <input
              id={ids.baseUrl}
              aria-describedby={describedBy(ids.accountHint, fieldError('baseUrl')?.id)}
              aria-invalid={fieldError('baseUrl') ? true : undefined}
              type="url"
              inputMode="url"
              maxLength={LIMITS.baseUrl}
              value={draft.baseUrl}
              onChange={(e) => update({ baseUrl: e.target.value })}
            />
            <FieldError error={fieldError('baseUrl')} />
            <label htmlFor={ids.clientId}>Client id</label>
            <input
              id={ids.clientId}
              aria-describedby={fieldError('clientId')?.id}
              aria-invalid={fieldError('clientId') ? true : undefined}
              type="text"
              spellCheck={false}
              maxLength={MAX_CLIENT_ID_LENGTH}
              value={draft.clientId}
              onChange={(e) => update({ clientId: e.target.value })}
            />
            <FieldError error={fieldError('clientId')} />
            <p className="hint" id={ids.accountHint}>
              {!settings.demoMode &&
                settings.baseUrl !== '' &&
                !accountError &&
                (!sameMarketplace(draft.baseUrl, settings.baseUrl) ||
                  draft.clientId.trim() !== settings.clientId) &&
                `${SECRET_BINDING} After this change it asks for the secret again.`}
            </p>
            {settings.demoMode && (
              <div className="demo-note">
                <p className="muted">
                  Demo mode is on: Seller Tray runs on the built-in demo marketplace. Leave it, or enter your
                  own base URL and client id.
                </p>
                <LeaveDemoButton onState={onState} />
              </div>
            )}

            <h3>Checking and notifications</h3>
            <WholeNumberField
              id={ids.poll}
              label="Check interval (seconds)"
              limits={{ min: POLL_INTERVAL_SECONDS.min, max: POLL_INTERVAL_SECONDS.max }}
              value={draft.pollIntervalSeconds}
              onChange={(value) => update({ pollIntervalSeconds: value })}
              hint={`How often Seller Tray asks the marketplace for new orders: ${POLL_INTERVAL_SECONDS.min} to ${POLL_INTERVAL_SECONDS.max} seconds (1 hour).`}
              error={fieldError('pollIntervalSeconds')}
            />
            <div className="check">
              <input
                id={ids.notifications}
                type="checkbox"
                checked={draft.notificationsEnabled}
                onChange={(e) => update({ notificationsEnabled: e.target.checked })}
              />
              <label htmlFor={ids.notifications}>Show a notification for each new order</label>
            </div>
            <WholeNumberField
              id={ids.reminder}
              label="Reminder delay (minutes)"
              limits={{ min: REMINDER_AFTER_MINUTES.off, max: REMINDER_AFTER_MINUTES.max }}
              value={draft.reminderAfterMinutes}
              onChange={(value) => update({ reminderAfterMinutes: value })}
              hint={`Remind me of an order still waiting after this long; the inbox marks it late then, and very late after twice as long. 0 turns reminders off; otherwise ${REMINDER_AFTER_MINUTES.min} minutes to ${REMINDER_AFTER_MINUTES.max / 1440} days (${REMINDER_AFTER_MINUTES.max} minutes).`}
              error={fieldError('reminderAfterMinutes')}
            />
            <WholeNumberField
              id={ids.escalate}
              label="Urgent after (minutes)"
              limits={{ min: ESCALATE_AFTER_MINUTES.off, max: ESCALATE_AFTER_MINUTES.max }}
              value={draft.escalateAfterMinutes}
              onChange={(value) => update({ escalateAfterMinutes: value })}
              hint={`A new order nobody started after this long is announced again, marked urgent, on every laptop (Needs attention can snooze it on this one). 0 never does; otherwise ${ESCALATE_AFTER_MINUTES.min} to ${ESCALATE_AFTER_MINUTES.max} minutes.`}
              error={fieldError('escalateAfterMinutes')}
            />

            <h3>Inbox</h3>
            <WholeNumberField
              id={ids.stale}
              label="In-progress limit (days)"
              limits={{ min: STALE_IN_PROGRESS_DAYS.off, max: STALE_IN_PROGRESS_DAYS.max }}
              value={draft.staleInProgressDays}
              onChange={(value) => update({ staleInProgressDays: value })}
              hint={`The inbox flags an order in progress for longer than this, and Needs attention lists it. 0 never flags one; otherwise 1 to ${STALE_IN_PROGRESS_DAYS.max} days.`}
              error={fieldError('staleInProgressDays')}
            />
            <label htmlFor={ids.sort}>Inbox order</label>
            <select
              id={ids.sort}
              value={draft.inboxSort}
              onChange={(e) => update({ inboxSort: e.target.value as Draft['inboxSort'] })}
            >
              {INBOX_SORT_CHOICES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>

            <h3>Marking statuses</h3>
            <label htmlFor={ids.actorName}>Your name</label>
            <input
              id={ids.actorName}
              type="text"
              autoComplete="name"
              maxLength={ACTOR_NAME_MAX}
              placeholder={settings.actorName === '' ? state.actorName : undefined}
              aria-describedby={describedBy(ids.actorHint, fieldError('actorName')?.id)}
              aria-invalid={fieldError('actorName') ? true : undefined}
              value={draft.actorName}
              onChange={(e) => update({ actorName: e.target.value })}
            />
            <p className="hint" id={ids.actorHint}>
              Written into each status you mark, so colleagues on other laptops see who did it: "Provisioning
              started by {draft.actorName.trim() || (settings.actorName === '' ? state.actorName : '') || '…'}
              ." Left empty, it is this computer's account name.
            </p>
            <FieldError error={fieldError('actorName')} />
            <WholeNumberField
              id={ids.undo}
              label="Time to undo (seconds)"
              limits={UNDO_SECONDS}
              value={draft.undoSeconds}
              onChange={(value) => update({ undoSeconds: value })}
              hint={`A status is sent to the marketplace after this; until then Undo takes it back. ${UNDO_SECONDS.min} sends at once; at most ${UNDO_SECONDS.max}.`}
              error={fieldError('undoSeconds')}
            />

            <h3>Start-up</h3>
            <div className="check">
              <input
                id={ids.login}
                type="checkbox"
                checked={draft.openAtLogin}
                onChange={(e) => update({ openAtLogin: e.target.checked })}
              />
              <label htmlFor={ids.login}>Open Seller Tray when I log in</label>
            </div>
            <div className="check">
              <input
                id={ids.updates}
                type="checkbox"
                checked={draft.checkForUpdatesAutomatically}
                onChange={(e) => update({ checkForUpdatesAutomatically: e.target.checked })}
              />
              <label htmlFor={ids.updates}>Check for updates automatically</label>
            </div>

            <div className="form-actions">
              <button type="submit" className="primary" disabled={busy}>
                {busy ? 'Saving…' : 'Save settings'}
              </button>
              <button
                type="button"
                disabled={busy}
                onClick={() => {
                  setDraft(draftOf(settings));
                  setError(null);
                  setSaved(null);
                }}
              >
                Undo changes
              </button>
            </div>
            <div id={ids.error}>
              {error && (
                <ErrorAlert
                  problem={{
                    message:
                      error.fields.size > 0
                        ? 'Some settings were not saved: see the fields marked above.'
                        : error.message,
                    details: error.details,
                  }}
                  onDismiss={() => setError(null)}
                />
              )}
            </div>
            <p role="status">{saved}</p>
          </form>
          <PauseControl state={state} onState={onState} />
          <SecretField state={state} onState={onState} />
          {state.setup !== 'unconfigured' && <DiagnosePanel />}
          <LogFolderPanel />
          <AboutPanel />
        </>
      )}
    </section>
  );
}

function refusalOf(failure: unknown): Refusal {
  const { message, details, fields } = asBridgeCallError(failure);
  return { message, details, fields: new Map(fields.map((f) => [f.field, f.message])) };
}

/** The ids an input is described by, those present. */
function describedBy(...ids: (string | undefined)[]): string | undefined {
  const present = ids.filter((i): i is string => !!i);
  return present.length > 0 ? present.join(' ') : undefined;
}

/** A field's own refusal, under it, tied to it by its id. */
function FieldError({ error }: { error: { message: string; id: string } | undefined }) {
  if (!error) return null;
  return (
    <p className="error-text field-error" id={error.id}>
      {error.message}
    </p>
  );
}

/** A labelled whole-number input with its allowed range said in a hint, and its refusal if any. */
function WholeNumberField(props: {
  id: string;
  label: string;
  limits: { min: number; max: number };
  value: string;
  onChange: (value: string) => void;
  hint: string;
  error: { message: string; id: string } | undefined;
}) {
  const hintId = `${props.id}-hint`;
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        inputMode="numeric"
        min={props.limits.min}
        max={props.limits.max}
        step={1}
        aria-describedby={describedBy(hintId, props.error?.id)}
        aria-invalid={props.error ? true : undefined}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <p id={hintId} className="hint">
        {props.hint}
      </p>
      <FieldError error={props.error} />
    </>
  );
}
