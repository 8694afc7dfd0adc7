// An element's width in pixels, kept current as it is resized: the charts draw at the size they
// are shown, so their text stays readable in a tray-sized window and a wide one alike.
import { type RefObject, useEffect, useState } from 'react';

/** Before the first measure (and where nothing lays out, as in unit tests). */
const FALLBACK = 600;

export function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(FALLBACK);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => setWidth(element.clientWidth > 0 ? element.clientWidth : FALLBACK);
    update();
    if (typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(update);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
