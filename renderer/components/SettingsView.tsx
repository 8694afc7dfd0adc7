// The Settings view: the form of every setting that shows in it, each drawn from its
// declaration (preload/settings-declaration.ts: its section, label, limits and hint), with the
// account (base URL, client id) and "Your name" drawn here, as they need more than their value.
// The service validates; its message is shown next to the form. A setting the organization's
// policies lock is shown disabled, with a lock and "Managed by your organization" (state.managed);
// the service refuses a change to it anyway. The secret is write-only (SecretField). Below the
// form: the accounts, the pause, the secret, Diagnose connection and the log file's folder.
import { type FormEvent, Fragment, type ReactNode, useEffect, useId, useState } from 'react';
import type { AppState } from '../../preload/contract';
import type { Settings } from '../../preload/model';
import {
  SETTING_ENTRIES,
  SETTINGS,
  SETTINGS_SECTIONS,
  type SettingKey,
} from '../../preload/settings-declaration';
import { asCodedError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { SECRET_BINDING, sameMarketplace } from '../marketplace-origin';
import { AboutPanel } from './AboutPanel';
import { AccountsPanel } from './AccountsPanel';
import { AutomationsPanel } from './AutomationsPanel';
import { LeaveDemoButton } from './DemoBanner';
import { DiagnosePanel } from './DiagnosePanel';
import { ErrorAlert } from './ErrorAlert';
import { LogFolderPanel } from './LogFolderPanel';
import { ManagedNote } from './ManagedNote';
import { PauseControl } from './PauseControl';
import { RunbooksPanel } from './RunbooksPanel';
import { SecretField } from './SecretField';
import { StatusExportPanel } from './StatusExportPanel';

/** The settings the form edits: those its declaration shows in the form. */
const FORM_KEYS = SETTING_ENTRIES.filter(
  ([, setting]) => setting.shows.in === 'form' || setting.shows.in === 'form-own-control',
).map(([key]) => key);

/** The form's values as typed: whole numbers as text (the service refuses what is no number). */
type Draft = Partial<Record<SettingKey, string | boolean>>;

function draftOf(settings: Settings): Draft {
  return Object.fromEntries(
    FORM_KEYS.map((key) => {
      const value = settings[key];
      return [key, SETTINGS[key].type === 'whole' ? String(value) : (value as string | boolean)];
    }),
  );
}

/** A whole number as a number; anything else as typed, for the service to refuse in words. */
function numberOf(text: string): number | string {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
}

/** The settings the user changed, and only those: an unchanged account is not reconnected. */
function changes(settings: Settings, draft: Draft): Record<string, unknown> {
  const next = FORM_KEYS.map((key): [SettingKey, unknown] => {
    const value = draft[key];
    if (typeof value !== 'string') return [key, value];
    return [key, SETTINGS[key].type === 'whole' ? numberOf(value) : value.trim()];
  });
  return Object.fromEntries(next.filter(([key, value]) => settings[key] !== value));
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
    accountHint: `${id}-account-hint`,
    actorHint: `${id}-actor-hint`,
    error: `${id}-error`,
  };
  /** The input of a setting. */
  const inputId = (key: SettingKey) => `${id}-${key}`;

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
  const fieldError = (field: SettingKey) => {
    const message = error?.fields.get(field);
    return message === undefined ? undefined : { message, id: `${id}-${field}-error` };
  };
  const accountError = fieldError('baseUrl') ?? fieldError('clientId');

  /** The controls of the settings that need more than their value: the account and "Your name". */
  const ownControl = (key: SettingKey): ReactNode => {
    if (!draft || !settings) return null;
    const text = (k: SettingKey) => String(draft[k] ?? '');
    switch (key) {
      case 'baseUrl':
        return (
          <>
            <label htmlFor={inputId(key)}>{SETTINGS.baseUrl.label}</label>
            <input
              id={inputId(key)}
              aria-describedby={describedBy(ids.accountHint, fieldError(key)?.id)}
              aria-invalid={fieldError(key) ? true : undefined}
              type="url"
              inputMode="url"
              maxLength={SETTINGS.baseUrl.maxLength}
              value={text(key)}
              onChange={(e) => update({ baseUrl: e.target.value })}
            />
            <FieldError error={fieldError(key)} />
          </>
        );
      case 'clientId':
        return (
          <>
            <label htmlFor={inputId(key)}>{SETTINGS.clientId.label}</label>
            <input
              id={inputId(key)}
              aria-describedby={fieldError(key)?.id}
              aria-invalid={fieldError(key) ? true : undefined}
              type="text"
              spellCheck={false}
              maxLength={SETTINGS.clientId.maxLength}
              value={text(key)}
              onChange={(e) => update({ clientId: e.target.value })}
            />
            <FieldError error={fieldError(key)} />
            <p className="hint" id={ids.accountHint}>
              {!settings.demoMode &&
                settings.baseUrl !== '' &&
                !accountError &&
                (!sameMarketplace(text('baseUrl'), settings.baseUrl) ||
                  text('clientId').trim() !== settings.clientId) &&
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
          </>
        );
      case 'actorName':
        return (
          <>
            <label htmlFor={inputId(key)}>{SETTINGS.actorName.label}</label>
            <input
              id={inputId(key)}
              type="text"
              autoComplete="name"
              maxLength={SETTINGS.actorName.maxLength}
              placeholder={settings.actorName === '' ? state.actorName : undefined}
              aria-describedby={describedBy(ids.actorHint, fieldError(key)?.id)}
              aria-invalid={fieldError(key) ? true : undefined}
              value={text(key)}
              onChange={(e) => update({ actorName: e.target.value })}
            />
            <p className="hint" id={ids.actorHint}>
              Written into each status you mark, so colleagues on other laptops see who did it: "Provisioning
              started by {text(key).trim() || (settings.actorName === '' ? state.actorName : '') || '…'}
              ." Left empty, it is this computer's account name.
            </p>
            <FieldError error={fieldError(key)} />
          </>
        );
      default:
        throw new Error(`The Settings view draws no control of its own for ${key}.`);
    }
  };

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
            {SETTINGS_SECTIONS.map((section) => (
              <Fragment key={section}>
                <h3>{section}</h3>
                {FORM_KEYS.filter((key) => sectionOf(key) === section).map((key) => (
                  <Lockable
                    key={key}
                    locked={state.managed.locked.includes(key)}
                    id={`${inputId(key)}-managed`}
                  >
                    {SETTINGS[key].shows.in === 'form-own-control' ? (
                      ownControl(key)
                    ) : (
                      <DeclaredField
                        setting={key}
                        id={inputId(key)}
                        value={draft[key]}
                        onChange={(value) => update({ [key]: value })}
                        error={fieldError(key)}
                        floor={
                          key === 'pollIntervalSeconds' ? state.managed.pollIntervalMinimumSeconds : null
                        }
                      />
                    )}
                  </Lockable>
                ))}
              </Fragment>
            ))}

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
          <AccountsPanel state={state} onState={onState} />
          <AutomationsPanel state={state} />
          <RunbooksPanel state={state} />
          <PauseControl state={state} onState={onState} />
          <SecretField state={state} onState={onState} />
          {state.setup !== 'unconfigured' && <DiagnosePanel />}
          {state.setup !== 'unconfigured' && <StatusExportPanel />}
          <LogFolderPanel />
          <AboutPanel />
        </>
      )}
    </section>
  );
}

