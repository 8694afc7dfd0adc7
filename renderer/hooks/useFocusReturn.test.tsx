// @vitest-environment happy-dom
// The focus given back to the button that opened a form, once that button is shown again: also
// when something else renders the panel in between, with the form still open (a state update from
// the main process arriving before the form closes).
import { act, cleanup, render } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, expect, it } from 'vitest';
import { useFocusReturn } from './useFocusReturn';

afterEach(cleanup);

let panel: { returnTo: (key: string) => void; rerender: () => void; closeForm: () => void } | undefined;

function Panel() {
  const { container, returnTo } = useFocusReturn<HTMLDivElement>();
  const [open, setOpen] = useState(true);
  const [, setTick] = useState(0);
  panel = { returnTo, rerender: () => setTick((n) => n + 1), closeForm: () => setOpen(false) };
  return (
    <div ref={container}>
      {open ? (
        <input aria-label="New client secret of US" />
      ) : (
        <button type="button" data-opens="secret:us">
          Replace secret of US
        </button>
      )}
    </div>
  );
}

it('gives the focus back to the button once it shows', () => {
  render(<Panel />);
  act(() => {
    panel?.returnTo('secret:us');
    panel?.closeForm();
  });
  expect(document.activeElement?.getAttribute('data-opens')).toBe('secret:us');
});

it('waits for the button through a render that does not show it yet', () => {
  render(<Panel />);
  act(() => {
    panel?.returnTo('secret:us');
    panel?.rerender();
  });
  act(() => panel?.closeForm());
  expect(document.activeElement?.getAttribute('data-opens')).toBe('secret:us');
});
