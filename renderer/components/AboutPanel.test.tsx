// @vitest-environment happy-dom
// Settings' update parts: "Check for updates automatically" (on by default, saved like any setting)
// and the About panel: version, channel, who updates this copy, the last check, Check for updates,
// and a status pushed by the main process.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpdateStatus } from '../../preload/contract';
import { appState, createFakeBridge, UP_TO_DATE } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { AboutPanel } from './AboutPanel';
import { SettingsView } from './SettingsView';

afterEach(cleanup);

function renderAbout(status: UpdateStatus = UP_TO_DATE) {
  const bridge = createFakeBridge();
  bridge.handle('getUpdateStatus', () => status);
  renderWithBridge(bridge, <AboutPanel />);
  return bridge;
}

const about = () => screen.getByRole('region', { name: 'About Seller Tray' });
const field = (name: string) =>
  within(about()).getByText(name, { selector: 'dt' }).nextElementSibling?.textContent ?? '';

describe('updates in Settings', () => {
  it('"Check for updates automatically" is on by default and saved when turned off', async () => {
    const state = appState();
    const bridge = createFakeBridge({ state });
    renderWithBridge(bridge, <SettingsView state={state} onState={vi.fn()} />);
    const box = await screen.findByLabelText('Check for updates automatically');
    expect(box).toHaveProperty('checked', true);
    fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(bridge.callsOf('setSettings')).toEqual([{ checkForUpdatesAutomatically: false }]),
    );
    expect(await screen.findByRole('region', { name: 'About Seller Tray' })).toBeTruthy();
  });

  it('About shows the version, the channel, who updates the app and the last check', async () => {
    renderAbout();
    await screen.findByText('0.1.0');
    expect(field('Version')).toBe('0.1.0');
    expect(field('Channel')).toBe('latest');
    expect(field('Updates')).toMatch(/^Seller Tray updates itself/);
    expect(field('Last check')).toContain('Seller Tray 0.1.0 is up to date.');
  });

  it('Check for updates asks the main process and shows what it found', async () => {
    const bridge = renderAbout({ ...UP_TO_DATE, lastCheck: null });
    expect(await screen.findByText('Not checked yet')).toBeTruthy();
    bridge.handle('checkForUpdates', () => ({
      ...UP_TO_DATE,
      lastCheck: {
        at: '2026-11-22T08:00:00.000Z',
        result: 'Seller Tray could not reach its update server; it will try again later.',
        failed: true,
      },
    }));
    fireEvent.click(screen.getByRole('button', { name: 'Check for updates' }));
    await waitFor(() => expect(field('Last check')).toContain('could not reach its update server'));
    expect(bridge.callsOf('checkForUpdates')).toHaveLength(1);
  });

  it('follows the main process: a downloaded version, then a restart waiting for statuses', async () => {
    const bridge = renderAbout();
    await screen.findByText('0.1.0');
    act(() => bridge.emit({ type: 'update-status', status: { ...UP_TO_DATE, ready: '0.3.0' } }));
    expect(
      await screen.findByText(
        'Seller Tray 0.3.0 is ready — restart to update (tray menu → Restart to update).',
      ),
    ).toBeTruthy();
    act(() =>
      bridge.emit({ type: 'update-status', status: { ...UP_TO_DATE, ready: '0.3.0', restartWaitsFor: 2 } }),
    );
    expect(
      await screen.findByText('Seller Tray will restart to update to 0.3.0 when 2 statuses have been sent.'),
    ).toBeTruthy();
  });

  it.each([
    ['package-manager', /your package manager \(such as apt\) updates it/],
    ['no-feed', /has no update server, so it does not update itself/],
  ] as const)('a copy updated elsewhere (%s) says so, and offers no check', async (availability, text) => {
    renderAbout({ ...UP_TO_DATE, availability, lastCheck: null });
    await screen.findByText('0.1.0');
    expect(field('Updates')).toMatch(text);
    expect(field('Last check')).toBe('None');
    expect(screen.queryByRole('button', { name: 'Check for updates' })).toBeNull();
  });
});
