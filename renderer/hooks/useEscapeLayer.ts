// Escape closes the innermost thing open (a menu, a form, a disclosure) wherever the focus is,
// its toggle included; only with nothing open does a view's own Escape act (an order's: back to
// the inbox). One capture listener for all, so no view has to know what another opened. A modal
// dialog handles its own Escape.
import { useLayoutEffect, useRef } from 'react';
import { keyAction } from '../keyboard';

const layers: { close: () => void }[] = [];

function closeInnermost(event: KeyboardEvent): void {
  if (
    keyAction(event, 'window') !== 'close' ||
    event.defaultPrevented ||
    document.querySelector('[aria-modal="true"]')
  )
    return;
  const innermost = layers.at(-1);
  if (!innermost) return;
  event.preventDefault();
  event.stopPropagation();
  innermost.close();
}

/** While `open`, Escape calls `close` (the latest one given), before anything opened earlier. */
export function useEscapeLayer(open: boolean, close: () => void): void {
  const latest = useRef(close);
  latest.current = close;
  // Before the open thing is shown (a layout effect, not a passive one run later): an Escape
  // pressed the moment it appears closes it.
  useLayoutEffect(() => {
    if (!open) return;
    const layer = { close: () => latest.current() };
    if (layers.length === 0) document.addEventListener('keydown', closeInnermost, true);
    layers.push(layer);
    return () => {
      layers.splice(layers.indexOf(layer), 1);
      if (layers.length === 0) document.removeEventListener('keydown', closeInnermost, true);
    };
  }, [open]);
}

/** An open form with a Cancel: Escape leaves it as Cancel does, but not while it is being sent. */
export function useCancelOnEscape(busy: boolean, cancel: () => void): void {
  useEscapeLayer(true, () => {
    if (!busy) cancel();
  });
}
