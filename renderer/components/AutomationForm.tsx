// Settings → Automations: one automation added or edited. Its name (kept once saved: it names its
// runs and its secret), whether it is on, which orders (products, order types) and accounts it runs
// for, its action (a command as a list of arguments, never a shell line; a webhook's address) and
// whether its result reports the status. The main process checks it with the settings file's
// rules and answers each problem at its field (automation-editing.ts); nothing is checked twice here.
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import {
  AUTOMATION_LIMITS,
  type AutomationAction,
  type AutomationSetting,
  type AutomationsView,
} from '../../preload/automations';
import type { AccountState } from '../../preload/contract';
import { asCodedError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { useCancelOnEscape } from '../hooks/useEscapeLayer';
import { ErrorAlert } from './ErrorAlert';

const ACTIONS: { value: AutomationAction['type']; label: string }[] = [
  { value: 'command', label: 'Run a command' },
  { value: 'webhook', label: 'Call a webhook (signed HTTPS POST)' },
  { value: 'slack', label: 'Post to a Slack channel' },
  { value: 'teams', label: 'Post to a Microsoft Teams channel' },
];

const REPORTS = [
  { value: '', label: 'No: a person marks the status' },
  { value: 'in-progress', label: 'Success marks In progress, failure Failed' },
  { value: 'completed', label: 'Success marks Completed, failure Failed' },
] as const;

/** The form as typed: lists one item a line, the time limit as text (the main process refuses what is no number). */
interface Draft {
  name: string;
  enabled: boolean;
  type: AutomationAction['type'];
  command: string[];
  cwd: string;
  timeoutSeconds: string;
  url: string;
  products: string;
  orderTypes: string;
  allAccounts: boolean;
  accounts: string[];
  reportStatus: '' | 'in-progress' | 'completed';
}

function draftOf(a: AutomationSetting | null): Draft {
  const action = a?.action;
  return {
    name: a?.name ?? '',
    enabled: a?.enabled ?? true,
    type: action?.type ?? 'command',
    command: action?.type === 'command' ? [...action.command] : [''],
    cwd: action?.type === 'command' ? (action.cwd ?? '') : '',
    timeoutSeconds: String(
      action?.type === 'command' ? action.timeoutSeconds : AUTOMATION_LIMITS.timeoutSeconds.default,
    ),
    url: action?.type === 'webhook' ? action.url : '',
    products: (a?.products ?? []).join('\n'),
    orderTypes: (a?.orderTypes ?? []).join('\n'),
    allAccounts: !a || a.accounts === 'all',
    accounts: a && a.accounts !== 'all' ? [...a.accounts] : [],
    reportStatus: a?.reportStatus ?? '',
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The automation the draft describes, for the main process to check. */
function automationOf(d: Draft): AutomationSetting {
  const whole = d.timeoutSeconds.trim();
  const action: AutomationAction =
    d.type === 'command'
      ? {
          type: 'command',
          command: d.command,
          ...(d.cwd.trim() === '' ? {} : { cwd: d.cwd.trim() }),
          // Not a number: sent as typed, for the main process to refuse in words.
          timeoutSeconds: /^\d+$/.test(whole) ? Number(whole) : (whole as unknown as number),
        }
      : d.type === 'webhook'
        ? { type: 'webhook', url: d.url.trim() }
        : { type: d.type };
  return {
    name: d.name.trim(),
    enabled: d.enabled,
    products: lines(d.products),
    orderTypes: lines(d.orderTypes),
    accounts: d.allAccounts ? 'all' : d.accounts,
    action,
    reportStatus: d.reportStatus === '' ? null : d.reportStatus,
  };
}

/** Where the main process's field of a problem shows in this form. */
function fieldOf(field: string): string {
  if (field.startsWith('action.command')) return 'command';
  if (field.startsWith('action.')) return field.slice('action.'.length);
  return field;
}

export function AutomationForm({
  editing,
  accounts,
  onSaved,
  onCancel,
}: {
  /** The automation edited; null adds one. */
  editing: AutomationSetting | null;
  accounts: readonly AccountState[];
  onSaved: (view: AutomationsView, name: string) => void;
  onCancel: () => void;
}) {
  const bridge = useBridge();
  const id = useId();
  const [draft, setDraft] = useState(() => draftOf(editing));
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<ReadonlyMap<string, string>>(new Map());
  const [problem, setProblem] = useState<{ message: string; details?: readonly string[] } | null>(null);
  const update = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  // Opened in place of its button: the keyboard goes on in the form.
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  useCancelOnEscape(busy, onCancel);

  async function save(event: FormEvent): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    setFields(new Map());
    const automation = automationOf(draft);
    try {
      const request = editing ? { automation, replaces: editing.name } : { automation };
      onSaved(await call(bridge, 'saveAutomation', request), automation.name);
    } catch (failure) {
      const error = asCodedError(failure);
      const known = new Map<string, string>();
      for (const f of error.fields) {
        const field = fieldOf(f.field);
        known.set(field, known.has(field) ? `${known.get(field)}; ${f.message}` : f.message);
      }
      setFields(known);
      setProblem({
        message: known.size > 0 ? 'The automation was not saved: see the fields marked.' : error.message,
        details: error.details,
      });
    } finally {
      setBusy(false);
    }
  }

  /** A field's input attributes and its refusal under it. */
  const field = (name: string) => {
    const message = fields.get(name);
    const errorId = `${id}-${name}-error`;
    return {
      input: {
        id: `${id}-${name}`,
        'aria-invalid': message ? true : undefined,
        'aria-describedby': message ? errorId : undefined,
      },
      error: message ? (
        <p className="error-text field-error" id={errorId}>
          {message}
        </p>
      ) : null,
    };
  };
  const name = field('name');
  const command = field('command');
  const cwd = field('cwd');
  const timeout = field('timeoutSeconds');
  const url = field('url');
  const products = field('products');
  const orderTypes = field('orderTypes');
  const accountsField = field('accounts');
  const title = editing ? `Edit ${editing.name}` : 'Add an automation';

  return (
    <form className="form automation-form" noValidate aria-label={title} onSubmit={(e) => void save(e)}>
      <h4>{title}</h4>
      <label htmlFor={name.input.id}>Name</label>
      <input
        {...name.input}
        ref={nameRef}
        type="text"
        spellCheck={false}
        maxLength={AUTOMATION_LIMITS.nameMax}
        readOnly={editing !== null}
        aria-describedby={[name.input['aria-describedby'], `${id}-name-hint`].filter(Boolean).join(' ')}
        value={draft.name}
        onChange={(e) => update({ name: e.target.value })}
      />
      <p className="hint" id={`${id}-name-hint`}>
        {editing
          ? 'A name stays: it names the runs and the secret. Remove the automation and add another to rename it.'
          : `Letters, digits, spaces, dots, dashes and underscores, at most ${AUTOMATION_LIMITS.nameMax}: it names each run and each status it reports.`}
      </p>
      {name.error}
      <div className="check">
        <input
          id={`${id}-enabled`}
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => update({ enabled: e.target.checked })}
        />
        <label htmlFor={`${id}-enabled`}>On: runs for each new order it is for</label>
      </div>

      <Choice
        id={`${id}-type`}
        label="When a new order arrives"
        choices={ACTIONS}
        value={draft.type}
        onChange={(type) => update({ type })}
      />
      {draft.type === 'command' && (
        <>
          <fieldset
            className="argument-list"
            aria-describedby={`${id}-command-hint ${command.input['aria-describedby'] ?? ''}`.trim()}
          >
            <legend>Command</legend>
            <p className="hint" id={`${id}-command-hint`}>
              The program, then each argument on its own: no shell reads them. The order comes as JSON on
              standard input.
            </p>
            <ol>
              {draft.command.map((argument, index) => (
                // The arguments have no identity but their place.
                // biome-ignore lint/suspicious/noArrayIndexKey: a list edited in place
                <li key={index}>
                  <label htmlFor={`${id}-argument-${index}`}>
                    {index === 0 ? 'Program' : `Argument ${index}`}
                  </label>
                  <input
                    id={`${id}-argument-${index}`}
                    type="text"
                    spellCheck={false}
                    aria-invalid={command.input['aria-invalid']}
                    value={argument}
                    onChange={(e) =>
                      update({ command: draft.command.map((a, i) => (i === index ? e.target.value : a)) })
                    }
                  />
                  {draft.command.length > 1 && (
                    <button
                      type="button"
                      onClick={() => update({ command: draft.command.filter((_, i) => i !== index) })}
                    >
                      Remove
                      <span className="sr-only"> {index === 0 ? 'the program' : `argument ${index}`}</span>
                    </button>
                  )}
                </li>
              ))}
            </ol>
            <button type="button" onClick={() => update({ command: [...draft.command, ''] })}>
              Add an argument
            </button>
            {command.error}
          </fieldset>
          <Labelled label="Working folder (optional)" id={cwd.input.id}>
            <input
              {...cwd.input}
              type="text"
              spellCheck={false}
              placeholder="the account's automations folder"
              value={draft.cwd}
              onChange={(e) => update({ cwd: e.target.value })}
            />
          </Labelled>
          {cwd.error}
          <Labelled label="Time limit (seconds)" id={timeout.input.id}>
            <input
              {...timeout.input}
              type="number"
              inputMode="numeric"
              min={AUTOMATION_LIMITS.timeoutSeconds.min}
              max={AUTOMATION_LIMITS.timeoutSeconds.max}
              step={1}
              value={draft.timeoutSeconds}
              onChange={(e) => update({ timeoutSeconds: e.target.value })}
            />
          </Labelled>
          {timeout.error}
        </>
      )}
      {draft.type === 'webhook' && (
        <>
          <Labelled label="Webhook address" id={url.input.id}>
            <input
              {...url.input}
              type="url"
              inputMode="url"
              spellCheck={false}
              placeholder="https://hooks.example.com/seller-tray"
              value={draft.url}
              onChange={(e) => update({ url: e.target.value })}
            />
          </Labelled>
          <p className="hint">
            HTTPS; plain http:// only to this computer. Its signing secret is set once saved.
          </p>
          {url.error}
        </>
      )}
      {(draft.type === 'slack' || draft.type === 'teams') && (
        <p className="hint">
          The channel's incoming-webhook address is a credential: it is set once saved, into the keychain.
        </p>
      )}

      <Lines
        field={products}
        label="Only for these products (one a line; empty: every product)"
        value={draft.products}
        onChange={(products) => update({ products })}
      />
      <p className="hint">The seller's item id or the product's name, in any case.</p>
      <Lines
        field={orderTypes}
        label="Only for these order types (one a line; empty: every type)"
        value={draft.orderTypes}
        onChange={(orderTypes) => update({ orderTypes })}
      />

      {/* One account: every account is it (a list chosen earlier still shows, to be changed). */}
      {(accounts.length > 1 || (accounts.length > 0 && !draft.allAccounts)) && (
        <fieldset aria-describedby={accountsField.input['aria-describedby']}>
          <legend>Accounts</legend>
          <div className="check">
            <input
              id={`${id}-all-accounts`}
              type="radio"
              name={`${id}-accounts`}
              checked={draft.allAccounts}
              onChange={() => update({ allAccounts: true })}
            />
            <label htmlFor={`${id}-all-accounts`}>Every account's new orders</label>
          </div>
          <div className="check">
            <input
              id={`${id}-some-accounts`}
              type="radio"
              name={`${id}-accounts`}
              checked={!draft.allAccounts}
              onChange={() => update({ allAccounts: false })}
            />
            <label htmlFor={`${id}-some-accounts`}>Only these accounts' new orders:</label>
          </div>
          {accounts.map((account) => (
            <div className="check nested" key={account.id}>
              <input
                id={`${id}-account-${account.id}`}
                type="checkbox"
                disabled={draft.allAccounts}
                checked={draft.allAccounts || draft.accounts.includes(account.id)}
                onChange={(e) =>
                  update({
                    accounts: e.target.checked
                      ? [...draft.accounts, account.id]
                      : draft.accounts.filter((a) => a !== account.id),
                  })
                }
              />
              <label htmlFor={`${id}-account-${account.id}`}>{account.label}</label>
            </div>
          ))}
          {accountsField.error}
        </fieldset>
      )}

      <Choice
        id={`${id}-report`}
        label="Report the status"
        choices={REPORTS}
        value={draft.reportStatus}
        onChange={(reportStatus) => update({ reportStatus })}
      />

      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save automation'}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />
    </form>
  );
}

/** A labelled list edited one item a line, its refusal under it. */
function Lines(props: {
  field: { input: { id: string }; error: ReactNode };
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <>
      <label htmlFor={props.field.input.id}>{props.label}</label>
      <textarea
        {...props.field.input}
        rows={2}
        spellCheck={false}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.field.error}
    </>
  );
}

/** A labelled choice among fixed values. */
function Choice<T extends string>(props: {
  id: string;
  label: string;
  choices: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value as T)}>
        {props.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </>
  );
}

function Labelled({ label, id, children }: { label: string; id: string; children: ReactNode }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {children}
    </>
  );
}
