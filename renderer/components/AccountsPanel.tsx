// Settings → Accounts: every marketplace account this laptop serves, each with its label, where
// it is and how it stands; add one (its secret checked by the marketplace before it is saved),
// rename one, give one its current secret (reconnect: checked first, as an addition is), pause
// one's notifications alone (the header's choices; the others' and the app's pause untouched), remove
// one. Removing asks first; an account with statuses not yet sent is asked about a second time,
// naming them, before they are discarded. The first account is the one the form above edits and
// the inbox shows; the demo leaves through its own button. A form opened in place takes the focus
// and, closed, gives it back to the button that opened it, so the keyboard never lands on the page.
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import type { AccountState, AppState } from '../../preload/contract';
import { LIMITS } from '../../preload/contract';
import { PAUSE_CHOICES, pausedUntil } from '../../preload/pause';
import { asCodedError, call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { plural, sentence, standingLabel } from '../format';
import { useCancelOnEscape, useEscapeLayer } from '../hooks/useEscapeLayer';
import { useFocusReturn } from '../hooks/useFocusReturn';
import { useNow } from '../hooks/useNow';
import { useRefusedChoice } from '../hooks/useRefusedChoice';
import { ConfirmDialog } from './ConfirmDialog';
import { ErrorAlert } from './ErrorAlert';
import { pauseEnd } from './PauseControl';
import { ServerText } from './ServerText';

/** A row's form open in its place: a new label, the account's current secret, or its pause's choices. */
interface Editing {
  account: string;
  what: 'rename' | 'secret' | 'pause';
}

/** A removal being asked about: first whether to remove, then (statuses waiting) whether to discard them, each named. */
interface Removal {
  account: AccountState;
  undelivered: { message: string; statuses: readonly string[] } | null;
}

export function AccountsPanel({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const headingId = useId();
  const [problem, setProblem] = useState<{ message: string; details?: readonly string[] } | null>(null);
  const [removal, setRemoval] = useState<Removal | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const { container, returnTo } = useFocusReturn<HTMLElement>();
  const now = useNow();

  function close(opener: string): void {
    returnTo(opener);
    setProblem(null);
  }

  async function run(work: () => Promise<AppState>): Promise<boolean> {
    setProblem(null);
    setBusy(true);
    try {
      onState(await work());
      return true;
    } catch (failure) {
      setProblem(said(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function remove({ account, undelivered }: Removal): Promise<void> {
    setRemoval(null);
    const request = { account: account.id, discardUndelivered: undelivered !== null };
    try {
      onState(await call(bridge, 'removeAccount', request));
      setProblem(null);
    } catch (failure) {
      const error = asCodedError(failure);
      // Statuses still to send: asked again, naming them, before they are discarded.
      if (error.code === 'undelivered-statuses')
        setRemoval({ account, undelivered: { message: error.message, statuses: error.details } });
      else setProblem(said(failure));
    }
  }

  const demo = state.setup === 'demo' ? state.accounts[0]?.id : undefined;
  return (
    <section className="accounts" aria-labelledby={headingId} ref={container}>
      <h3 id={headingId}>Accounts</h3>
      <p className="hint">
        Each marketplace account this computer serves, checked on its own. The first is the one above.
      </p>
      {state.accounts.length > 0 && (
        <ul className="account-list">
          {state.accounts.map((account) => {
            const open = editing?.account === account.id ? editing.what : null;
            const opener = (what: Editing['what']) => `${what}:${account.id}`;
            const done = () => {
              if (open) close(opener(open));
              setEditing(null);
            };
            const paused = pausedUntil(account.notificationsPausedUntil, now);
            const pause = (until: Date | null) =>
              run(() =>
                call(bridge, 'pauseNotifications', {
                  until: until === null ? null : until.toISOString(),
                  account: account.id,
                }),
              );
            return (
              <li key={account.id}>
                {open === 'rename' ? (
                  <RowForm
                    label={`New label for ${account.label}`}
                    type="text"
                    initial={account.label}
                    maxLength={LIMITS.accountLabel}
                    submit="Save label"
                    empty="Enter the new label first."
                    busy={busy}
                    onCancel={done}
                    onSubmit={async (label) => {
                      if (await run(() => call(bridge, 'renameAccount', { account: account.id, label })))
                        done();
                    }}
                  />
                ) : open === 'secret' ? (
                  <RowForm
                    label={`New client secret of ${account.label}`}
                    type="password"
                    initial=""
                    maxLength={LIMITS.secret}
                    submit="Check and store"
                    empty="Enter the new client secret first."
                    busy={busy}
                    onCancel={done}
                    onSubmit={async (secret) => {
                      // A listed label with a secret reconnects it: checked by the marketplace, then stored.
                      const request = { label: account.label, secret };
                      if (await run(() => call(bridge, 'addAccount', request))) done();
                    }}
                  />
                ) : open === 'pause' ? (
                  <RowPause
                    label={`Pause notifications of ${account.label}`}
                    busy={busy}
                    onCancel={done}
                    onChoose={async (until) => {
                      const paused = await pause(until);
                      if (paused) done();
                      return paused;
                    }}
                  />
                ) : (
                  <>
                    <span className="account-name">
                      <strong>{account.label}</strong>{' '}
                      <span className="muted">
                        {account.clientId} at <ServerText text={hostOf(account.baseUrl)} />
                      </span>
                    </span>{' '}
                    <span>{standing(account)}</span>
                    {paused && <span> Notifications paused {pauseEnd(paused, now)}.</span>}
                    <span className="account-actions">
                      {/* Pause and Resume take each other's place: the focus stays on the one shown (Resume, refused). */}
                      {paused ? (
                        <button
                          type="button"
                          disabled={busy}
                          data-opens={opener('pause')}
                          onClick={async () => {
                            await pause(null);
                            returnTo(opener('pause'));
                          }}
                        >
                          Resume<span className="sr-only"> notifications of {account.label}</span>
                        </button>
                      ) : (
                        <button
                          type="button"
                          data-opens={opener('pause')}
                          onClick={() => setEditing({ account: account.id, what: 'pause' })}
                        >
                          Pause<span className="sr-only"> notifications of {account.label}</span>
                        </button>
                      )}
                      <button
                        type="button"
                        data-opens={opener('rename')}
                        onClick={() => setEditing({ account: account.id, what: 'rename' })}
                      >
                        Rename<span className="sr-only"> {account.label}</span>
                      </button>
                      {account.id !== demo && (
                        <>
                          <button
                            type="button"
                            data-opens={opener('secret')}
                            onClick={() => setEditing({ account: account.id, what: 'secret' })}
                          >
                            Replace secret<span className="sr-only"> of {account.label}</span>
                          </button>
                          <button type="button" onClick={() => setRemoval({ account, undelivered: null })}>
                            Remove<span className="sr-only"> {account.label}</span>
                          </button>
                        </>
                      )}
                    </span>
                  </>
                )}
                {open && <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />}
              </li>
            );
          })}
        </ul>
      )}
      {adding ? (
        <AddForm
          busy={busy}
          onCancel={() => {
            close('add');
            setAdding(false);
          }}
          onAdd={async (request) => {
            if (await run(() => call(bridge, 'addAccount', request))) {
              close('add');
              setAdding(false);
            }
          }}
        />
      ) : (
        <button type="button" data-opens="add" onClick={() => setAdding(true)}>
          Add an account
        </button>
      )}
      {!editing && <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />}
      {removal && (
        <ConfirmDialog
          title={
            removal.undelivered
              ? `Discard what ${removal.account.label} has not sent?`
              : `Remove ${removal.account.label}?`
          }
          message={
            removal.undelivered
              ? `${removal.undelivered.message}. Removing the account now discards ${unsent(removal.undelivered).them}: the marketplace never hears of ${unsent(removal.undelivered).them}.`
              : `Seller Tray forgets ${removal.account.label}: its secret leaves the keychain and its orders leave this computer. The marketplace keeps everything.`
          }
          list={removal.undelivered?.statuses}
          safeLabel={removal.undelivered ? `Keep it until ${unsent(removal.undelivered).sent}` : 'Keep it'}
          riskyLabel={
            removal.undelivered
              ? `Discard ${unsent(removal.undelivered).them} and remove`
              : `Remove ${removal.account.label}`
          }
          onConfirm={() => void remove(removal)}
          onCancel={() => setRemoval(null)}
        />
      )}
    </section>
  );
}

/** The words for what a removal would discard: one status (its list a single line), or several (more lines). */
function unsent({ statuses }: { statuses: readonly string[] }): { them: string; sent: string } {
  return statuses.length === 1
    ? { them: 'it', sent: 'the status is sent' }
    : { them: 'them', sent: 'they are sent' };
}

/** A refusal of the account list (main/core/account), worded as the command line's clause, as a sentence. */
function said(failure: unknown): { message: string; details?: readonly string[] } {
  const problem = explained(failure);
  return { ...problem, message: sentence(problem.message) };
}

/**
 * How an account stands, in words. One not served has no secret stored, or (its problem said)
 * a store that could not be opened, which a secret given again would not mend.
 */
function standing(account: AccountState): string {
  if (!account.open)
    return account.problem
      ? `Not served: ${account.problem.message}`
      : 'No secret stored: enter it with Replace secret';
  const waiting =
    account.pendingOutbox > 0 ? `, ${plural(account.pendingOutbox, 'status', 'statuses')} to send` : '';
  return `${standingLabel(account)}${waiting}`;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/**
 * A row's pause choices (the header's), named for the account, with the focus on the first as they
 * open, back on one refused, and closed by Escape as by Cancel.
 */
function RowPause(props: {
  label: string;
  busy: boolean;
  /** Whether the pause was made. */
  onChoose: (until: Date) => Promise<boolean>;
  onCancel: () => void;
}) {
  const group = useRef<HTMLFieldSetElement>(null);
  useEffect(() => group.current?.querySelector('button')?.focus(), []);
  const refused = useRefusedChoice(props.busy);
  useEscapeLayer(true, props.onCancel);
  async function choose(until: Date, chosen: HTMLButtonElement): Promise<void> {
    refused(null);
    if (!(await props.onChoose(until))) refused(chosen);
  }
  return (
    <fieldset ref={group} className="inline-form">
      <legend>{props.label}</legend>
      {PAUSE_CHOICES.map((choice) => (
        <button
          key={choice.label}
          type="button"
          disabled={props.busy}
          onClick={(e) => void choose(choice.until(new Date()), e.currentTarget)}
        >
          {choice.label}
        </button>
      ))}
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}

/** A row's one-field form (a new label, a new secret), with the focus in its field as it opens. */
function RowForm(props: {
  label: string;
  type: 'text' | 'password';
  initial: string;
  maxLength: number;
  submit: string;
  /** Said when it is sent empty: the field's own error, nothing asked of the service. */
  empty: string;
  busy: boolean;
  onSubmit: (value: string) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [value, setValue] = useState(props.initial);
  const [invalid, setInvalid] = useState(false);
  const input = useFieldFocus(props.busy);
  useCancelOnEscape(props.busy, props.onCancel);
  return (
    <form
      className="inline-form"
      noValidate
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        setInvalid(value.trim() === '');
        if (value.trim() === '') input.current?.focus();
        else void props.onSubmit(value);
      }}
    >
      <label htmlFor={id}>{props.label}</label>
      <input
        ref={input}
        id={id}
        type={props.type}
        maxLength={props.maxLength}
        spellCheck={false}
        autoComplete={props.type === 'password' ? 'off' : undefined}
        value={value}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}-error` : undefined}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit" className="primary" disabled={props.busy}>
        {props.busy ? 'Checking…' : props.submit}
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
      {invalid && (
        <p className="error-text" id={`${id}-error`} role="alert">
          {props.empty}
        </p>
      )}
    </form>
  );
}

/**
 * A form's field that has the focus as the form opens, and again after a check the form is still
 * open for (refused) when the focus was dropped to the page: the submit button, disabled while the
 * check runs, loses it so in Chromium, and the keyboard would start again from the header.
 */
function useFieldFocus(busy: boolean): RefObject<HTMLInputElement | null> {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  useEffect(() => {
    if (!busy && (document.activeElement === null || document.activeElement === document.body))
      field.current?.focus();
  }, [busy]);
  return field;
}

function AddForm(props: {
  onAdd: (request: { label: string; baseUrl?: string; clientId?: string; secret: string }) => Promise<void>;
  onCancel: () => void;
  busy: boolean;
}) {
  const id = useId();
  const [draft, setDraft] = useState({ label: '', baseUrl: '', clientId: '', secret: '' });
  const first = useFieldFocus(props.busy);
  useCancelOnEscape(props.busy, props.onCancel);
  const field = (key: keyof typeof draft, label: string, type: string, maxLength: number) => (
    <>
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        ref={key === 'label' ? first : undefined}
        id={`${id}-${key}`}
        type={type}
        maxLength={maxLength}
        spellCheck={false}
        autoComplete={key === 'secret' ? 'off' : undefined}
        value={draft[key]}
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
      />
    </>
  );
  return (
    <form
      className="form"
      aria-label="Add an account"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        // Left empty, the address is not sent: a listed label is then reconnected with the secret,
        // and a new one is told it needs them (rather than refused for an empty string).
        const baseUrl = draft.baseUrl.trim();
        const clientId = draft.clientId.trim();
        void props.onAdd({
          label: draft.label.trim(),
          ...(baseUrl ? { baseUrl } : {}),
          ...(clientId ? { clientId } : {}),
          secret: draft.secret,
        });
      }}
    >
      {field('label', 'Label (such as EU, US, Test)', 'text', LIMITS.accountLabel)}
      {field('baseUrl', 'Base URL', 'url', LIMITS.baseUrl)}
      {field('clientId', 'Client id', 'text', LIMITS.clientId)}
      {field('secret', 'Client secret', 'password', LIMITS.secret)}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={props.busy}>
          {props.busy ? 'Checking…' : 'Check and add'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
