// @vitest-environment happy-dom
// The bridge's events reach each view's latest listener, also in the moment after a render
// was drawn and before React ran its passive effects.
import { cleanup, render } from '@testing-library/react';
import { type ReactNode, useLayoutEffect } from 'react';
import { afterEach, expect, it } from 'vitest';
import { createFakeBridge, type FakeBridge } from '../../test/support/renderer/fake-bridge';
import { BridgeProvider, useBridgeEvents } from './context';

afterEach(cleanup);

/** Records, for each event, the `shown` it had when the event came. */
function Listening({ shown, heard }: { shown: number; heard: number[] }) {
  useBridgeEvents(() => heard.push(shown));
  return null;
}

/** An event in the commit that draws `shown` (a layout effect): before the passive effects. */
function EmitsOnDraw({ bridge, shown }: { bridge: FakeBridge; shown: number }) {
  useLayoutEffect(() => {
    if (shown > 1) bridge.emit({ type: 'app-state', state: bridge.state });
  }, [bridge, shown]);
  return null;
}

it('reaches the listener of the render just drawn, not the one before', () => {
  const bridge = createFakeBridge();
  const heard: number[] = [];
  const page = (shown: number) => (
    <>
      <Listening shown={shown} heard={heard} />
      <EmitsOnDraw bridge={bridge} shown={shown} />
    </>
  );
  const { rerender } = render(page(1), {
    wrapper: ({ children }: { children: ReactNode }) => (
      <BridgeProvider bridge={bridge}>{children}</BridgeProvider>
    ),
  });
  rerender(page(2));
  expect(heard).toEqual([2]);
});
