// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppState } from '../../preload/contract';
import { appState, createFakeBridge, FakeBridgeError } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { tomorrowMorning } from './PauseControl';
import { SettingsView } from './SettingsView';

afterEach(cleanup);

async function renderSettings(state: AppState = appState()) {
  const bridge = createFakeBridge({ state });
  const onState = vi.fn();
  renderWithBridge(bridge, <SettingsView state={state} onState={onState} />);
  await screen.findByRole('form', { name: 'Settings' });
  return { bridge, onState };
}

describe('SettingsView', () => {
  it('shows every setting', async () => {
    await renderSettings();
    expect(screen.getByLabelText('Base URL')).toHaveProperty('value', 'https://marketplace.example');
    expect(screen.getByLabelText('Client id')).toHaveProperty('value', 'seller-client');
    expect(screen.getByLabelText('Check for new orders every (seconds)')).toHaveProperty('value', '60');
    expect(screen.getByLabelText('Show a notification for each new order')).toHaveProperty('checked', true);
    expect(screen.getByLabelText('Remind me of an order still waiting after (minutes)')).toHaveProperty(
      'value',
      '240',
    );
    expect(screen.getByLabelText('Open Seller Tray when I log in')).toHaveProperty('checked', false);
    expect(screen.getByText('Demo mode is off.')).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Pause notifications' })).toBeTruthy();
    expect(screen.getByLabelText('New client secret')).toHaveProperty('type', 'password');
  });

  it('saves only what changed', async () => {
    const { bridge } = await renderSettings();
    fireEvent.change(screen.getByLabelText('Check for new orders every (seconds)'), {
      target: { value: '120' },
    });
    fireEvent.click(screen.getByLabelText('Open Seller Tray when I log in'));
    fireEvent.change(screen.getByLabelText('Remind me of an order still waiting after (minutes)'), {
      target: { value: '0' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(bridge.callsOf('setSettings')).toEqual([
        { pollIntervalSeconds: 120, openAtLogin: true, reminderAfterMinutes: 0 },
      ]),
    );
    expect(await screen.findByText('Settings saved.')).toBeTruthy();
  });

  it("shows the service's validation message next to the form", async () => {
    const { bridge } = await renderSettings();
    const message =
      'pollIntervalSeconds must be a whole number of seconds from 30 to 3600 (30 seconds to 1 hour)';
    bridge.handle('setSettings', () => {
      throw new FakeBridgeError('invalid-input', message);
    });
    fireEvent.change(screen.getByLabelText('Check for new orders every (seconds)'), {
      target: { value: '5' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    const form = screen.getByRole('form', { name: 'Settings' });
    expect((await within(form).findByRole('alert')).textContent).toContain(message);
    expect(bridge.callsOf('setSettings')).toEqual([{ pollIntervalSeconds: 5 }]);
    // What the user typed stays, to be corrected.
    expect(screen.getByLabelText('Check for new orders every (seconds)')).toHaveProperty('value', '5');
  });

  it('sends text that is no whole number as typed, for the service to refuse', async () => {
    const { bridge } = await renderSettings();
    fireEvent.change(screen.getByLabelText('Remind me of an order still waiting after (minutes)'), {
      target: { value: '1.5' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(bridge.callsOf('setSettings')).toEqual([{ reminderAfterMinutes: '1.5' }]));
  });

  it('pauses notifications for an hour, until tomorrow, and resumes them', async () => {
    const { bridge, onState } = await renderSettings();
    const before = Date.now();
    fireEvent.click(screen.getByRole('button', { name: 'Pause for 1 hour' }));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')).toHaveLength(1));
    const until = Date.parse(bridge.callsOf('pauseNotifications')[0]?.until ?? '');
    expect(until - before).toBeGreaterThanOrEqual(3_600_000);
    expect(until - before).toBeLessThan(3_600_000 + 5_000);
    expect(onState).toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: /Pause until tomorrow/ }));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')).toHaveLength(2));
    expect(bridge.callsOf('pauseNotifications')[1]?.until).toBe(tomorrowMorning(Date.now()).toISOString());
    cleanup();

    const paused = appState({ notificationsPausedUntil: new Date(Date.now() + 60_000).toISOString() });
    const second = await renderSettings(paused);
    expect(screen.getByText(/Notifications are paused until/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Resume notifications' }));
    await waitFor(() => expect(second.bridge.callsOf('pauseNotifications')).toEqual([{ until: null }]));
  });

  it('says the secret will be asked for again before the account moves to another marketplace', async () => {
    await renderSettings();
    const hint = () =>
      document.getElementById(screen.getByLabelText('Base URL').getAttribute('aria-describedby') ?? '');
    expect(hint()?.textContent).toBe('');
    fireEvent.change(screen.getByLabelText('Base URL'), {
      target: { value: 'https://marketplace.example/v2' },
    });
    expect(hint()?.textContent).toBe('');
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'https://elsewhere.example' } });
    expect(hint()?.textContent).toBe(
      'Seller Tray keeps the client secret for the marketplace and client id it was entered for, and sends it nowhere else. After this change it asks for the secret again.',
    );
    fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'https://marketplace.example' } });
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: 'another-client' } });
    expect(hint()?.textContent).toContain('asks for the secret again');
  });

  it('replaces the secret without ever showing it', async () => {
    const { bridge, onState } = await renderSettings();
    const input = screen.getByLabelText('New client secret');
    fireEvent.change(input, { target: { value: 'n3w-s3cret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Replace secret' }));
    await waitFor(() => expect(bridge.callsOf('setSecret')).toEqual([{ secret: 'n3w-s3cret' }]));
    expect(await screen.findByText('The new secret is stored in the keychain.')).toBeTruthy();
    expect(input).toHaveProperty('value', '');
    expect(onState).toHaveBeenCalled();
  });

  it('diagnoses the connection and shows the report to copy', async () => {
    const { bridge } = await renderSettings();
    bridge.handle('diagnose', () => ({
      report: 'listNewEvents  tolerated HTTP 404 9 ms\n    Seller Tray reads the full event list instead\n',
      failed: false,
    }));
    fireEvent.click(screen.getByRole('button', { name: 'Diagnose connection' }));
    const report = await screen.findByLabelText('Diagnosis report');
    expect(report.textContent).toContain('reads the full event list instead');
    expect(screen.getByText(/Every operation answered/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy diagnosis report' })).toBeTruthy();
    expect(bridge.callsOf('diagnose')).toHaveLength(1);
  });

  it('opens the log folder, and says where it is', async () => {
    const { bridge } = await renderSettings();
    fireEvent.click(screen.getByRole('button', { name: 'Open log folder' }));
    expect(await screen.findByText(/^Opened the log folder:/)).toBeTruthy();
    expect(screen.getByText('/home/seller/.config/Seller Tray/logs')).toBeTruthy();
    expect(bridge.callsOf('openLogFolder')).toHaveLength(1);

    // The browser preview cannot open a folder: the path is there to copy.
    bridge.handle('openLogFolder', () => ({ path: '/srv/preview/logs', opened: false }));
    fireEvent.click(screen.getByRole('button', { name: 'Open log folder' }));
    expect(await screen.findByText(/^The log file is in this folder:/)).toBeTruthy();
    expect(screen.getByText('/srv/preview/logs')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy log folder path' })).toBeTruthy();

    bridge.handle('openLogFolder', () => {
      throw new FakeBridgeError('open-failed', 'The log folder could not be opened (no file manager).');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Open log folder' }));
    expect((await screen.findByRole('alert')).textContent).toContain('could not be opened');
  });

  it('shows demo mode as read-only', async () => {
    const bridge = createFakeBridge({ state: appState({ setup: 'demo' }), settings: { demoMode: true } });
    renderWithBridge(bridge, <SettingsView state={bridge.state} onState={() => {}} />);
    expect(await screen.findByText(/Demo mode is on/)).toBeTruthy();
    expect(screen.getByLabelText('New client secret')).toHaveProperty('disabled', true);
  });
});
