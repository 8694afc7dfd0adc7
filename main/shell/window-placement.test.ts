// Where the popover opens for each place a tray icon can be, and the full-size window.
import { describe, expect, it } from 'vitest';
import { popoverBounds, type Rect, WINDOW_SIZES, windowBounds } from './window-placement';

/** A 1920×1080 screen and where its work area is, by where the taskbar is. */
const SCREEN = { width: 1920, height: 1080 };
const WORK_AREAS: Record<string, Rect> = {
  top: { x: 0, y: 28, width: 1920, height: 1052 },
  bottom: { x: 0, y: 0, width: 1920, height: 1040 },
  left: { x: 60, y: 0, width: 1860, height: 1080 },
  right: { x: 0, y: 0, width: 1860, height: 1080 },
};
const { width, height } = WINDOW_SIZES.popover;

const within = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;

describe('the popover at the tray icon', () => {
  it.each([
    [
      'a top bar (macOS, most Linux panels): below the icon, centred on it',
      'top',
      { x: 1500, y: 2, width: 24, height: 24 },
    ],
    ['a bottom taskbar (Windows): above the icon', 'bottom', { x: 1500, y: 1048, width: 24, height: 24 }],
    ['a left taskbar: beside the icon', 'left', { x: 18, y: 500, width: 24, height: 24 }],
    ['a right taskbar: beside the icon', 'right', { x: 1878, y: 500, width: 24, height: 24 }],
  ] as const)('opens by %s, whole on the screen', (_, side, icon) => {
    const area = WORK_AREAS[side] as Rect;
    const bounds = popoverBounds(icon, area);
    expect(bounds).toMatchObject({ width, height });
    expect(within(bounds, area)).toBe(true);
    const iconCentre = { x: icon.x + icon.width / 2, y: icon.y + icon.height / 2 };
    if (side === 'top') expect(bounds.y).toBeGreaterThanOrEqual(icon.y + icon.height);
    if (side === 'bottom') expect(bounds.y + bounds.height).toBeLessThanOrEqual(icon.y);
    if (side === 'left') expect(bounds.x).toBeGreaterThanOrEqual(icon.x + icon.width);
    if (side === 'right') expect(bounds.x + bounds.width).toBeLessThanOrEqual(icon.x);
    if (side === 'top' || side === 'bottom')
      expect(Math.abs(bounds.x + width / 2 - iconCentre.x)).toBeLessThan(1);
    else expect(Math.abs(bounds.y + height / 2 - iconCentre.y)).toBeLessThan(1);
  });

  it('stays on the screen when the icon is at its very corner', () => {
    const area = WORK_AREAS.top as Rect;
    const bounds = popoverBounds({ x: SCREEN.width - 20, y: 2, width: 20, height: 24 }, area);
    expect(within(bounds, area)).toBe(true);
    expect(bounds.x + bounds.width).toBe(area.x + area.width - 4);
  });

  it('opens at the top-right corner of the work area where the tray does not tell where its icon is', () => {
    const area = WORK_AREAS.top as Rect;
    for (const unknown of [undefined, { x: 0, y: 0, width: 0, height: 0 }]) {
      expect(popoverBounds(unknown, area)).toEqual({ x: 1920 - width - 4, y: 28 + 4, width, height });
    }
  });

  it('shrinks to a screen smaller than itself', () => {
    const small = { x: 0, y: 0, width: 400, height: 600 };
    const bounds = popoverBounds({ x: 380, y: 0, width: 20, height: 20 }, small);
    expect(bounds).toMatchObject({ width: 392, height: 592 });
    expect(within(bounds, small)).toBe(true);
  });
});

describe('the full-size window', () => {
  it('is centred in the work area, and no larger than it', () => {
    expect(windowBounds(WORK_AREAS.top as Rect)).toEqual({ ...WINDOW_SIZES.window, x: 410, y: 194 });
    expect(windowBounds({ x: 0, y: 0, width: 800, height: 600 })).toEqual({
      x: 0,
      y: 0,
      width: 800,
      height: 600,
    });
  });
});
