// happy-dom does no layout: for the tests of a file, the inbox's scroll container is given the
// height CSS gives it (every other element none), so the virtualised list renders its rows.
import { afterAll, beforeAll } from 'vitest';

export function withInboxHeight(height: number): void {
  const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
      configurable: true,
      get(this: HTMLElement) {
        return this.classList.contains('inbox-scroll') ? height : 0;
      },
    });
  });
  afterAll(() => {
    if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
  });
}

/** The window's size (happy-dom's viewport), which media queries read: the split view's 900 px. */
export function setWindowSize(width: number, height = 720): void {
  (
    window as unknown as { happyDOM: { setViewport(size: { width: number; height: number }): void } }
  ).happyDOM.setViewport({
    width,
    height,
  });
}
