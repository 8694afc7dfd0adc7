// @vitest-environment happy-dom
// A pause that fails, in each place it can be asked for (the header's menu, the banner's Resume,
// Settings): it says so in plain words, its detail behind "Details"; the banner hands its own on
// (App.test.tsx shows where the app puts it).
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UNTIL_RESUMED } from '../../preload/pause';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  settingsWriteProblem,
} from '../../test/support/renderer/error-details';
import { appState, createFakeBridge, type FakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { PauseControl, PausedBanner, PauseMenu } from './PauseControl';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const PAUSED = appState({ notificationsPausedUntil: UNTIL_RESUMED });
const BANNER_WORDS = 'Notifications paused until you resume them. New orders still arrive here.Resume';

/** A bridge whose pauses fail as a settings file that cannot be written makes them. */
function failingBridge(): FakeBridge {
  const bridge = createFakeBridge();
  bridge.handle('pauseNotifications', () => {
    throw bridgeFailure('internal', settingsWriteProblem());
  });
  return bridge;
}

describe('a pause that fails', () => {
  it('keeps the header menu open on its message, the focus back on the choice, the detail behind Details', async () => {
    const bridge = failingBridge();
    const onState = vi.fn();
    renderWithBridge(bridge, <PauseMenu state={appState()} onState={onState} />);
    const pause = screen.getByRole('button', { name: 'Pause notifications' });
    fireEvent.click(pause);
    const choice = screen.getByRole('button', { name: 'For 4 hours' });
    fireEvent.click(choice);

    const alert = await screen.findByRole('alert');
    expect(pause.getAttribute('aria-expanded')).toBe('true');
    const panel = document.getElementById(pause.getAttribute('aria-controls') ?? '') as HTMLElement;
    expect(panel.hidden).toBe(false);
    expect(panel.contains(alert)).toBe(true);
    await waitFor(() => expect(document.activeElement).toBe(choice));
    expect(onState).not.toHaveBeenCalled();
    await expectExplainedOneClickAway(alert, settingsWriteProblem());

    // Escape still closes it; opened again, the choices are there without the old failure.
    fireEvent.keyDown(choice, { key: 'Escape' });
    expect(pause.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(pause);
    expect(within(panel).queryByRole('alert')).toBeNull();
  });

  it('closes the header menu once a try again works', async () => {
    const bridge = failingBridge();
    renderWithBridge(bridge, <PauseMenu state={appState()} onState={() => {}} />);
    const pause = screen.getByRole('button', { name: 'Pause notifications' });
    fireEvent.click(pause);
    fireEvent.click(screen.getByRole('button', { name: 'Until I resume' }));
    await screen.findByRole('alert');
    bridge.handle('pauseNotifications', () => PAUSED);
    fireEvent.click(screen.getByRole('button', { name: 'Until I resume' }));
    await waitFor(() => expect(pause.getAttribute('aria-expanded')).toBe('false'));
    expect(document.activeElement).toBe(pause);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("hands a failed Resume in the banner to the app's problems, the banner as it was", async () => {
    const onError = vi.fn();
    renderWithBridge(failingBridge(), <PausedBanner state={PAUSED} onState={() => {}} onError={onError} />);
    const resume = screen.getByRole('button', { name: 'Resume' });
    fireEvent.click(resume);
    await waitFor(() => expect(onError).toHaveBeenCalledOnce());
    expect(onError).toHaveBeenCalledWith(settingsWriteProblem());
    await waitFor(() => expect(resume).toHaveProperty('disabled', false));
    expect(screen.getByRole('status').textContent).toBe(BANNER_WORDS);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says so in Settings, under the choices', async () => {
    renderWithBridge(failingBridge(), <PauseControl state={appState()} onState={() => {}} />);
    const group = screen.getByRole('group', { name: 'Pause notifications' });
    fireEvent.click(within(group).getByRole('button', { name: 'For 1 hour' }));
    const alert = await within(group).findByRole('alert');
    expect(within(group).getByText('Notifications are not paused.')).toBeTruthy();
    await expectExplainedOneClickAway(alert, settingsWriteProblem());
  });
});
