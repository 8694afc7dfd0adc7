// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeBridge, FakeBridgeError } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullView } from '../../test/support/renderer/fixtures';
import { renderWithBridge } from '../../test/support/renderer/render';
import { OrderDetail } from './OrderDetail';

afterEach(cleanup);

async function renderOrder(status: string | undefined) {
  const bridge = createFakeBridge({ views: [fullView({ status, outbox: [] })] });
  renderWithBridge(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
  await screen.findByRole('heading', { level: 2 });
  return bridge;
}

describe('ProvisioningActions', () => {
  it('marks an order started, and shows the status on its way', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
    expect(bridge.callsOf('markStatus')[0]).toEqual({
      orderId: FULL_ORDER_ID,
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning has started.',
    });
    await waitFor(() => expect(screen.getByText(/Marked In progress: Waiting to be sent/)).toBeTruthy());
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('shows when what was marked failed to send, and why', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Completed' }));
    expect(await screen.findByText(/Marked Completed: Waiting to be sent/)).toBeTruthy();
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    const item = bridge.views.get(FULL_ORDER_ID)?.outbox[0];
    if (!item) throw new Error('the fake did not queue the status');
    Object.assign(item, { state: 'failed', attempts: 1, lastError: 'BadRequest: statusCode' });
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    expect(await screen.findByText(/Marked Completed: Not sent: BadRequest: statusCode/)).toBeTruthy();
  });

  it('shows when the marketplace confirmed what was marked', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    const view = bridge.views.get(FULL_ORDER_ID);
    if (!view) throw new Error('no view');
    view.outbox = [];
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    expect(await screen.findByText(/Marked In progress: Confirmed by the marketplace/)).toBeTruthy();
  });

  it('requires both a description and a detailed description to mark a failure', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Failed…' }));
    const form = screen.getByRole('form', { name: 'Report a failure' });
    const description = screen.getByLabelText('Description (required)');
    const detailed = screen.getByLabelText('Detailed description of the reason (required)');
    expect(document.activeElement).toBe(description);

    fireEvent.submit(form);
    expect((await screen.findByRole('alert')).textContent).toContain(
      'a description and a detailed description of the reason',
    );
    expect(description.getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(description, { target: { value: 'Tenant creation failed' } });
    fireEvent.submit(form);
    expect(screen.getByRole('alert').textContent).not.toContain('a description and');
    expect(screen.getByRole('alert').textContent).toContain('a detailed description of the reason');
    expect(document.activeElement).toBe(detailed);

    fireEvent.change(description, { target: { value: '' } });
    fireEvent.change(detailed, { target: { value: 'Quota exceeded in eu-central' } });
    fireEvent.submit(form);
    expect(bridge.callsOf('markStatus')).toEqual([]);

    fireEvent.change(description, { target: { value: '  Tenant creation failed ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Mark as failed' }));
    await waitFor(() =>
      expect(bridge.callsOf('markStatus')).toEqual([
        {
          orderId: FULL_ORDER_ID,
          statusCode: 'ProvisioningFailed',
          description: 'Tenant creation failed',
          detailedDescription: 'Quota exceeded in eu-central',
        },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Report a failure' })).toBeNull());
  });

  it('asks before an unusual transition, then sends it with override', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    const trigger = screen.getByRole('button', { name: 'Completed' });
    trigger.focus();
    fireEvent.click(trigger);
    const dialog = await screen.findByRole('alertdialog', { name: 'Mark anyway?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.textContent).toContain(
      'Marking Completed after Started is unusual; confirm to do it anyway.',
    );
    // Focus goes into the dialog, on the safe choice.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    expect(bridge.callsOf('markStatus')).toHaveLength(1);

    fireEvent.click(screen.getByRole('button', { name: 'Mark completed anyway' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(2));
    expect(bridge.callsOf('markStatus')[1]).toEqual({
      orderId: FULL_ORDER_ID,
      statusCode: 'ProvisioningCompleted',
      description: 'Provisioning is complete.',
      override: true,
    });
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(await screen.findByText(/Marked Completed: Waiting to be sent/)).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Completed' }));
  });

  it('sends nothing when the unusual transition is cancelled (Escape)', async () => {
    const bridge = await renderOrder('ProvisioningCompleted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const dialog = await screen.findByRole('alertdialog');
    fireEvent.keyDown(dialog, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
  });

  it('keeps Tab inside the dialog', async () => {
    await renderOrder(undefined);
    fireEvent.click(screen.getByRole('button', { name: 'Completed' }));
    const dialog = await screen.findByRole('alertdialog');
    const cancel = screen.getByRole('button', { name: 'Cancel' });
    const confirm = screen.getByRole('button', { name: /anyway/ });
    confirm.focus();
    fireEvent.keyDown(dialog, { key: 'Tab' });
    expect(document.activeElement).toBe(cancel);
    fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(confirm);
  });

  it('shows other refusals in an alert', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    bridge.handle('markStatus', () => {
      throw new FakeBridgeError('not-configured', 'Seller Tray is not connected to a marketplace yet.');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    expect((await screen.findByRole('alert')).textContent).toContain('not connected to a marketplace yet');
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
