// A form opened in place of its button (Rename, Add an account, Add an automation) unmounts the
// button; closed, the focus would land on the page. This gives it back to the button that opened
// it once that is shown again: the button carries `data-opens={key}`, the closing calls `returnTo(key)`.
import { type RefObject, useCallback, useEffect, useRef } from 'react';

export function useFocusReturn<T extends HTMLElement>(): {
  container: RefObject<T | null>;
  returnTo: (key: string) => void;
} {
  const container = useRef<T>(null);
  const pending = useRef<string | null>(null);
  // After every render: the button is back once the form that replaced it is gone. A render
  // before that (a state update with the form still open) leaves the return waiting.
  useEffect(() => {
    if (pending.current === null) return;
    const button = container.current?.querySelector<HTMLElement>(
      `[data-opens="${CSS.escape(pending.current)}"]`,
    );
    if (!button) return;
    button.focus();
    pending.current = null;
  });
  const returnTo = useCallback((key: string) => {
    pending.current = key;
  }, []);
  return { container, returnTo };
}
