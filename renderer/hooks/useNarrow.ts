// Whether an element is narrower than a width, kept current as it is resized: the inbox's list
// is narrow in a tray-sized window and in the split view's left pane alike, whatever the window.
import { type RefObject, useEffect, useState } from 'react';

export function useNarrow(ref: RefObject<HTMLElement | null>, width: number): boolean {
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => setNarrow(element.clientWidth > 0 && element.clientWidth <= width);
    update();
    if (typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(update);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, width]);
  return narrow;
}
