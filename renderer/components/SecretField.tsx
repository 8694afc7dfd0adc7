// Replacing the client secret. Write-only: the secret goes to the keychain and nothing ever
// reads it back into the window; the field empties once it is stored.
import { type FormEvent, useId, useState } from 'react';
import { type AppState, LIMITS } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';

export function SecretField({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const demo = state.setup === 'demo';

  async function replace(event: FormEvent): Promise<void> {
    event.preventDefault();
    setMessage(null);
    setError(null);
    if (secret === '') {
      setError('Enter the new client secret first.');
      return;
    }
    setBusy(true);
    try {
      const next = await call(bridge, 'setSecret', { secret });
      setSecret('');
      setMessage('The new secret is stored in the keychain.');
      onState(next);
    } catch (failure) {
      setError(asBridgeCallError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="form secret-form"
      noValidate
      aria-label="Client secret"
      onSubmit={(e) => void replace(e)}
    >
      <h3>Client secret</h3>
      <p className="muted">
        {demo
          ? 'The demo uses its own credentials.'
          : state.secretStored
            ? 'Stored in the keychain. It is never shown; enter a new one to replace it.'
            : 'No secret is stored for this client id.'}
      </p>
      <label htmlFor={inputId}>New client secret</label>
      <input
        id={inputId}
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        maxLength={LIMITS.secret}
        disabled={demo}
        value={secret}
        onChange={(event) => setSecret(event.target.value)}
      />
      <div className="form-actions">
        <button type="submit" disabled={busy || demo}>
          {busy ? 'Storing…' : 'Replace secret'}
        </button>
      </div>
      <p role="status">{message}</p>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
