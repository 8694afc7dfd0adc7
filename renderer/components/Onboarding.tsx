// First start: the marketplace's base URL, the client id and the client secret, a test of
// the connection, and Save (the secret goes to the system keychain and is never shown
// again). Or the demo, on the built-in simulator, for a look without credentials.
import { type FormEvent, useId, useState } from 'react';
import { type AppState, type ConnectionTest, LIMITS } from '../../preload/contract';
import { MAX_CLIENT_ID_LENGTH } from '../../preload/model';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { SECRET_BINDING, sameMarketplace } from '../marketplace-origin';
import { ConnectionTestResult } from './ConnectionTestResult';
import { ErrorAlert } from './ErrorAlert';

type Busy = 'testing' | 'saving' | 'demo' | null;

export function Onboarding({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [baseUrl, setBaseUrl] = useState(state.baseUrl);
  const [clientId, setClientId] = useState(state.clientId);
  const [secret, setSecret] = useState('');
  /** The secret went to the keychain in this session: the field is gone for good. */
  const [secretSaved, setSecretSaved] = useState(false);
  const [busy, setBusy] = useState<Busy>(null);
  const [test, setTest] = useState<ConnectionTest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ids = { baseUrl: useId(), clientId: useId(), secret: useId(), secretHint: useId(), heading: useId() };

  const secretKept =
    secretSaved ||
    (state.secretStored && clientId.trim() === state.clientId && sameMarketplace(baseUrl, state.baseUrl));
  /** An account is set, but its secret does not go to what the form now says (or none is stored). */
  const secretAskedAgain = !secretKept && state.baseUrl !== '' && state.clientId !== '';

  async function run(what: Exclude<Busy, null>, action: () => Promise<void>): Promise<void> {
    setBusy(what);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(asBridgeCallError(failure).message);
    } finally {
      setBusy(null);
    }
  }

  const testConnection = () =>
    run('testing', async () => {
      setTest(null);
      setTest(
        await call(bridge, 'testConnection', {
          baseUrl: baseUrl.trim(),
          clientId: clientId.trim(),
          ...(secret === '' ? {} : { secret }),
        }),
      );
    });

  const save = (event: FormEvent) => {
    event.preventDefault();
    const missing = [
      baseUrl.trim() === '' && 'the base URL',
      clientId.trim() === '' && 'the client id',
      !secretKept && secret === '' && 'the client secret',
    ].filter((part): part is string => typeof part === 'string');
    if (missing.length > 0) {
      setError(`Please enter ${missing.join(', ')}.`);
      return;
    }
    void run('saving', async () => {
      await call(bridge, 'setSettings', { baseUrl: baseUrl.trim(), clientId: clientId.trim() });
      if (secret !== '') {
        const next = await call(bridge, 'setSecret', { secret });
        setSecret('');
        setSecretSaved(true);
        onState(next);
      } else {
        onState(await call(bridge, 'getState', undefined));
      }
    });
  };

  const startDemo = () => run('demo', async () => onState(await call(bridge, 'startDemo', undefined)));

  return (
    <section className="onboarding" aria-labelledby={ids.heading}>
      <h1 id={ids.heading}>Connect Seller Tray to the marketplace</h1>
      <p className="muted">
        Enter the Seller API credentials the marketplace gave you. The client secret is kept in your system's
        keychain, nowhere else.
      </p>
      <form className="form" noValidate onSubmit={save} aria-label="Marketplace credentials">
        <label htmlFor={ids.baseUrl}>Base URL</label>
        <input
          id={ids.baseUrl}
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://marketplace.example"
          maxLength={LIMITS.baseUrl}
          value={baseUrl}
          onChange={(event) => setBaseUrl(event.target.value)}
        />
        <label htmlFor={ids.clientId}>Client id</label>
        <input
          id={ids.clientId}
          type="text"
          autoComplete="username"
          spellCheck={false}
          maxLength={MAX_CLIENT_ID_LENGTH}
          value={clientId}
          onChange={(event) => setClientId(event.target.value)}
        />
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
              aria-describedby={secretAskedAgain ? ids.secretHint : undefined}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              maxLength={LIMITS.secret}
              value={secret}
              onChange={(event) => setSecret(event.target.value)}
            />
          </>
        )}
        <div className="form-actions">
          <button type="button" disabled={busy !== null} onClick={() => void testConnection()}>
            {busy === 'testing' ? 'Testing…' : 'Test connection'}
          </button>
          <button type="submit" className="primary" disabled={busy !== null}>
            {busy === 'saving' ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
      {test && <ConnectionTestResult result={test} />}
      <ErrorAlert message={error} onDismiss={() => setError(null)} />
      <div className="demo-offer">
        <p>No credentials yet? See how it works on a built-in demo marketplace.</p>
        <button type="button" disabled={busy !== null} onClick={() => void startDemo()}>
          {busy === 'demo' ? 'Starting the demo…' : 'Try the demo'}
        </button>
      </div>
    </section>
  );
}
