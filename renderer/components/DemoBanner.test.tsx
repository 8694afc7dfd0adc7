// @vitest-environment happy-dom
// Leaving the demo when it fails: the banner (and Settings' demo note, the same button) says so
// beside the button in plain words, the detail behind "Details", and the demo goes on.
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  settingsWriteProblem,
} from '../../test/support/renderer/error-details';
import { appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { DemoBanner } from './DemoBanner';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('leaving the demo', () => {
  it('says in the banner why it could not, the detail one click away, and stays in the demo', async () => {
    const bridge = createFakeBridge({ state: { setup: 'demo' }, settings: { demoMode: true } });
    bridge.handle('setSettings', () => {
      throw bridgeFailure('internal', settingsWriteProblem());
    });
    const onState = vi.fn();
    renderWithBridge(bridge, <DemoBanner state={appState({ setup: 'demo' })} onState={onState} />);
    fireEvent.click(screen.getByRole('button', { name: 'Leave the demo' }));

    const alert = await screen.findByRole('alert');
    expect(alert.closest('.demo-banner')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Leave the demo' })).toHaveProperty('disabled', false);
    expect(onState).not.toHaveBeenCalled();
    expect(bridge.callsOf('setSettings')).toEqual([{ demoMode: false }]);
    await expectExplainedOneClickAway(alert, settingsWriteProblem());

    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
