// Demo mode said plainly, with the one button that leaves it: the demo's account goes, and the
// app asks for a real marketplace (onboarding) again. Leaving may fail: it says so beside the
// button, the detail behind "Details".
import { useState } from 'react';
import type { AppState } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { ErrorAlert } from './ErrorAlert';

export function LeaveDemoButton({ onState }: { onState: (state: AppState) => void }) {
  const bridge = useBridge();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Explained | null>(null);
  async function leave(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await call(bridge, 'setSettings', { demoMode: false });
      onState(await call(bridge, 'getState', undefined));
    } catch (failure) {
      setError(explained(failure));
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" disabled={busy} onClick={() => void leave()}>
        {busy ? 'Leaving the demo…' : 'Leave the demo'}
      </button>
      <ErrorAlert
        message={error?.message ?? null}
        details={error?.details}
        onDismiss={() => setError(null)}
      />
    </>
  );
}

export function DemoBanner({ state, onState }: { state: AppState; onState: (state: AppState) => void }) {
  if (state.setup !== 'demo') return null;
  return (
    <div className="demo-banner">
      <span>This is the demo marketplace: its orders are made up.</span>
      <LeaveDemoButton onState={onState} />
    </div>
  );
}
