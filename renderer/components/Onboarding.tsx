// First start: the marketplace's base URL, the client id and the client secret, a test of
// the connection, and Save, which tests first: a secret the marketplace rejects is not saved,
// and one it could not check (marketplace out of reach) only when the user says so. The secret
// goes to the system keychain and is never shown again. Or the demo, on the built-in
// simulator, for a look without credentials. A missing or refused field is marked and its
// message tied to it. "Your name" is asked here, once, prefilled with the computer account's
// name, so statuses are not signed "by root" or by a login name nobody knows.
import { type FormEvent, useId, useState } from 'react';
import { type AppState, type ConnectionTest, LIMITS } from '../../preload/contract';
import { ACTOR_NAME_MAX } from '../../preload/marked-by';
import { asCodedError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { saveVerdict, UNCHECKED_OFFER } from '../connection-check';
import { SECRET_BINDING, sameMarketplace } from '../marketplace-origin';
import { ConnectionTestResult } from './ConnectionTestResult';
import { ErrorAlert } from './ErrorAlert';
import { ManagedNote } from './ManagedNote';

type Busy = 'testing' | 'saving' | 'demo' | null;
const FIELDS = ['baseUrl', 'clientId', 'secret', 'actorName'] as const;
type Field = (typeof FIELDS)[number];

export function Onboarding({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [baseUrl, setBaseUrl] = useState(state.baseUrl);
  const [clientId, setClientId] = useState(state.clientId);
  const [secret, setSecret] = useState('');
  const [actorName, setActorName] = useState(state.actorName);
  /** The secret went to the keychain in this session: the field is gone for good. */
  const [secretSaved, setSecretSaved] = useState(false);
  const [busy, setBusy] = useState<Busy>(null);
  const [test, setTest] = useState<ConnectionTest | null>(null);
  /** Save was refused after its test: the result says why, and that nothing was saved. */
  const [refused, setRefused] = useState(false);
  /** The marketplace was out of reach: Save anyway is offered. */
  const [offerUnchecked, setOfferUnchecked] = useState(false);
  const [error, setError] = useState<{ message: string; details: readonly string[] } | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const id = useId();
  const ids = {
    baseUrl: `${id}-base-url`,
    clientId: `${id}-client-id`,
    secret: `${id}-secret`,
    secretHint: `${id}-secret-hint`,
    actorName: `${id}-actor-name`,
    actorHint: `${id}-actor-hint`,
    heading: `${id}-heading`,
  };
  const errorId = (field: Field) => `${ids[field]}-error`;
  /** A field an organization's policy sets: read-only, with "Managed by your organization" under it. */
  const locked = (field: Field) => (state.managed.locked as readonly string[]).includes(field);
  const managedId = (field: Field) => `${ids[field]}-managed`;
  /** The props that mark a field refused or managed and tie their messages to it. */
  const invalid = (field: Field, ...describedBy: (string | false)[]) => {
    const describers = [
      ...describedBy,
      locked(field) && managedId(field),
      fieldErrors[field] !== undefined && errorId(field),
    ].filter(Boolean);
    return {
      'aria-invalid': fieldErrors[field] !== undefined ? true : undefined,
      'aria-describedby': describers.length > 0 ? describers.join(' ') : undefined,
      readOnly: locked(field),
    };
  };
  const managedNote = (field: Field) => (locked(field) ? <ManagedNote id={managedId(field)} /> : null);
  const fieldError = (field: Field) =>
    fieldErrors[field] === undefined ? null : (
      <p className="error-text field-error" id={errorId(field)}>
        {fieldErrors[field]}
      </p>
    );

  const secretKept =
    secretSaved ||
    (state.secretStored && clientId.trim() === state.clientId && sameMarketplace(baseUrl, state.baseUrl));
  /** An account is set, but its secret does not go to what the form now says (or none is stored). */
  const secretAskedAgain = !secretKept && state.baseUrl !== '' && state.clientId !== '';

  async function run(what: Exclude<Busy, null>, action: () => Promise<void>): Promise<void> {
    setBusy(what);
    setError(null);
    setFieldErrors({});
    setRefused(false);
    setOfferUnchecked(false);
    try {
      await action();
    } catch (failure) {
      // No success beside a failure: a test that passed says nothing once saving failed after it.
      setTest(null);
      const { message, details, fields } = asCodedError(failure);
      const known = fields.filter((f): f is { field: Field; message: string } =>
        (FIELDS as readonly string[]).includes(f.field),
      );
      setFieldErrors(Object.fromEntries(known.map((f) => [f.field, f.message])));
      setError(known.length > 0 ? null : { message, details });
    } finally {
      setBusy(null);
    }
  }

  const tested = async (): Promise<ConnectionTest> => {
    setTest(null);
    const result = await call(bridge, 'testConnection', {
      baseUrl: baseUrl.trim(),
      clientId: clientId.trim(),
      ...(secret === '' ? {} : { secret }),
    });
    setTest(result);
    if (!result.ok && result.reason === 'invalid-url') setFieldErrors({ baseUrl: result.message });
    return result;
  };

  const testConnection = () => run('testing', async () => void (await tested()));

  /** Stores the account, then the secret: the app then shows the inbox. */
  const store = async () => {
    await call(bridge, 'setSettings', {
      baseUrl: baseUrl.trim(),
      clientId: clientId.trim(),
      ...(actorName.trim() === state.actorName ? {} : { actorName: actorName.trim() }),
    });
    if (secret !== '') {
      const next = await call(bridge, 'setSecret', { secret });
      setSecret('');
      setSecretSaved(true);
      onState(next);
    } else {
      onState(await call(bridge, 'getState', undefined));
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const missing: Partial<Record<Field, string>> = {
      ...(baseUrl.trim() === '' ? { baseUrl: 'Enter the base URL the marketplace gave you.' } : {}),
      ...(clientId.trim() === '' ? { clientId: 'Enter the client id.' } : {}),
      ...(!secretKept && secret === '' ? { secret: 'Enter the client secret.' } : {}),
      ...(actorName.trim() === '' ? { actorName: 'Enter the name your colleagues know you by.' } : {}),
    };
    if (Object.keys(missing).length > 0) {
      setFieldErrors(missing);
      setTest(null);
      setError(null);
      const first = FIELDS.find((f) => missing[f] !== undefined);
      if (first) document.getElementById(ids[first])?.focus();
      return;
    }
    void run('saving', async () => {
      const verdict = saveVerdict(await tested());
      if (verdict === 'save') await store();
      else if (verdict === 'offer-unchecked') setOfferUnchecked(true);
      else setRefused(true);
    });
  };

  const saveUnchecked = () => run('saving', store);

  const startDemo = () => run('demo', async () => onState(await call(bridge, 'startDemo', undefined)));

  return (
    <section className="onboarding" aria-labelledby={ids.heading}>
      <h1 id={ids.heading}>Connect Seller Tray to the marketplace</h1>
      <p className="muted">
        {locked('baseUrl') && locked('clientId')
          ? 'Your organization has set the marketplace and client id: enter the client secret you were given.'
          : 'Enter the Seller API credentials the marketplace gave you.'}{' '}
        The client secret is kept in your system's keychain, nowhere else.
      </p>
      <form className="form" noValidate onSubmit={save} aria-label="Marketplace credentials">
        <label htmlFor={ids.baseUrl}>Base URL</label>
        <input
          id={ids.baseUrl}
          {...invalid('baseUrl')}
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://marketplace.example"
          maxLength={LIMITS.baseUrl}
          value={baseUrl}
          onChange={(event) => setBaseUrl(event.target.value)}
        />
        {managedNote('baseUrl')}
        {fieldError('baseUrl')}
        <label htmlFor={ids.clientId}>Client id</label>
        <input
          id={ids.clientId}
          {...invalid('clientId')}
          type="text"
          autoComplete="username"
          spellCheck={false}
          maxLength={LIMITS.clientId}
          value={clientId}
          onChange={(event) => setClientId(event.target.value)}
        />
        {managedNote('clientId')}
        {fieldError('clientId')}
        {secretKept ? (
          <>
            <span className="label">Client secret</span>
            <p className="secret-stored">Stored in the keychain</p>
          </>
        ) : (
          <>
            <label htmlFor={ids.secret}>Client secret</label>
            {secretAskedAgain && (
              <p className="hint" id={ids.secretHint}>
                {SECRET_BINDING} Enter the secret for this address and client id.
              </p>
            )}
            <input
              id={ids.secret}
              {...invalid('secret', secretAskedAgain && ids.secretHint)}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              maxLength={LIMITS.secret}
              value={secret}
              onChange={(event) => setSecret(event.target.value)}
            />
            {fieldError('secret')}
          </>
        )}
        <label htmlFor={ids.actorName}>Your name</label>
        <p className="hint" id={ids.actorHint}>
          Shown on each status you mark, so your colleagues see who did it.
        </p>
        <input
          id={ids.actorName}
          {...invalid('actorName', ids.actorHint)}
          type="text"
          autoComplete="name"
          maxLength={ACTOR_NAME_MAX}
          value={actorName}
          onChange={(event) => setActorName(event.target.value)}
        />
        {managedNote('actorName')}
        {fieldError('actorName')}
        <div className="form-actions">
          <button type="button" disabled={busy !== null} onClick={() => void testConnection()}>
            {busy === 'testing' ? 'Testing…' : 'Test connection'}
          </button>
          <button type="submit" className="primary" disabled={busy !== null}>
            {busy === 'saving' ? 'Checking and saving…' : 'Save'}
          </button>
        </div>
      </form>
      {test && <ConnectionTestResult result={test} note={refused ? 'Nothing was saved.' : undefined} />}
      {offerUnchecked && (
        <div className="unchecked-offer">
          <p>{UNCHECKED_OFFER}</p>
          <button type="button" disabled={busy !== null} onClick={() => void saveUnchecked()}>
            Save anyway, unchecked
          </button>
        </div>
      )}
      <ErrorAlert problem={error} onDismiss={() => setError(null)} />
      {state.managed.demoAllowed && (
        <div className="demo-offer">
          <p>No credentials yet? See how it works on a built-in demo marketplace.</p>
          <button type="button" disabled={busy !== null} onClick={() => void startDemo()}>
            {busy === 'demo' ? 'Starting the demo…' : 'Try the demo'}
          </button>
        </div>
      )}
    </section>
  );
}
