// @vitest-environment happy-dom
// Leaving the demo when it fails: it says why in plain words, the detail behind "Details", and
// the demo goes on. In Settings beside the button; from the banner under the banners.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  settingsWriteProblem,
} from '../../test/support/renderer/error-details';
import { createFakeBridge, type FakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { App } from '../App';
import { LeaveDemoButton } from './DemoBanner';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The demo, whose settings file cannot be written. */
function failingDemo(): FakeBridge {
  const bridge = createFakeBridge({ state: { setup: 'demo' }, settings: { demoMode: true } });
  bridge.handle('setSettings', () => {
    throw bridgeFailure('internal', settingsWriteProblem());
  });
  return bridge;
}

describe('leaving the demo that fails', () => {
  it('says why beside the button in Settings, the detail one click away, and stays in the demo', async () => {
    const bridge = failingDemo();
    const onState = vi.fn();
    renderWithBridge(bridge, <LeaveDemoButton onState={onState} />);
    fireEvent.click(screen.getByRole('button', { name: 'Leave the demo' }));

    const alert = await screen.findByRole('alert');
    expect(screen.getByRole('button', { name: 'Leave the demo' })).toHaveProperty('disabled', false);
    expect(onState).not.toHaveBeenCalled();
    expect(bridge.callsOf('setSettings')).toEqual([{ demoMode: false }]);
    await expectExplainedOneClickAway(alert, settingsWriteProblem());

    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says why under the banners when left from the banner, which stays as it was', async () => {
    const { container } = render(<App bridge={failingDemo()} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Leave the demo' }));
    const alert = await screen.findByRole('alert');
    expect(container.querySelector('.problems')?.contains(alert)).toBe(true);
    expect(container.querySelector('.banners')?.textContent).toBe(
      'This is the demo marketplace: its orders are made up.Leave the demo',
    );
    await expectExplainedOneClickAway(alert, settingsWriteProblem());
  });
});
