// Demo mode said plainly, with the one button that leaves it: the demo's account goes, and the
// app asks for a real marketplace (onboarding) again. Leaving may fail: it says so in plain
// words, the detail behind "Details": beside the button in Settings; the banner's goes to the
// app's problems, so the banners never grow.
import { useState } from 'react';
import type { AppState } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import type { BannerProps } from './banner';
import { ErrorAlert } from './ErrorAlert';

/** Leaves the demo; a failure goes to `onError` if given, else shows beside the button. */
export function LeaveDemoButton({
  onState,
  onError,
}: {
  onState: (state: AppState) => void;
  onError?: ((problem: Explained) => void) | undefined;
}) {
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
      (onError ?? setError)(explained(failure));
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" disabled={busy} onClick={() => void leave()}>
        {busy ? 'Leaving the demo…' : 'Leave the demo'}
      </button>
      <ErrorAlert problem={error} onDismiss={() => setError(null)} />
    </>
  );
}

export function DemoBanner({ state, onState, onError }: BannerProps) {
  if (state.setup !== 'demo') return null;
  return (
    <div className="demo-banner">
      <span>This is the demo marketplace: its orders are made up.</span>
      <LeaveDemoButton onState={onState} onError={onError} />
    </div>
  );
}
