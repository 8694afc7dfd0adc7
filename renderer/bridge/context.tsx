// The bridge for the component tree, and its event stream shared by every view: one
// subscription to `bridge.onEvent` for the whole app (the preview's bridge opens a
// connection per subscription), fanned out to the views that listen.
import {
  createContext,
  type ReactNode,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
} from 'react';
import type { Bridge } from '../../preload/contract';

export type BridgeEvent = Parameters<Parameters<Bridge['onEvent']>[0]>[0];
type Listener = (event: BridgeEvent) => void;

interface BridgeHub {
  bridge: Bridge;
  subscribe(listener: Listener): () => void;
}

const BridgeContext = createContext<BridgeHub | null>(null);

export function BridgeProvider({ bridge, children }: { bridge: Bridge; children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const hub = useMemo<BridgeHub>(
    () => ({
      bridge,
      subscribe(listener) {
        listeners.current.add(listener);
        return () => listeners.current.delete(listener);
      },
    }),
    [bridge],
  );
  useEffect(
    () =>
      bridge.onEvent((event) => {
        for (const listener of [...listeners.current]) listener(event);
      }),
    [bridge],
  );
  return <BridgeContext.Provider value={hub}>{children}</BridgeContext.Provider>;
}

function useHub(): BridgeHub {
  const hub = useContext(BridgeContext);
  if (!hub) throw new Error('A component that uses the bridge must be inside <BridgeProvider>.');
  return hub;
}

export function useBridge(): Bridge {
  return useHub().bridge;
}

/** Calls `listener` for each bridge event while the component is mounted; always its latest version. */
export function useBridgeEvents(listener: Listener): void {
  const { subscribe } = useHub();
  const latest = useRef(listener);
  // In the commit that draws what the listener reads (a layout effect): an event arriving before
  // the passive effects ran would otherwise reach the version of a render before.
  useLayoutEffect(() => {
    latest.current = listener;
  });
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
}
