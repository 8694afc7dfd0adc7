// A key a view answers wherever the focus is (Ctrl+Z while the undo bar offers, "/" in the inbox).
// Listened for from the moment the view is shown, not after: a passive effect runs after the
// paint, so a key pressed the moment a bar or a view appears went unheard.
import { useLayoutEffect, useRef } from 'react';

/** While `active`, each keydown in the document goes to `onKey` (the latest one given). */
export function useDocumentKey(onKey: (event: KeyboardEvent) => void, active = true): void {
  const latest = useRef(onKey);
  latest.current = onKey;
  useLayoutEffect(() => {
    if (!active) return;
    const listener = (event: KeyboardEvent) => latest.current(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [active]);
}
