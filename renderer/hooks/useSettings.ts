// The settings as the service has them, for views that follow them (the inbox's order and
// urgency limits); read again whenever the app's state changes, as a settings change says so.
import { useCallback, useEffect, useState } from 'react';
import type { Settings } from '../../preload/model';
import { call } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';

/** The settings, null until read; `save` changes some and keeps the answer. */
export function useSettings(): { settings: Settings | null; save(patch: Partial<Settings>): Promise<void> } {
  const bridge = useBridge();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [reads, setReads] = useState(0);
  useBridgeEvents((event) => {
    if (event.type === 'app-state') setReads((n) => n + 1);
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `reads` is the trigger to read again
  useEffect(() => {
    let current = true;
    call(bridge, 'getSettings', undefined).then(
      (read) => {
        if (current) setSettings(read);
      },
      () => undefined, // The view keeps the defaults it had; Settings shows why it cannot read them.
    );
    return () => {
      current = false;
    };
  }, [bridge, reads]);
  const save = useCallback(
    async (patch: Partial<Settings>) => {
      setSettings(await call(bridge, 'setSettings', patch));
    },
    [bridge],
  );
  return { settings, save };
}
