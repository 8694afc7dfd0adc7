// Settings → Accounts: every marketplace account this laptop serves, each with its label, where
// it is and how it stands; add one (its secret checked by the marketplace before it is saved),
// rename one, remove one. Removing asks first; an account with statuses not yet sent is asked
// about a second time, naming them, before they are discarded. The first account is the one the
// form above edits and the inbox shows; the demo leaves through its own button.
import { type FormEvent, useId, useState } from 'react';
import type { AccountState, AppState } from '../../preload/contract';
import { LIMITS } from '../../preload/contract';
import { asCodedError, call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { connectionLabel, plural } from '../format';
import { ConfirmDialog } from './ConfirmDialog';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';

/** A removal being asked about: first whether to remove, then (statuses waiting) whether to discard them. */
interface Removal {
  account: AccountState;
  undelivered: string | null;
}

export function AccountsPanel({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const headingId = useId();
  const [problem, setProblem] = useState<{ message: string; details?: readonly string[] } | null>(null);
  const [removal, setRemoval] = useState<Removal | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);

  async function run(work: () => Promise<AppState>): Promise<boolean> {
    setProblem(null);
    try {
      onState(await work());
      return true;
    } catch (failure) {
      setProblem(explained(failure));
      return false;
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
      if (error.code === 'undelivered-statuses') setRemoval({ account, undelivered: error.message });
      else setProblem(explained(failure));
    }
  }

  const demo = state.setup === 'demo' ? state.accounts[0]?.id : undefined;
  return (
    <section className="accounts" aria-labelledby={headingId}>
      <h3 id={headingId}>Accounts</h3>
      <p className="hint">
        Each marketplace account this computer serves, checked on its own. The first is the one above.
      </p>
      {state.accounts.length > 0 && (
        <ul className="account-list">
          {state.accounts.map((account) => (
            <li key={account.id}>
              {renaming === account.id ? (
                <RenameForm
                  account={account}
                  onCancel={() => setRenaming(null)}
                  onRename={async (label) => {
                    if (await run(() => call(bridge, 'renameAccount', { account: account.id, label })))
                      setRenaming(null);
                  }}
                />
              ) : (
                <>
                  <span className="account-name">
                    <strong>{account.label}</strong>{' '}
                    <span className="muted">
                      {account.clientId} at <ServerText text={hostOf(account.baseUrl)} />
                    </span>
                  </span>
                  <span>{standing(account)}</span>
                  <span className="account-actions">
                    <button type="button" onClick={() => setRenaming(account.id)}>
                      Rename<span className="sr-only"> {account.label}</span>
                    </button>
                    {account.id !== demo && (
                      <button type="button" onClick={() => setRemoval({ account, undelivered: null })}>
                        Remove<span className="sr-only"> {account.label}</span>
                      </button>
                    )}
                  </span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <AddForm
          onCancel={() => setAdding(false)}
          onAdd={async (request) => {
            if (await run(() => call(bridge, 'addAccount', request))) setAdding(false);
          }}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          Add an account
        </button>
      )}
      <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />
      {removal && (
        <ConfirmDialog
          title={
            removal.undelivered
              ? `Discard what ${removal.account.label} has not sent?`
              : `Remove ${removal.account.label}?`
          }
          message={
            removal.undelivered
              ? `${removal.undelivered}. Removing it now discards them: the marketplace never hears of them.`
              : `Seller Tray forgets ${removal.account.label}: its secret leaves the keychain and its orders leave this computer. The marketplace keeps everything.`
          }
          safeLabel={removal.undelivered ? 'Keep it until they are sent' : 'Keep it'}
          riskyLabel={removal.undelivered ? 'Discard them and remove' : `Remove ${removal.account.label}`}
          onConfirm={() => void remove(removal)}
          onCancel={() => setRemoval(null)}
        />
      )}
    </section>
  );
}

/** How an account stands, in words. */
function standing(account: AccountState): string {
  if (!account.open) return 'No secret stored: add it again with its secret';
  const waiting =
    account.pendingOutbox > 0 ? `, ${plural(account.pendingOutbox, 'status', 'statuses')} to send` : '';
  return `${connectionLabel(account.connection)}${waiting}`;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

function RenameForm(props: {
  account: AccountState;
  onRename: (label: string) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [label, setLabel] = useState(props.account.label);
  return (
    <form
      className="inline-form"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        void props.onRename(label);
      }}
    >
      <label htmlFor={id}>New label for {props.account.label}</label>
      <input
        id={id}
        type="text"
        maxLength={LIMITS.accountLabel}
        value={label}
        onChange={(e) => setLabel(e.target.value)}
      />
      <button type="submit" className="primary">
        Save label
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}

function AddForm(props: {
  onAdd: (request: { label: string; baseUrl: string; clientId: string; secret: string }) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [draft, setDraft] = useState({ label: '', baseUrl: '', clientId: '', secret: '' });
  const field = (key: keyof typeof draft, label: string, type: string, maxLength: number) => (
    <>
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
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
        void props.onAdd({
          ...draft,
          label: draft.label.trim(),
          baseUrl: draft.baseUrl.trim(),
          clientId: draft.clientId.trim(),
        });
      }}
    >
      {field('label', 'Label (such as EU, US, Test)', 'text', LIMITS.accountLabel)}
      {field('baseUrl', 'Base URL', 'url', LIMITS.baseUrl)}
      {field('clientId', 'Client id', 'text', LIMITS.clientId)}
      {field('secret', 'Client secret', 'password', LIMITS.secret)}
      <div className="form-actions">
        <button type="submit" className="primary">
          Check and add
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
