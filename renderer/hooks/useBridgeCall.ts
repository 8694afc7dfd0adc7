// One bridge call that a button starts: its answer, its failure as a message for the user (the
// last answer then cleared, so no stale result shows beside the error), and whether it runs.
import { useState } from 'react';
import type { Channel, RequestOf, Responses } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';

export function useBridgeCall<C extends Channel>(channel: C, request: RequestOf<C>) {
  const bridge = useBridge();
  const [answer, setAnswer] = useState<Responses[C] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      setAnswer(await call(bridge, channel, request));
    } catch (failure) {
      setAnswer(null);
      setError(asBridgeCallError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return { run, answer, error, busy, dismissError: () => setError(null) };
}
