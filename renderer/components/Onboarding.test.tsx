// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import type { ConnectionTest } from '../../preload/contract';
import { appState, createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { renderWithBridge } from '../../test/support/renderer/render';
import { Onboarding } from './Onboarding';

afterEach(cleanup);

const unconfigured = appState({ setup: 'unconfigured', baseUrl: '', clientId: '', secretStored: false });

function setup(result?: ConnectionTest) {
  const bridge = createFakeBridge({ state: unconfigured });
  if (result) bridge.handle('testConnection', () => result);
  const onState = vi.fn();
  renderWithBridge(bridge, <Onboarding state={unconfigured} onState={onState} />);
  fireEvent.change(screen.getByLabelText('Base URL'), { target: { value: 'https://marketplace.example' } });
  fireEvent.change(screen.getByLabelText('Client id'), { target: { value: 'seller-client' } });
  fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } });
  return { bridge, onState };
}

describe('Onboarding', () => {
  it('asks for the secret in a password field', () => {
    setup();
    expect(screen.getByLabelText('Client secret')).toHaveProperty('type', 'password');
  });

  it('tests the connection with what was typed and shows the seller id on success', async () => {
    const { bridge } = setup({ ok: true, sellerId: 4711, stage: 'sandbox' });
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    const result = await screen.findByRole('status');
    expect(result.textContent).toContain('Signed in as seller 4711');
    expect(result.textContent).toContain("This is the marketplace's “sandbox” stage, not production.");
    expect(bridge.callsOf('testConnection')).toEqual([
      { baseUrl: 'https://marketplace.example', clientId: 'seller-client', secret: 's3cret' },
    ]);
  });

  const failures: [ConnectionTest & { ok: false }, RegExp][] = [
    [
      { ok: false, reason: 'invalid-url', message: 'The base URL is not usable: no scheme.' },
      /base URL is not a usable address/,
    ],
    [{ ok: false, reason: 'unreachable', message: 'ECONNREFUSED' }, /could not be reached/],
    [{ ok: false, reason: 'tls', message: 'self-signed certificate' }, /certificate was refused/],
    [{ ok: false, reason: 'credentials', message: 'rejected' }, /did not accept the client id and secret/],
    [
      { ok: false, reason: 'server', message: '503 ServiceUnavailable' },
      /having problems.*Try again in a few minutes/,
    ],
    [
      { ok: false, reason: 'wrong-address', message: '404 NotFound' },
      /not the Seller API: the base URL \(its path\)/,
    ],
    [{ ok: false, reason: 'refused', message: '400 BadRequest' }, /refused the test/],
  ];
  for (const [result, advice] of failures) {
    it(`says what to do when the test fails with ${result.reason}`, async () => {
      setup(result);
      fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toMatch(advice);
      expect(alert.textContent).toContain(result.message);
    });
  }

  it('gives each failure reason its own advice', async () => {
    const texts = new Set<string>();
    for (const [result] of failures) {
      setup(result);
      fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
      texts.add((await screen.findByRole('alert')).querySelector('strong')?.textContent ?? '');
      cleanup();
    }
    expect(texts.size).toBe(failures.length);
  });

  it('shows an error the bridge throws in an alert', async () => {
    const { bridge } = setup();
    bridge.handle('testConnection', () => {
      throw new CodedError('invalid-input', 'clientId: the client id is empty');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect((await screen.findByRole('alert')).textContent).toContain('the client id is empty');
  });

  it('tests the connection, then saves the settings and the secret, and never shows the secret again', async () => {
    const { bridge, onState } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.calls.map((c) => c.channel)).toEqual(['testConnection', 'setSettings', 'setSecret']);
    expect(bridge.callsOf('testConnection')[0]).toEqual({
      baseUrl: 'https://marketplace.example',
      clientId: 'seller-client',
      secret: 's3cret',
    });
    expect(bridge.callsOf('setSettings')[0]).toEqual({
      baseUrl: 'https://marketplace.example',
      clientId: 'seller-client',
    });
    expect(bridge.callsOf('setSecret')[0]).toEqual({ secret: 's3cret' });
    expect(onState.mock.calls[0]?.[0]).toMatchObject({ setup: 'configured', secretStored: true });
    expect(screen.queryByLabelText('Client secret')).toBeNull();
    expect(screen.getByText('Stored in the keychain')).toBeTruthy();
    expect(document.body.innerHTML).not.toContain('s3cret');
  });

  it('shows no success beside a failure: a keychain out of reach after a passing test is the only word', async () => {
    const { bridge } = setup({ ok: true, sellerId: 4711, stage: null });
    bridge.handle('setSecret', () => {
      throw new CodedError('keychain', 'The system keychain could not be reached.');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toContain('keychain could not be reached');
    expect(screen.queryByText(/Connection works/)).toBeNull();
  });

  it('asks "Your name" once, prefilled with the computer account\'s name, and saves the one typed', async () => {
    const { bridge, onState } = setup();
    const name = screen.getByLabelText('Your name') as HTMLInputElement;
    expect(name.value).toBe(unconfigured.actorName);
    fireEvent.change(name, { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Enter the name your colleagues know you by.')).toBeTruthy();
    expect(bridge.calls).toEqual([]);
    fireEvent.change(name, { target: { value: ' Anna K. Virtanen ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.callsOf('setSettings')[0]).toMatchObject({ actorName: 'Anna K. Virtanen' });
  });

  it('refuses to save a secret the marketplace rejects, saying nothing was saved', async () => {
    const { bridge, onState } = setup({ ok: false, reason: 'credentials', message: 'rejected' });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/did not accept the client id and secret\..*Nothing was saved\./);
    expect(bridge.calls.map((c) => c.channel)).toEqual(['testConnection']);
    expect(onState).not.toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: /Save anyway/ })).toBeNull();
  });

  it('saves without the check only when the marketplace is out of reach, and only when asked', async () => {
    const { bridge, onState } = setup({ ok: false, reason: 'unreachable', message: 'ECONNREFUSED' });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const anyway = await screen.findByRole('button', { name: 'Save anyway, unchecked' });
    expect(screen.getByText(/could not be reached, so the secret could not be checked/)).toBeTruthy();
    expect(bridge.calls.map((c) => c.channel)).toEqual(['testConnection']);
    fireEvent.click(anyway);
    await waitFor(() => expect(onState).toHaveBeenCalled());
    expect(bridge.calls.map((c) => c.channel)).toEqual(['testConnection', 'setSettings', 'setSecret']);
  });

  it('marks what is missing at its field, tied to it, and asks the marketplace nothing', async () => {
    const { bridge } = setup();
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: ' ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    for (const [label, message] of [
      ['Client id', 'Enter the client id.'],
      ['Client secret', 'Enter the client secret.'],
    ]) {
      const input = screen.getByLabelText(label as string);
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        message,
      );
    }
    expect(screen.getByLabelText('Base URL').getAttribute('aria-invalid')).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText('Client id'));
    expect(bridge.calls).toEqual([]);
  });

  it('shows the service refusing a setting at its field', async () => {
    const { bridge } = setup();
    const message = 'Base URL is not usable: http is only allowed for localhost';
    bridge.handle('setSettings', () => {
      throw new CodedError('invalid-input', message, { fields: [{ field: 'baseUrl', message }] });
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const baseUrl = screen.getByLabelText('Base URL');
    await waitFor(() => expect(baseUrl.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(baseUrl.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      message,
    );
    expect(bridge.callsOf('setSecret')).toEqual([]);
  });

  it('starts the demo', async () => {
    const { bridge, onState } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Try the demo' }));
    await waitFor(() => expect(onState).toHaveBeenCalledWith(expect.objectContaining({ setup: 'demo' })));
    expect(bridge.callsOf('startDemo')).toEqual([undefined]);
  });

  describe('the secret, kept for one marketplace', () => {
    const stored = appState({
      setup: 'unconfigured',
      baseUrl: 'https://marketplace.example',
      clientId: 'seller-client',
      secretStored: true,
    });

    it('is asked for again, saying why, once the address is another origin', () => {
      renderWithBridge(createFakeBridge({ state: stored }), <Onboarding state={stored} onState={vi.fn()} />);
      expect(screen.getByText('Stored in the keychain')).toBeTruthy();
      const baseUrl = screen.getByLabelText('Base URL');
      fireEvent.change(baseUrl, { target: { value: 'https://marketplace.example/api/v2' } });
      expect(screen.getByText('Stored in the keychain')).toBeTruthy();

      fireEvent.change(baseUrl, { target: { value: 'https://other-marketplace.example' } });
      const secret = screen.getByLabelText('Client secret');
      expect(secret.getAttribute('aria-describedby')).toBeTruthy();
      expect(document.getElementById(secret.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        'Seller Tray keeps the client secret for the marketplace and client id it was entered for, and sends it nowhere else. Enter the secret for this address and client id.',
      );
    });

    it('is asked for, saying why, when the address was changed in the settings', () => {
      const moved = { ...stored, baseUrl: 'https://other-marketplace.example', secretStored: false };
      renderWithBridge(createFakeBridge({ state: moved }), <Onboarding state={moved} onState={vi.fn()} />);
      expect(screen.getByLabelText('Client secret')).toBeTruthy();
      expect(screen.getByText(/sends it nowhere else/)).toBeTruthy();
    });

    it('needs no explanation on a first start', () => {
      setup();
      expect(screen.queryByText(/sends it nowhere else/)).toBeNull();
    });
  });
});

describe('Onboarding on a managed laptop', () => {
  it('shows the marketplace IT set, read-only and described as managed, asks only for the secret, and offers no demo', async () => {
    const managed = appState({
      setup: 'unconfigured',
      baseUrl: 'https://marketplace.example',
      clientId: 'fleet-client',
      secretStored: false,
      managed: {
        locked: ['baseUrl', 'clientId', 'demoMode'],
        demoAllowed: false,
        automationsAllowed: true,
        pollIntervalMinimumSeconds: null,
        locale: null,
      },
    });
    const bridge = createFakeBridge({ state: managed });
    renderWithBridge(bridge, <Onboarding state={managed} onState={vi.fn()} />);
    for (const [label, value] of [
      ['Base URL', 'https://marketplace.example'],
      ['Client id', 'fleet-client'],
    ] as const) {
      const input = screen.getByLabelText(label) as HTMLInputElement;
      expect(input.readOnly).toBe(true);
      expect(input.value).toBe(value);
      expect(document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        'Managed by your organization',
      );
    }
    expect((screen.getByLabelText('Your name') as HTMLInputElement).readOnly).toBe(false);
    screen.getByText(/Your organization has set the marketplace and client id: enter the client secret/);
    expect(screen.queryByRole('button', { name: 'Try the demo' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } });
    bridge.handle('testConnection', () => ({ ok: true, sellerId: 1, stage: null }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(bridge.callsOf('setSecret')).toEqual([{ secret: 's3cret' }]));
  });
});
