// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import { type AppState, UNMANAGED_STATE } from '../../preload/contract';
import type { Settings } from '../../preload/model';
import { tomorrowMorning, UNTIL_RESUMED } from '../../preload/pause';
import { SETTING_ENTRIES, SETTINGS_SECTIONS } from '../../preload/settings-declaration';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  settingsWriteProblem,
} from '../../test/support/renderer/error-details';
import { appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { SettingsView } from './SettingsView';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function renderSettings(state: AppState = appState(), settings: Partial<Settings> = {}) {
  const bridge = createFakeBridge({ state, settings });
  const onState = vi.fn();
  renderWithBridge(bridge, <SettingsView state={state} onState={onState} />);
  await screen.findByRole('form', { name: 'Settings' });
  return { bridge, onState };
}

describe('SettingsView', () => {
  it('draws a labelled control for every setting its declaration shows in the form, in its section', async () => {
    await renderSettings();
    const form = screen.getByRole('form', { name: 'Settings' });
    const sections = within(form)
      .getAllByRole('heading', { level: 3 })
      .map((h) => h.textContent);
    expect(sections).toEqual([...SETTINGS_SECTIONS]);
    for (const [, setting] of SETTING_ENTRIES) {
      const { shows } = setting;
      if (shows.in !== 'form') continue;
      const label =
        setting.type === 'whole'
          ? `${setting.label} (${setting.unit})`
          : (setting.type === 'boolean' && shows.text) || setting.label;
      const control = within(form).getByLabelText(label);
      if (setting.type === 'whole') {
        expect(control.getAttribute('max')).toBe(String(setting.max));
        expect(control.getAttribute('min')).toBe(String(setting.off ?? setting.min));
      }
    }
  });

  it('shows every setting', async () => {
    await renderSettings();
    expect(screen.getByLabelText('Base URL')).toHaveProperty('value', 'https://marketplace.example');
    expect(screen.getByLabelText('Client id')).toHaveProperty('value', 'seller-client');
    expect(screen.getByLabelText('Check interval (seconds)')).toHaveProperty('value', '60');
    expect(screen.getByLabelText('Show a notification for each new order')).toHaveProperty('checked', true);
    expect(screen.getByLabelText('Reminder delay (minutes)')).toHaveProperty('value', '240');
    expect(screen.getByLabelText('Open Seller Tray when I log in')).toHaveProperty('checked', false);
    expect(screen.queryByText(/Demo mode is on/)).toBeNull();
    expect(screen.getByRole('group', { name: 'Pause notifications' })).toBeTruthy();
    expect(screen.getByLabelText('New client secret')).toHaveProperty('type', 'password');
  });

  it('says what the automations do, and warns that each computer with them on runs them', async () => {
    await renderSettings(appState(), {
      automations: [
        {
          name: 'provision',
          enabled: true,
          products: ['BV-1TB'],
          orderTypes: [],
          accounts: 'all',
          action: { type: 'command', command: ['/opt/provision.sh', '--eu'], timeoutSeconds: 300 },
          reportStatus: 'completed',
        },
        {
          name: 'sales',
          enabled: false,
          products: [],
          orderTypes: [],
          accounts: 'all',
          action: { type: 'slack' },
          reportStatus: null,
        },
      ],
    });
    const toggle = screen.getByLabelText('Run the automations on this computer');
    expect(toggle).toHaveProperty('checked', false);
    const warning = document.getElementById(toggle.getAttribute('aria-describedby') ?? '');
    expect(warning?.textContent).toMatch(/switch it on in one place only/);
    const listed = within(await screen.findByRole('list', { name: 'Automations' })).getAllByRole('listitem');
    expect(listed.map((item) => item.querySelector('.automation-summary')?.textContent)).toEqual([
      'provision: command /opt/provision.sh --eu (300 s), for product BV-1TB; marks Completed or Failed',
      'sales (off): slack message, for every new order · Slack incoming-webhook address: not set',
    ]);
  });

  it('says none are there yet, and offers to add one', async () => {
    await renderSettings();
    expect(await screen.findByText(/None yet\. An automation runs a command/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add an automation' })).toBeTruthy();
  });

  it('saves only what changed', async () => {
    const { bridge } = await renderSettings();
    fireEvent.change(screen.getByLabelText('Check interval (seconds)'), {
      target: { value: '120' },
    });
    fireEvent.click(screen.getByLabelText('Open Seller Tray when I log in'));
    fireEvent.change(screen.getByLabelText('Reminder delay (minutes)'), {
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

  it("shows the service's refusal at the field it names, tied to it", async () => {
    const { bridge } = await renderSettings();
    const message = 'Check interval must be a whole number of seconds from 30 to 3600 (30 seconds to 1 hour)';
    bridge.handle('setSettings', () => {
      throw new CodedError('invalid-input', message, { fields: [{ field: 'pollIntervalSeconds', message }] });
    });
    const input = screen.getByLabelText('Check interval (seconds)');
    fireEvent.change(input, { target: { value: '5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    const form = screen.getByRole('form', { name: 'Settings' });
    expect((await within(form).findByRole('alert')).textContent).toContain('see the fields marked above');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (input.getAttribute('aria-describedby') ?? '').split(' ');
    expect(describedBy.map((id) => document.getElementById(id)?.textContent)).toContain(message);
    expect(bridge.callsOf('setSettings')).toEqual([{ pollIntervalSeconds: 5 }]);
    // What the user typed stays, to be corrected; the other fields are not marked.
    expect(input).toHaveProperty('value', '5');
    expect(screen.getByLabelText('Reminder delay (minutes)').getAttribute('aria-invalid')).toBeNull();
  });

  it('shows a refusal that names no field above Save, its detail one click away', async () => {
    const { bridge } = await renderSettings();
    bridge.handle('setSettings', () => {
      throw new CodedError('internal', 'The settings file could not be written.', { details: ['EACCES'] });
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    const alert = await within(screen.getByRole('form', { name: 'Settings' })).findByRole('alert');
    expect(alert.textContent).toContain('The settings file could not be written.');
    expect(within(alert).getByText('EACCES')).toBeTruthy();
  });

  it('saves the in-progress limit and the inbox order', async () => {
    const { bridge } = await renderSettings();
    fireEvent.change(screen.getByLabelText('In-progress limit (days)'), { target: { value: '14' } });
    fireEvent.change(screen.getByLabelText('Inbox order'), { target: { value: 'newest' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(bridge.callsOf('setSettings')).toEqual([{ staleInProgressDays: 14, inboxSort: 'newest' }]),
    );
  });

  it('sends text that is no whole number as typed, for the service to refuse', async () => {
    const { bridge } = await renderSettings();
    fireEvent.change(screen.getByLabelText('Reminder delay (minutes)'), {
      target: { value: '1.5' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(bridge.callsOf('setSettings')).toEqual([{ reminderAfterMinutes: '1.5' }]));
  });

  it('pauses notifications for an hour, four hours, until tomorrow or until resumed, and resumes them', async () => {
    const { bridge, onState } = await renderSettings();
    const before = Date.now();
    fireEvent.click(screen.getByRole('button', { name: 'For 1 hour' }));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')).toHaveLength(1));
    const until = Date.parse(bridge.callsOf('pauseNotifications')[0]?.until ?? '');
    expect(until - before).toBeGreaterThanOrEqual(3_600_000);
    expect(until - before).toBeLessThan(3_600_000 + 5_000);
    expect(onState).toHaveBeenCalled();

    // The choices are disabled while a pause is asked for: the next is taken once they are back,
    // which is a render after the answer.
    const choice = (name: string) => screen.getByRole<HTMLButtonElement>('button', { name });
    await waitFor(() => expect(choice('Until tomorrow 08:00').disabled).toBe(false));
    // Tomorrow as of the click: a clock read at the check could be past midnight.
    const clicked = new Date();
    fireEvent.click(choice('Until tomorrow 08:00'));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')).toHaveLength(2));
    expect(bridge.callsOf('pauseNotifications')[1]?.until).toBe(tomorrowMorning(clicked).toISOString());
    await waitFor(() => expect(choice('Until I resume').disabled).toBe(false));
    fireEvent.click(choice('Until I resume'));
    await waitFor(() => expect(bridge.callsOf('pauseNotifications')[2]).toEqual({ until: UNTIL_RESUMED }));
    cleanup();

    const paused = appState({ notificationsPausedUntil: new Date(Date.now() + 60_000).toISOString() });
    const second = await renderSettings(paused);
    expect(screen.getByText(/Notifications are paused until/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Resume notifications' }));
    await waitFor(() => expect(second.bridge.callsOf('pauseNotifications')).toEqual([{ until: null }]));
    cleanup();

    await renderSettings(appState({ notificationsPausedUntil: UNTIL_RESUMED }));
    expect(screen.getByText('Notifications are paused until you resume them.')).toBeTruthy();
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
    expect(bridge.callsOf('testConnection')).toEqual([
      { baseUrl: 'https://marketplace.example', clientId: 'seller-client', secret: 'n3w-s3cret' },
    ]);
    expect(await screen.findByText('The new secret is stored in the keychain.')).toBeTruthy();
    expect(input).toHaveProperty('value', '');
    expect(onState).toHaveBeenCalled();
  });

  it('does not store a secret the marketplace rejects', async () => {
    const { bridge, onState } = await renderSettings();
    bridge.handle('testConnection', () => ({ ok: false, reason: 'credentials', message: 'rejected' }));
    fireEvent.change(screen.getByLabelText('New client secret'), { target: { value: 'wr0ng' } });
    fireEvent.click(screen.getByRole('button', { name: 'Replace secret' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The secret was not stored.');
    expect(bridge.callsOf('setSecret')).toEqual([]);
    expect(onState).not.toHaveBeenCalled();
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

  it('sets the name statuses are marked with (the account name until set) and the time to undo', async () => {
    const { bridge } = await renderSettings(appState({ actorName: 'anna' }));
    const name = screen.getByLabelText('Your name');
    expect(name).toHaveProperty('value', '');
    expect(name.getAttribute('placeholder')).toBe('anna');
    expect(screen.getByText(/"Provisioning\s+started by anna\."/)).toBeTruthy();
    const undo = screen.getByLabelText('Time to undo (seconds)');
    expect(undo).toHaveProperty('value', '10');
    fireEvent.change(name, { target: { value: ' Anna Virtanen ' } });
    expect(screen.getByText(/"Provisioning\s+started by Anna Virtanen\."/)).toBeTruthy();
    fireEvent.change(undo, { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() =>
      expect(bridge.callsOf('setSettings')).toEqual([{ actorName: 'Anna Virtanen', undoSeconds: 0 }]),
    );
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
      throw new CodedError('open-failed', 'The log folder could not be opened (no file manager).');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Open log folder' }));
    expect((await screen.findByRole('alert')).textContent).toContain('could not be opened');
  });

  it('exports the statuses, from a day on when given, and says where the file went or that none was chosen', async () => {
    const { bridge } = await renderSettings();
    const button = screen.getByRole('button', { name: 'Export statuses (CSV)' });
    fireEvent.click(button);
    expect(await screen.findByText(/^Exported 3 statuses to/)).toBeTruthy();
    expect(screen.getByText('/home/seller/Documents/seller-tray-statuses-2026-11-26.csv')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Marked since (optional)'), { target: { value: '2026-11-01' } });
    bridge.handle('exportStatuses', () => ({ rows: 0, path: null }));
    fireEvent.click(button);
    expect(await screen.findByText('Not exported: no file was chosen.')).toBeTruthy();
    expect(bridge.callsOf('exportStatuses')).toEqual([{}, { since: '2026-11-01' }]);

    bridge.handle('exportStatuses', () => {
      throw new CodedError('no-dialog', 'This build of Seller Tray cannot save files.');
    });
    fireEvent.click(button);
    expect((await screen.findByRole('alert')).textContent).toContain('cannot save files');
  });

  it('says why leaving the demo failed beside its button, the detail one click away, and stays in the demo', async () => {
    const bridge = createFakeBridge({ state: appState({ setup: 'demo' }), settings: { demoMode: true } });
    bridge.handle('setSettings', () => {
      throw bridgeFailure('internal', settingsWriteProblem());
    });
    const onState = vi.fn();
    renderWithBridge(bridge, <SettingsView state={bridge.state} onState={onState} />);
    const leave = await screen.findByRole('button', { name: 'Leave the demo' });
    fireEvent.click(leave);

    const note = leave.closest('.demo-note') as HTMLElement;
    const alert = await within(note).findByRole('alert');
    expect(leave).toHaveProperty('disabled', false);
    expect(onState).not.toHaveBeenCalled();
    expect(bridge.callsOf('setSettings')).toEqual([{ demoMode: false }]);
    await expectExplainedOneClickAway(alert, settingsWriteProblem());
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(within(note).queryByRole('alert')).toBeNull();
  });

  it('shows demo mode as read-only', async () => {
    const bridge = createFakeBridge({ state: appState({ setup: 'demo' }), settings: { demoMode: true } });
    renderWithBridge(bridge, <SettingsView state={bridge.state} onState={() => {}} />);
    expect(await screen.findByText(/Demo mode is on/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Leave the demo' })).toBeTruthy();
    expect(screen.getByLabelText('New client secret')).toHaveProperty('disabled', true);
  });
});

describe('SettingsView on a managed laptop', () => {
  /** Every setting the form shows that a policy may set. */
  const lockable = SETTING_ENTRIES.filter(
    ([, s]) => (s.shows.in === 'form' || s.shows.in === 'form-own-control') && s.policy !== false,
  ).map(([key]) => key);

  it('shows each locked setting disabled, described as managed by the organization, and saves the rest', async () => {
    const locked = lockable.filter((key) => key !== 'notificationsEnabled');
    const { bridge } = await renderSettings(
      appState({ managed: { ...UNMANAGED_STATE, locked, demoAllowed: false } }),
    );
    const form = screen.getByRole('form', { name: 'Settings' });
    const groups = form.querySelectorAll('fieldset.managed-setting');
    expect(groups).toHaveLength(locked.length);
    for (const group of groups) {
      expect((group as HTMLFieldSetElement).disabled).toBe(true);
      const note = document.getElementById(group.getAttribute('aria-describedby') ?? '');
      expect(note?.textContent).toBe('Managed by your organization');
      expect(group.querySelectorAll('input, select').length).toBeGreaterThan(0);
    }
    const free = screen.getByLabelText('Show a notification for each new order');
    expect(free.closest('fieldset.managed-setting')).toBeNull();
    fireEvent.click(free);
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(bridge.callsOf('setSettings')).toEqual([{ notificationsEnabled: false }]));
  });

  it('says the shortest check interval the organization allows, and asks no less', async () => {
    await renderSettings(appState({ managed: { ...UNMANAGED_STATE, pollIntervalMinimumSeconds: 300 } }));
    const interval = screen.getByLabelText('Check interval (seconds)');
    expect(interval.getAttribute('min')).toBe('300');
    expect(
      document.getElementById(interval.getAttribute('aria-describedby')?.split(' ')[0] ?? '')?.textContent,
    ).toContain('Your organization allows no less than 300 seconds.');
  });
});
