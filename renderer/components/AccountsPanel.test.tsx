// @vitest-environment happy-dom
// Settings → Accounts with a fake bridge: each account listed with its standing; add, rename and
// a removal asked twice when statuses wait to be sent.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import type { AccountState, AppState } from '../../preload/contract';
import { tomorrowMorning, UNTIL_RESUMED } from '../../preload/pause';
import { expectEscapeClosesForm } from '../../test/support/renderer/escape';
import { accountState, appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { AccountsPanel } from './AccountsPanel';

afterEach(cleanup);

function renderPanel(accounts: AccountState[]) {
  const state = appState({ accounts });
  const bridge = createFakeBridge({ state });
  const onState = vi.fn();
  renderWithBridge(bridge, <AccountsPanel state={state} onState={onState} />);
  return { bridge, onState };
}

describe('AccountsPanel', () => {
  it('lists each account with where it is and how it stands', () => {
    renderPanel([
      accountState('EU'),
      accountState('US', { connection: 'credentials-rejected', pendingOutbox: 2 }),
      accountState('Test', { open: false }),
    ]);
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    // Where it is and how it stands are words apart, also when read out or copied.
    expect(items[0]).toContain('EU eu-client at eu.marketplace.example Connected');
    expect(items[1]).toContain('Credentials rejected, 2 statuses to send');
    expect(items[2]).toContain('No secret stored');
    expect(screen.getByRole('button', { name: 'Remove US' })).toBeTruthy();
  });

  it('says an account whose polls have not answered for too long is not connected, as the header does', () => {
    renderPanel([accountState('EU', { health: 'stale' }), accountState('US')]);
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(items[0]).toContain('No answer from the marketplace');
    expect(items[0]).not.toContain('Connected');
    expect(items[1]).toContain('Connected');
  });

  it('says why an account with its secret stored is not served, and how to give one without it its secret', () => {
    const newer =
      '/data/accounts/4f1c/store.db was written by a newer Seller Tray (data version 999; this one knows 19). Update Seller Tray; the file was left as it is.';
    renderPanel([
      accountState('EU', { open: false, problem: { message: newer, details: [] } }),
      accountState('Test', { open: false }),
    ]);
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    // Its secret is stored: its store is what stops it, and a secret given again would not help.
    expect(items[0]).toContain(`Not served: ${newer}`);
    expect(items[0]).not.toContain('No secret stored');
    // The way to give it one is the row's own button, not another addition.
    expect(items[1]).toContain('No secret stored: enter it with Replace secret');
    expect(screen.getByRole('button', { name: 'Replace secret of Test' })).toBeTruthy();
  });

  it('adds an account with its secret, and renames one', async () => {
    const { bridge, onState } = renderPanel([accountState('EU')]);
    fireEvent.click(screen.getByRole('button', { name: 'Add an account' }));
    const form = screen.getByRole('form', { name: 'Add an account' });
    fireEvent.change(within(form).getByLabelText('Label (such as EU, US, Test)'), {
      target: { value: ' US ' },
    });
    fireEvent.change(within(form).getByLabelText('Base URL'), { target: { value: 'https://us.example' } });
    fireEvent.change(within(form).getByLabelText('Client id'), { target: { value: 'us-client' } });
    fireEvent.change(within(form).getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check and add' }));
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.callsOf('addAccount')).toEqual([
      { label: 'US', baseUrl: 'https://us.example', clientId: 'us-client', secret: 's3cret' },
    ]);
    // Closed in the render after the answer, which may come after the check that saw onState called.
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Add an account' })).toBeNull());

    fireEvent.click(screen.getByRole('button', { name: 'Rename EU' }));
    fireEvent.change(screen.getByLabelText('New label for EU'), { target: { value: 'Europe' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save label' }));
    await waitFor(() =>
      expect(bridge.callsOf('renameAccount')).toEqual([{ account: 'id-eu', label: 'Europe' }]),
    );
  });

  it('keeps the keyboard in place: an opened form has the focus, a closed one gives it back', async () => {
    const { bridge } = renderPanel([accountState('EU')]);
    const rename = screen.getByRole('button', { name: 'Rename EU' });
    fireEvent.click(rename);
    expect(document.activeElement).toBe(screen.getByLabelText('New label for EU'));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename EU' }));

    fireEvent.click(screen.getByRole('button', { name: 'Rename EU' }));
    fireEvent.change(screen.getByLabelText('New label for EU'), { target: { value: 'Europe' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save label' }));
    await waitFor(() => expect(bridge.callsOf('renameAccount')).toHaveLength(1));
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Rename EU'));

    fireEvent.click(screen.getByRole('button', { name: 'Add an account' }));
    expect(document.activeElement).toBe(screen.getByLabelText('Label (such as EU, US, Test)'));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Add an account' }));
  });

  it('closes each of its forms on Escape, as Cancel does, the focus back on what opened it', () => {
    renderPanel([accountState('EU')]);
    for (const opener of ['Rename EU', 'Replace secret of EU', 'Add an account'])
      expectEscapeClosesForm(opener);
  });

  it('reconnects an account from its row: only its label and the secret go, the address left out', async () => {
    const { bridge, onState } = renderPanel([
      accountState('EU'),
      accountState('US', { connection: 'credentials-rejected' }),
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Replace secret of US' }));
    const field = screen.getByLabelText('New client secret of US');
    expect(document.activeElement).toBe(field);
    fireEvent.change(field, { target: { value: 'rotated' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check and store' }));
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.callsOf('addAccount')).toEqual([{ label: 'US', secret: 'rotated' }]);
  });

  it('leaves out of an addition the fields left empty, so a listed label is reconnected', async () => {
    const { bridge, onState } = renderPanel([accountState('EU')]);
    fireEvent.click(screen.getByRole('button', { name: 'Add an account' }));
    const form = screen.getByRole('form', { name: 'Add an account' });
    fireEvent.change(within(form).getByLabelText('Label (such as EU, US, Test)'), {
      target: { value: 'EU' },
    });
    fireEvent.change(within(form).getByLabelText('Base URL'), { target: { value: ' ' } });
    fireEvent.change(within(form).getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check and add' }));
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.callsOf('addAccount')).toEqual([{ label: 'EU', secret: 's3cret' }]);
  });

  it("shows the account list's refusal as a sentence, as every message of the window is", async () => {
    const { bridge } = renderPanel([accountState('EU')]);
    bridge.handle('addAccount', () => {
      throw new CodedError('invalid-input', 'a new account needs a base URL and a client id');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add an account' }));
    const form = screen.getByRole('form', { name: 'Add an account' });
    fireEvent.change(within(form).getByLabelText('Label (such as EU, US, Test)'), {
      target: { value: 'Test' },
    });
    fireEvent.change(within(form).getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check and add' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('A new account needs a base URL and a client id.');
  });

  it('asks before removing, and asks again, naming them, before discarding statuses not yet sent', async () => {
    const { bridge } = renderPanel([accountState('EU'), accountState('US', { pendingOutbox: 1 })]);
    bridge.handle('removeAccount', (request) => {
      if (!request.discardUndelivered)
        throw new CodedError(
          'undelivered-statuses',
          'US has 2 marked statuses not yet delivered to its marketplace',
          {
            details: [
              'In progress for Acme GmbH (order 0a1b)',
              'Completed for \u202eevil\u202c Corp (order 2c3d)',
            ],
          },
        );
      return bridge.state;
    });
    fireEvent.click(screen.getByRole('button', { name: 'Remove US' }));
    const first = screen.getByRole('alertdialog', { name: 'Remove US?' });
    // The safe choice has the focus: Enter keeps the account.
    expect(document.activeElement?.textContent).toBe('Keep it');
    fireEvent.click(within(first).getByRole('button', { name: 'Remove US' }));
    const second = await screen.findByRole('alertdialog', { name: 'Discard what US has not sent?' });
    expect(second.textContent).toContain(
      'US has 2 marked statuses not yet delivered to its marketplace. Removing the account now discards them: the marketplace never hears of them.',
    );
    within(second).getByRole('button', { name: 'Keep it until they are sent' });
    // Each one named, a line each, read out with the question; the server's words as text.
    const statuses = within(second)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(statuses[0]).toBe('In progress for Acme GmbH (order 0a1b)');
    expect(statuses[1]).not.toContain('\u202e');
    expect(second.getAttribute('aria-describedby')?.split(' ')).toHaveLength(2);
    fireEvent.click(within(second).getByRole('button', { name: 'Discard them and remove' }));
    await waitFor(() =>
      expect(bridge.callsOf('removeAccount')).toEqual([
        { account: 'id-us', discardUndelivered: false },
        { account: 'id-us', discardUndelivered: true },
      ]),
    );
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  describe("an account's own pause", () => {
    /** The panel as Settings holds it: each answer's state shown in the next render. */
    function renderLive(accounts: AccountState[]) {
      const bridge = createFakeBridge({ state: appState({ accounts }) });
      function Live() {
        const [state, setState] = useState<AppState>(bridge.state);
        return <AccountsPanel state={state} onState={setState} />;
      }
      renderWithBridge(bridge, <Live />);
      return bridge;
    }
    /** An account's row, showing its standing or its pause's choices. */
    const row = (label: string) =>
      screen
        .getAllByRole('listitem')
        .find(
          (li) =>
            li.querySelector('strong')?.textContent === label ||
            li.querySelector('legend')?.textContent === `Pause notifications of ${label}`,
        );

    it("offers the header's choices for that account alone, says until when, and resumes it", async () => {
      const bridge = renderLive([accountState('EU'), accountState('US')]);
      fireEvent.click(screen.getByRole('button', { name: 'Pause notifications of US' }));
      const choices = screen.getByRole('group', { name: 'Pause notifications of US' });
      // The same choices as the header's and the tray's, the first with the focus.
      expect(
        within(choices)
          .getAllByRole('button')
          .map((b) => b.textContent),
      ).toEqual(['For 1 hour', 'For 4 hours', 'Until tomorrow 08:00', 'Until I resume', 'Cancel']);
      expect(document.activeElement?.textContent).toBe('For 1 hour');
      const clicked = new Date();
      fireEvent.click(within(choices).getByRole('button', { name: 'Until tomorrow 08:00' }));
      await waitFor(() =>
        expect(bridge.callsOf('pauseNotifications')).toEqual([
          { until: tomorrowMorning(clicked).toISOString(), account: 'id-us' },
        ]),
      );
      await waitFor(() => expect(row('US')?.textContent).toMatch(/Notifications paused until .*8:00/));
      // EU is not paused, nor is the app.
      expect(row('EU')?.textContent).not.toContain('paused');
      expect(bridge.state.notificationsPausedUntil).toBeNull();
      // Resume takes Pause's place, and the focus with it; it resumes US only.
      await waitFor(() =>
        expect(document.activeElement).toBe(
          screen.getByRole('button', { name: 'Resume notifications of US' }),
        ),
      );
      fireEvent.click(screen.getByRole('button', { name: 'Resume notifications of US' }));
      await waitFor(() =>
        expect(bridge.callsOf('pauseNotifications').at(-1)).toEqual({ until: null, account: 'id-us' }),
      );
      await waitFor(() => expect(row('US')?.textContent).not.toContain('paused'));
      await waitFor(() =>
        expect(document.activeElement).toBe(
          screen.getByRole('button', { name: 'Pause notifications of US' }),
        ),
      );
    });

    it('says "until you resume them" for a pause without an end, and nothing of a pause that has ended', () => {
      renderPanel([
        accountState('EU', { notificationsPausedUntil: UNTIL_RESUMED }),
        accountState('US', { notificationsPausedUntil: new Date(Date.now() - 60_000).toISOString() }),
      ]);
      expect(row('EU')?.textContent).toContain('Notifications paused until you resume them.');
      expect(screen.getByRole('button', { name: 'Resume notifications of EU' })).toBeTruthy();
      expect(row('US')?.textContent).not.toContain('paused');
      expect(screen.getByRole('button', { name: 'Pause notifications of US' })).toBeTruthy();
    });

    it('says a refused pause in its row, the choices kept open to try again, and Cancel gives the focus back', async () => {
      const bridge = renderLive([accountState('EU'), accountState('US')]);
      bridge.handle('pauseNotifications', () => {
        throw new CodedError('not-found', 'There is no such account in the list any more.');
      });
      fireEvent.click(screen.getByRole('button', { name: 'Pause notifications of US' }));
      const choice = screen.getByRole('button', { name: 'For 4 hours' });
      fireEvent.click(choice);
      const alert = await screen.findByRole('alert');
      expect(row('US')?.contains(alert)).toBe(true);
      expect(alert.textContent).toContain('There is no such account in the list any more.');
      // The focus back on the choice refused (disabled while it ran), as the header's menu does.
      await waitFor(() => expect(choice).toHaveProperty('disabled', false));
      await waitFor(() => expect(document.activeElement).toBe(choice));
      const choices = screen.getByRole('group', { name: 'Pause notifications of US' });
      fireEvent.click(within(choices).getByRole('button', { name: 'Cancel' }));
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Pause notifications of US' }));
    });

    it('keeps the focus on Resume when the resume is refused, the account still paused', async () => {
      const bridge = renderLive([
        accountState('EU'),
        accountState('US', { notificationsPausedUntil: UNTIL_RESUMED }),
      ]);
      bridge.handle('pauseNotifications', () => {
        throw new CodedError('not-found', 'There is no such account in the list any more.');
      });
      fireEvent.click(screen.getByRole('button', { name: 'Resume notifications of US' }));
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toContain('There is no such account in the list any more.');
      const resume = screen.getByRole('button', { name: 'Resume notifications of US' });
      await waitFor(() => expect(resume).toHaveProperty('disabled', false));
      await waitFor(() => expect(document.activeElement).toBe(resume));
    });

    it('closes the choices on Escape, refused or not, the focus back on Pause', async () => {
      const bridge = renderLive([accountState('EU'), accountState('US')]);
      const pause = screen.getByRole('button', { name: 'Pause notifications of US' });
      fireEvent.click(pause);
      fireEvent.keyDown(screen.getByRole('button', { name: 'For 1 hour' }), { key: 'Escape' });
      expect(screen.queryByRole('group', { name: 'Pause notifications of US' })).toBeNull();
      await waitFor(() =>
        expect(document.activeElement).toBe(
          screen.getByRole('button', { name: 'Pause notifications of US' }),
        ),
      );
      bridge.handle('pauseNotifications', () => {
        throw new CodedError('not-found', 'There is no such account in the list any more.');
      });
      fireEvent.click(screen.getByRole('button', { name: 'Pause notifications of US' }));
      fireEvent.click(screen.getByRole('button', { name: 'Until I resume' }));
      await screen.findByRole('alert');
      fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
      expect(screen.queryByRole('group', { name: 'Pause notifications of US' })).toBeNull();
      expect(screen.queryByRole('alert')).toBeNull();
      await waitFor(() =>
        expect(document.activeElement).toBe(
          screen.getByRole('button', { name: 'Pause notifications of US' }),
        ),
      );
      expect(bridge.state.accounts.every((account) => account.notificationsPausedUntil === null)).toBe(true);
    });
  });
});
