// Settings → Automations, the list: each automation, what it does, for which orders and accounts,
// whether it reports the status and whether its secret is stored ("set" or "not set": a secret
// never comes back to the window); add, edit, turn on or off, remove (asked first), set its
// secret, and Test it against one of the stored orders (as `seller-tray automations test`). When
// the organization manages the automations, the list is read only, under "Managed by your organization".
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import {
  type AutomationRun,
  type AutomationSetting,
  type AutomationsView,
  automationAccounts,
  describeAutomation,
  runOutcome,
} from '../../preload/automations';
import { type AppState, LIMITS, type OrderListItem } from '../../preload/contract';
import { plainText } from '../../preload/marketplace-text';
import { asCodedError, call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { statusLabel } from '../format';
import { useCancelOnEscape } from '../hooks/useEscapeLayer';
import { useFocusReturn } from '../hooks/useFocusReturn';
import { AutomationForm } from './AutomationForm';
import { ConfirmDialog } from './ConfirmDialog';
import { ErrorAlert } from './ErrorAlert';
import { ManagedNote } from './ManagedNote';

const REPORTS = { 'in-progress': 'ProvisioningInProgress', completed: 'ProvisioningCompleted' } as const;
/** What the secret of each kind of action is called. */
const SECRET_NAMES = {
  webhook: 'Signing secret',
  slack: 'Slack incoming-webhook address',
  teams: 'Teams incoming-webhook address',
} as const;
/** An automation saved; one that needs a secret not stored yet fails every run until it is: said. */
function savedWords(view: AutomationsView, name: string): string {
  const type = view.automations.find((a) => a.name === name)?.action.type;
  if (type === undefined || type === 'command' || view.secretsStored.includes(name))
    return `${name} is saved.`;
  const secret = SECRET_NAMES[type].toLowerCase();
  return `${name} is saved. It runs once its ${secret} is set: Set ${secret}, beside it.`;
}

/** The stored orders a test may run against: the newest. */
const TEST_ORDERS = 20;

type Problem = { message: string; details?: readonly string[] } | null;

export function AutomationsPanel({ state }: { state: AppState }) {
  const bridge = useBridge();
  const headingId = useId();
  const managedId = useId();
  const [view, setView] = useState<AutomationsView | null>(null);
  const [problem, setProblem] = useState<Problem>(null);
  const [status, setStatus] = useState<string | null>(null);
  /** The automation being edited; '' adds one; null: none. */
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [open, setOpen] = useState<{ name: string; panel: 'secret' | 'test' } | null>(null);
  const { container, returnTo } = useFocusReturn<HTMLElement>();

  useEffect(() => {
    let current = true;
    call(bridge, 'getAutomations', undefined).then(
      (loaded) => current && setView(loaded),
      (failure: unknown) => current && setProblem(explained(failure)),
    );
    return () => {
      current = false;
    };
  }, [bridge]);

  async function change(work: () => Promise<AutomationsView>, done: string): Promise<void> {
    setProblem(null);
    setStatus(null);
    try {
      setView(await work());
      setStatus(done);
    } catch (failure) {
      setProblem(explained(failure));
    }
  }

  if (!view) {
    return (
      <section className="automations" aria-labelledby={headingId}>
        <h3 id={headingId}>Your automations</h3>
        {problem ? <ErrorAlert problem={problem} /> : <p role="status">Loading the automations…</p>}
      </section>
    );
  }
  const { managed } = view;
  const edited = view.automations.find((a) => a.name === editing) ?? null;
  const closeForm = () => {
    returnTo(editing ? `edit:${editing}` : 'add');
    setEditing(null);
  };
  /** A row's secret form or test panel closed: the focus goes back to the button that opened it. */
  const closePanel = () => {
    if (open) returnTo(`${open.panel}:${open.name}`);
    setOpen(null);
  };
  return (
    <section
      className="automations"
      aria-labelledby={headingId}
      aria-describedby={managed ? managedId : undefined}
      ref={container}
    >
      <h3 id={headingId}>Your automations</h3>
      {managed && <ManagedNote id={managedId} />}
      {view.automations.length === 0 ? (
        <p className="hint">
          None yet. An automation runs a command, calls a webhook or posts to a chat for each new order.
        </p>
      ) : (
        <ul className="account-list automation-list" aria-label="Automations">
          {view.automations.map((a) => (
            <li key={a.name}>
              <Summary automation={a} state={state} secretStored={view.secretsStored.includes(a.name)} />
              {!managed && (
                <span className="account-actions">
                  <button type="button" data-opens={`edit:${a.name}`} onClick={() => setEditing(a.name)}>
                    Edit<span className="sr-only"> {a.name}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      void change(
                        () =>
                          call(bridge, 'saveAutomation', {
                            automation: { ...a, enabled: !a.enabled },
                            replaces: a.name,
                          }),
                        `${a.name} is ${a.enabled ? 'off' : 'on'}.`,
                      )
                    }
                  >
                    {a.enabled ? 'Turn off' : 'Turn on'}
                    <span className="sr-only"> {a.name}</span>
                  </button>
                  {a.action.type !== 'command' && (
                    <button
                      type="button"
                      data-opens={`secret:${a.name}`}
                      onClick={() => setOpen({ name: a.name, panel: 'secret' })}
                    >
                      Set {SECRET_NAMES[a.action.type].toLowerCase()}
                      <span className="sr-only"> of {a.name}</span>
                    </button>
                  )}
                  <button
                    type="button"
                    data-opens={`test:${a.name}`}
                    onClick={() => setOpen({ name: a.name, panel: 'test' })}
                  >
                    Test<span className="sr-only"> {a.name}</span>
                  </button>
                  <button type="button" onClick={() => setRemoving(a.name)}>
                    Remove<span className="sr-only"> {a.name}</span>
                  </button>
                </span>
              )}
              {!managed &&
                open?.name === a.name &&
                open.panel === 'secret' &&
                a.action.type !== 'command' && (
                  <SecretForm
                    automation={a.name}
                    label={SECRET_NAMES[a.action.type]}
                    onStored={(next) => {
                      setView(next);
                      closePanel();
                      setStatus(
                        `The ${SECRET_NAMES[a.action.type as 'webhook'].toLowerCase()} of ${a.name} is in the keychain.`,
                      );
                    }}
                    onCancel={closePanel}
                  />
                )}
              {!managed && open?.name === a.name && open.panel === 'test' && (
                <TestPanel automation={a.name} onClose={closePanel} />
              )}
            </li>
          ))}
        </ul>
      )}
      {!managed &&
        (editing === null ? (
          <button type="button" data-opens="add" onClick={() => setEditing('')}>
            Add an automation
          </button>
        ) : (
          <AutomationForm
            key={editing}
            editing={edited}
            accounts={state.accounts}
            onSaved={(next, name) => {
              setView(next);
              closeForm();
              setStatus(savedWords(next, name));
            }}
            onCancel={closeForm}
          />
        ))}
      <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />
      <p role="status">{status}</p>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing}?`}
          message={`${removing} no longer runs for new orders, and its secret leaves the keychain. The runs it made stay on their orders.`}
          safeLabel="Keep it"
          riskyLabel={`Remove ${removing}`}
          onConfirm={() => {
            const name = removing;
            setRemoving(null);
            void change(() => call(bridge, 'removeAutomation', { automation: name }), `${name} is removed.`);
          }}
          onCancel={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

/** One automation in words: what it does, for which orders and accounts, what it reports, its secret. */
function Summary({
  automation: a,
  state,
  secretStored,
}: {
  automation: AutomationSetting;
  state: AppState;
  secretStored: boolean;
}) {
  const { action, orders } = describeAutomation(a);
  return (
    <span className="automation-summary">
      <span className="automation-name">{a.name}</span>
      {!a.enabled && ' (off)'}: {action}, for {orders}
      {state.accounts.length > 1 && ` of ${automationAccounts(a, state.accounts)}`}
      {a.reportStatus && `; marks ${statusLabel(REPORTS[a.reportStatus])} or Failed`}
      {a.action.type !== 'command' && (
        <span className={secretStored ? 'secret-stored' : 'muted'}>
          {' '}
          · {SECRET_NAMES[a.action.type]}: {secretStored ? 'set' : 'not set'}
        </span>
      )}
    </span>
  );
}

/** Sets or replaces an automation's secret: write-only, the field emptied once it is stored. */
function SecretForm({
  automation,
  label,
  onStored,
  onCancel,
}: {
  automation: string;
  label: string;
  onStored: (view: AutomationsView) => void;
  onCancel: () => void;
}) {
  const bridge = useBridge();
  const id = useId();
  const [secret, setSecret] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useCancelOnEscape(busy, onCancel);
  // Opened below its row's buttons: the keyboard goes on in its field.
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);

  async function store(event: FormEvent): Promise<void> {
    event.preventDefault();
    setInvalid(null);
    setBusy(true);
    try {
      const next = await call(bridge, 'setAutomationSecret', { automation, secret });
      setSecret('');
      onStored(next);
    } catch (failure) {
      setInvalid(asCodedError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="form inline-secret"
      noValidate
      aria-label={`${label} of ${automation}`}
      onSubmit={(e) => void store(e)}
    >
      <label htmlFor={id}>
        New {label.toLowerCase()} of {automation}
      </label>
      <input
        ref={field}
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        maxLength={LIMITS.secret}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? `${id}-error` : undefined}
        value={secret}
        onChange={(e) => setSecret(e.target.value)}
      />
      {invalid && (
        <p className="error-text field-error" id={`${id}-error`} role="alert">
          {invalid}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" disabled={busy}>
          Store in the keychain
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Test: one run now against a stored order (event order.test, nothing marked), and how it went. */
function TestPanel({ automation, onClose }: { automation: string; onClose: () => void }) {
  const bridge = useBridge();
  const id = useId();
  const [orders, setOrders] = useState<OrderListItem[] | null>(null);
  /** The chosen order's place in the list (an order id may be in two accounts). */
  const [chosen, setChosen] = useState('0');
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<AutomationRun | null>(null);
  const [problem, setProblem] = useState<Problem>(null);
  useCancelOnEscape(busy, onClose);

  useEffect(() => {
    let current = true;
    // The store's orders: no marketplace call until the test itself.
    call(bridge, 'listOrders', { sort: 'newest', backlog: 'shown', limit: TEST_ORDERS }).then(
      (page) => {
        if (!current) return;
        setOrders(page.orders);
      },
      (failure: unknown) => current && setProblem(explained(failure)),
    );
    return () => {
      current = false;
    };
  }, [bridge]);

  async function test(event: FormEvent): Promise<void> {
    event.preventDefault();
    const order = orders?.[Number(chosen)];
    if (!order) return;
    setBusy(true);
    setRun(null);
    setProblem(null);
    try {
      setRun(
        await call(bridge, 'testAutomation', { automation, orderId: order.orderId, account: order.account }),
      );
    } catch (failure) {
      setProblem(explained(failure));
    } finally {
      setBusy(false);
    }
  }

  const outcome = run && runOutcome(run);
  return (
    <form
      className="form automation-test"
      noValidate
      aria-label={`Test ${automation}`}
      onSubmit={(e) => void test(e)}
    >
      {orders === null ? (
        !problem && <p role="status">Loading the orders…</p>
      ) : orders.length === 0 ? (
        <p className="hint">No order is stored yet to test it with.</p>
      ) : (
        <>
          <label htmlFor={id}>Test {automation} with the order</label>
          <select id={id} value={chosen} onChange={(e) => setChosen(e.target.value)}>
            {orders.map((o, index) => (
              <option key={`${o.account}-${o.orderId}`} value={index}>
                {/* An option holds text only: the marketplace's words made one plain line. */}
                {[o.buyer, o.product, o.orderId].flatMap((t) => (t ? [plainText(t)] : [])).join(' · ')}
              </option>
            ))}
          </select>
          <p className="hint">
            It runs once now (event order.test) and marks nothing, whether this computer runs automations or
            not.
          </p>
        </>
      )}
      <div className="form-actions">
        <button type="submit" disabled={busy || !orders?.length}>
          {busy ? 'Testing…' : 'Run the test'}
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <div role="status">
        {run && outcome && (
          <>
            <p className={run.state === 'succeeded' ? 'secret-stored' : 'error-text'}>
              {automation}: {run.state}
              {outcome.code && ` (${outcome.code})`}
              {outcome.detail && ` — ${outcome.detail}`}
            </p>
            {run.output && <pre className="automation-output">{run.output}</pre>}
          </>
        )}
      </div>
      <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />
    </form>
  );
}
