// One bridge call that a button starts: its answer, its failure for the user (message and
// details, the last answer then cleared, so no stale result shows beside the error), and whether it runs.
import { useState } from 'react';
import type { Channel, RequestOf, Responses } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';

export function useBridgeCall<C extends Channel>(channel: C, request: RequestOf<C>) {
  const bridge = useBridge();
  const [answer, setAnswer] = useState<Responses[C] | null>(null);
  const [error, setError] = useState<Explained | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      setAnswer(await call(bridge, channel, request));
    } catch (failure) {
      setAnswer(null);
      setError(explained(failure));
    } finally {
      setBusy(false);
    }
  }

  return { run, answer, error, busy, dismissError: () => setError(null) };
}
