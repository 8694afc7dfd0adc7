// @vitest-environment happy-dom
// Replacing the secret when it cannot be stored: a keychain out of reach says what to fix, its own
// error behind "Details"; an empty field stays the field's own message, tied to it.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  bridgeFailure,
  expectExplainedOneClickAway,
  KEYCHAIN_ERROR,
  keychainProblem,
} from '../../test/support/renderer/error-details';
import { accountState, appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { SecretField } from './SecretField';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderField() {
  const bridge = createFakeBridge();
  const onState = vi.fn();
  renderWithBridge(bridge, <SecretField state={appState()} onState={onState} />);
  const form = screen.getByRole('form', { name: 'Client secret' });
  const input = screen.getByLabelText('New client secret');
  const replace = () => fireEvent.click(within(form).getByRole('button', { name: 'Replace secret' }));
  return { bridge, onState, form, input, replace };
}

describe('replacing the secret', () => {
  it('says what to fix when the keychain cannot be reached, its own error behind Details', async () => {
    const { bridge, onState, form, input, replace } = renderField();
    bridge.handle('setSecret', () => {
      throw bridgeFailure('keychain-unavailable', keychainProblem());
    });
    fireEvent.change(input, { target: { value: 'n3w-s3cret' } });
    replace();

    const alert = await within(form).findByRole('alert');
    // No HTTP status or request id here: the keychain's own words are the detail.
    expect(keychainProblem().details).toEqual([`Keychain error: ${KEYCHAIN_ERROR}`]);
    expect(alert.textContent).toContain('install and unlock gnome-keyring or KWallet');
    await expectExplainedOneClickAway(alert, keychainProblem());
    // Not the field's fault: it is not marked invalid, and the secret stays to be stored once fixed.
    expect(input.getAttribute('aria-invalid')).toBeNull();
    expect(input.getAttribute('aria-describedby')).toBeNull();
    expect(input).toHaveProperty('value', 'n3w-s3cret');
    expect(screen.queryByText('The new secret is stored in the keychain.')).toBeNull();
    expect(onState).not.toHaveBeenCalled();

    // Once the keychain is back, the same secret is stored and the failure goes.
    bridge.handle('setSecret', () => bridge.state);
    replace();
    expect(await screen.findByText('The new secret is stored in the keychain.')).toBeTruthy();
    expect(within(form).queryByRole('alert')).toBeNull();
    expect(bridge.callsOf('setSecret')).toEqual([{ secret: 'n3w-s3cret' }, { secret: 'n3w-s3cret' }]);
  });

  it('asks for a secret at the field itself when it is empty, with no details to show', async () => {
    const { bridge, form, input, replace } = renderField();
    replace();
    const alert = await within(form).findByRole('alert');
    expect(alert.textContent).toBe('Enter the new client secret first.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(alert.id);
    expect(within(alert).queryByRole('button', { name: 'Details' })).toBeNull();
    await waitFor(() => expect(bridge.callsOf('testConnection')).toEqual([]));
  });
});

describe('with several accounts', () => {
  it("names the account whose secret it replaces: the first one's, checked at its own client", async () => {
    const bridge = createFakeBridge();
    const eu = accountState('EU');
    const state = appState({
      baseUrl: eu.baseUrl,
      clientId: eu.clientId,
      accounts: [eu, accountState('US')],
    });
    renderWithBridge(bridge, <SecretField state={state} onState={vi.fn()} />);
    const form = screen.getByRole('form', { name: 'Client secret of EU' });
    expect(within(form).getByRole('heading').textContent).toBe('Client secret of EU');
    expect(within(form).getByText(/Another account's secret is replaced beside it in Accounts/)).toBeTruthy();
  });
});
