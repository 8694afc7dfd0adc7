// The settings as the service has them, for views that follow them (the inbox's order and
// urgency limits); read again whenever the app's state changes, as a settings change says so.
// A read that finds them as they were keeps the object shown: every poll tells the app's state
// (with several accounts, Check now once per account), and a new object each time would draw
// again everything that follows them (the inbox and each of its rows) for nothing.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Settings } from '../../preload/model';
import { call } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';

/** The settings, null until read; `save` changes some and keeps the answer. */
export function useSettings(): { settings: Settings | null; save(patch: Partial<Settings>): Promise<void> } {
  const bridge = useBridge();
  const [settings, setSettings] = useState<Settings | null>(null);
  /** The latest read: an earlier one's answer, or one after the view went, is dropped. */
  const latest = useRef(0);
  const read = useCallback(() => {
    const mine = ++latest.current;
    call(bridge, 'getSettings', undefined).then(
      (answer) => {
        if (mine !== latest.current) return;
        setSettings((shown) => (JSON.stringify(shown) === JSON.stringify(answer) ? shown : answer));
      },
      () => undefined, // The view keeps the defaults it had; Settings shows why it cannot read them.
    );
  }, [bridge]);
  useEffect(() => {
    read();
    return () => {
      latest.current += 1;
    };
  }, [read]);
  useBridgeEvents((event) => {
    if (event.type === 'app-state') read();
  });
  const save = useCallback(
    async (patch: Partial<Settings>) => {
      setSettings(await call(bridge, 'setSettings', patch));
    },
    [bridge],
  );
  return { settings, save };
}