function refusalOf(failure: unknown): Refusal {
  const { message, details, fields } = asCodedError(failure);
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

/** A setting as the form shows it: as it is, or, when a policy locks it, disabled under a lock. */
function Lockable({ locked, id, children }: { locked: boolean; id: string; children: ReactNode }) {
  if (!locked) return <>{children}</>;
  return (
    <fieldset className="managed-setting" disabled aria-describedby={id}>
      {children}
      <ManagedNote id={id} />
    </fieldset>
  );
}

/** Which section of the form a setting shows in, if any. */
function sectionOf(key: SettingKey): string | undefined {
  const { shows } = SETTINGS[key];
  return 'section' in shows ? shows.section : undefined;
}

/** A setting drawn as its declaration's type asks: a number, a checkbox, a choice or text. */
function DeclaredField(props: {
  setting: SettingKey;
  id: string;
  value: string | boolean | undefined;
  onChange: (value: string | boolean) => void;
  error: { message: string; id: string } | undefined;
  /** The least the organization allows, where it sets one. */
  floor?: number | null;
}) {
  const setting = SETTINGS[props.setting];
  const { shows } = setting;
  const hint = shows.in === 'form' ? shows.hint : undefined;
  switch (setting.type) {
    case 'whole': {
      const floor = props.floor ?? null;
      return (
        <WholeNumberField
          id={props.id}
          label={`${setting.label} (${setting.unit})`}
          limits={{ min: floor ?? setting.off ?? setting.min, max: setting.max }}
          value={String(props.value ?? '')}
          onChange={props.onChange}
          hint={`${hint ?? ''}${floor === null ? '' : ` Your organization allows no less than ${floor} ${setting.unit}.`}`}
          error={props.error}
        />
      );
    }
    case 'boolean':
      return (
        <>
          <div className="check">
            <input
              id={props.id}
              type="checkbox"
              checked={props.value === true}
              onChange={(e) => props.onChange(e.target.checked)}
              aria-describedby={hint ? `${props.id}-hint` : undefined}
            />
            <label htmlFor={props.id}>{(shows.in === 'form' && shows.text) || setting.label}</label>
          </div>
          {/* A switch with consequences says them (the automations run on each computer that has it on). */}
          {hint && (
            <p className="hint" id={`${props.id}-hint`}>
              {hint}
            </p>
          )}
        </>
      );
    case 'choice':
      return (
        <>
          <label htmlFor={props.id}>{setting.label}</label>
          <select id={props.id} value={String(props.value)} onChange={(e) => props.onChange(e.target.value)}>
            {setting.choices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </>
      );
    default:
      return (
        <>
          <label htmlFor={props.id}>{setting.label}</label>
          <input
            id={props.id}
            type="text"
            maxLength={'maxLength' in setting ? setting.maxLength : undefined}
            aria-describedby={props.error?.id}
            aria-invalid={props.error ? true : undefined}
            value={String(props.value ?? '')}
            onChange={(e) => props.onChange(e.target.value)}
          />
          <FieldError error={props.error} />
        </>
      );
  }
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
