// Where the window goes. As a popover it opens at the tray icon, as tray apps do: below an icon
// in a top bar (macOS, most Linux panels), above one in a bottom taskbar (Windows), beside one in a
// side taskbar; always whole on the screen the icon is on. Where the icon's place is not known
// (Linux trays often do not tell), at the work area's top-right corner. "Open in a window" gives
// the full-size window, centred.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type WindowMode = 'popover' | 'window';

/** The sizes of each mode: the popover's is the one the renderer's tray-sized layout is tested at. */
export const WINDOW_SIZES: Readonly<Record<WindowMode, { width: number; height: number }>> = {
  popover: { width: 420, height: 640 },
  window: { width: 1100, height: 720 },
};

/** Space kept between the icon or the screen's edge and the popover. */
const GAP = 4;

/** The popover's bounds for a tray icon at `tray` (undefined or empty: not known) within `workArea`. */
export function popoverBounds(tray: Rect | undefined, workArea: Rect): Rect {
  const width = Math.min(WINDOW_SIZES.popover.width, workArea.width - 2 * GAP);
  const height = Math.min(WINDOW_SIZES.popover.height, workArea.height - 2 * GAP);
  const right = workArea.x + workArea.width;
  const bottom = workArea.y + workArea.height;
  const clampX = (x: number) => Math.min(Math.max(x, workArea.x + GAP), right - width - GAP);
  const clampY = (y: number) => Math.min(Math.max(y, workArea.y + GAP), bottom - height - GAP);
  if (tray === undefined || tray.width <= 0 || tray.height <= 0) {
    return { x: right - width - GAP, y: workArea.y + GAP, width, height };
  }
  const centreX = tray.x + tray.width / 2;
  const centreY = tray.y + tray.height / 2;
  const side = taskbarSide(centreX, centreY, workArea);
  const round = (r: Rect): Rect => ({ ...r, x: Math.round(r.x), y: Math.round(r.y) });
  switch (side) {
    case 'top':
      return round({ x: clampX(centreX - width / 2), y: clampY(tray.y + tray.height + GAP), width, height });
    case 'bottom':
      return round({ x: clampX(centreX - width / 2), y: clampY(tray.y - height - GAP), width, height });
    case 'left':
      return round({ x: clampX(tray.x + tray.width + GAP), y: clampY(centreY - height / 2), width, height });
    case 'right':
      return round({ x: clampX(tray.x - width - GAP), y: clampY(centreY - height / 2), width, height });
  }
}

/**
 * Where the taskbar holding the icon is: the side of the work area the icon lies outside of
 * (the work area leaves the taskbar out); the nearest side when it lies inside.
 */
function taskbarSide(x: number, y: number, area: Rect): 'top' | 'bottom' | 'left' | 'right' {
  const right = area.x + area.width;
  const bottom = area.y + area.height;
  if (y < area.y) return 'top';
  if (y > bottom) return 'bottom';
  if (x < area.x) return 'left';
  if (x > right) return 'right';
  const distances = { top: y - area.y, bottom: bottom - y, left: x - area.x, right: right - x };
  return (Object.keys(distances) as (keyof typeof distances)[]).reduce((a, b) =>
    distances[b] < distances[a] ? b : a,
  );
}

/** The full-size window's bounds: its size, or the work area's when smaller, centred. */
export function windowBounds(workArea: Rect): Rect {
  const width = Math.min(WINDOW_SIZES.window.width, workArea.width);
  const height = Math.min(WINDOW_SIZES.window.height, workArea.height);
  return {
    x: Math.round(workArea.x + (workArea.width - width) / 2),
    y: Math.round(workArea.y + (workArea.height - height) / 2),
    width,
    height,
  };
}
