// A choice that asks the service (a pause's "For 1 hour") is disabled while it runs, and Chromium
// drops the focus to the page as it is; refused, its choices stay open under the message, and the
// focus goes back to it, so it can be tried again or closed with Escape.
import { useEffect, useState } from 'react';

/** Call with the choice refused (null as another runs): it has the focus once enabled again. */
export function useRefusedChoice(busy: boolean): (choice: HTMLElement | null) => void {
  const [refused, setRefused] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!busy) refused?.focus();
  }, [busy, refused]);
  return setRefused;
}
