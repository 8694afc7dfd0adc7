// Replacing the client secret. Write-only: the secret goes to the keychain and nothing ever
// reads it back into the window; the field empties once it is stored. As on onboarding, the
// marketplace is asked first: a secret it rejects is not stored, and one it could not check
// (out of reach) only when the user says so. An empty field is the field's own error; a failed
// call (a keychain that cannot be reached) says what to do, its detail behind "Details".
import { type FormEvent, useId, useState } from 'react';
import { type AppState, type ConnectionTest, LIMITS } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { saveVerdict, UNCHECKED_OFFER } from '../connection-check';
import { ConnectionTestResult } from './ConnectionTestResult';
import { ErrorAlert } from './ErrorAlert';

export function SecretField({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [failure, setFailure] = useState<Explained | null>(null);
  const [refusal, setRefusal] = useState<ConnectionTest | null>(null);
  const [offerUnchecked, setOfferUnchecked] = useState(false);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const demo = state.setup === 'demo';
  // With several accounts, the one it replaces is named: the first, whose client it is checked at.
  const owner =
    state.accounts.length > 1
      ? state.accounts.find((a) => a.baseUrl === state.baseUrl && a.clientId === state.clientId)
      : undefined;
  const title = owner ? `Client secret of ${owner.label}` : 'Client secret';

  async function attempt(work: () => Promise<void>): Promise<void> {
    setMessage(null);
    setInvalid(null);
    setFailure(null);
    setRefusal(null);
    setOfferUnchecked(false);
    setBusy(true);
    try {
      await work();
    } catch (error) {
      setFailure(explained(error));
    } finally {
      setBusy(false);
    }
  }

  async function store(): Promise<void> {
    const next = await call(bridge, 'setSecret', { secret });
    setSecret('');
    setMessage('The new secret is stored in the keychain.');
    onState(next);
  }

  async function replace(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (secret === '') {
      setMessage(null);
      setFailure(null);
      setInvalid('Enter the new client secret first.');
      return;
    }
    await attempt(async () => {
      const test = await call(bridge, 'testConnection', {
        baseUrl: state.baseUrl,
        clientId: state.clientId,
        secret,
      });
      const verdict = saveVerdict(test);
      if (verdict === 'save') await store();
      else if (verdict === 'offer-unchecked') setOfferUnchecked(true);
      else setRefusal(test);
    });
  }

  return (
    <form className="form secret-form" noValidate aria-label={title} onSubmit={(e) => void replace(e)}>
      <h3>{title}</h3>
      <p className="muted">
        {demo
          ? 'The demo uses its own credentials.'
          : state.secretStored
            ? 'Stored in the keychain. It is never shown; enter a new one to replace it.'
            : 'No secret is stored for this client id.'}
        {owner && " Another account's secret is replaced beside it in Accounts (Replace secret)."}
      </p>
      <label htmlFor={inputId}>New client secret</label>
      <input
        id={inputId}
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        maxLength={LIMITS.secret}
        disabled={demo}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? errorId : undefined}
        value={secret}
        onChange={(event) => setSecret(event.target.value)}
      />
      {invalid && (
        <p className="error-text" id={errorId} role="alert">
          {invalid}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" disabled={busy || demo}>
          {busy ? 'Checking…' : 'Replace secret'}
        </button>
      </div>
      <ErrorAlert problem={failure} onDismiss={() => setFailure(null)} />
      {refusal && <ConnectionTestResult result={refusal} note="The secret was not stored." />}
      {offerUnchecked && (
        <div className="unchecked-offer">
          <p>{UNCHECKED_OFFER}</p>
          <button type="button" disabled={busy} onClick={() => void attempt(store)}>
            Store anyway, unchecked
          </button>
        </div>
      )}
      <p role="status">{message}</p>
    </form>
  );
}
