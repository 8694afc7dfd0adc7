// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import type { OrderView } from '../../preload/contract';
import type { Settings } from '../../preload/model';
import { CONTROL_OR_BIDI, SPOOFED_TOTAL } from '../../test/support/hostile-order';
import { apiFailure, apiProblem, expectDetailsOneClickAway } from '../../test/support/renderer/error-details';
import { createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView } from '../../test/support/renderer/fixtures';
import { renderWithUndo } from '../../test/support/renderer/render';
import { REPEATED_PRESS_MS } from '../hooks/useRepeatGuard';
import { OrderDetail } from './OrderDetail';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function renderOrder(
  status: string | undefined,
  settings: Partial<Settings> = {},
  onNextWaiting?: () => void,
) {
  const bridge = createFakeBridge({ views: [fullView({ status, outbox: [] })], settings });
  renderWithUndo(
    bridge,
    <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} onNextWaiting={onNextWaiting} />,
  );
  await screen.findByRole('region', { name: 'To provision' });
  return bridge;
}

const actions = () => screen.getByRole('region', { name: 'Provisioning actions' });
const buttonNames = (scope: HTMLElement) =>
  within(scope)
    .getAllByRole('button')
    .map((b) => b.textContent);
const undoBar = () => document.querySelector('.undo-bar') as HTMLElement;

/**
 * Where the focus is at the moment `shows()` first holds: read by a mutation observer, before any
 * later task (a passive effect) could move it; a reader or a screen reader looking then finds it there.
 */
function focusWhen(shows: () => boolean): Promise<Element | null> {
  return new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (!shows()) return;
      watch.disconnect();
      resolve(document.activeElement);
    });
    watch.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
  });
}

/** Whether the button named so shows and can be pressed. */
const enabled = (name: string) => () => {
  const button = screen.queryByRole<HTMLButtonElement>('button', { name });
  return button !== null && !button.disabled;
};

describe('ProvisioningActions', () => {
  it.each([
    ['ProvisioningStarted', ['Start provisioning', 'More…'], ['Mark completed', 'Mark failed…']],
    ['ProvisioningInProgress', ['Mark completed', 'Mark failed…'], []],
    ['ProvisioningCompleted', ['More…'], ['Reopen', 'Mark failed…']],
    ['ProvisioningFailed', ['Start again', 'More…'], ['Mark completed']],
    [undefined, ['More…'], ['Start provisioning', 'Mark completed', 'Mark failed…']],
  ])(
    'offers an order %s only the steps that make sense, the others behind More…',
    async (status, shown, more) => {
      await renderOrder(status);
      expect(buttonNames(actions())).toEqual(shown);
      if (more.length === 0) return;
      const toggle = within(actions()).getByRole('button', { name: 'More…' });
      expect(toggle.getAttribute('aria-expanded')).toBe('false');
      fireEvent.click(toggle);
      expect(toggle.getAttribute('aria-expanded')).toBe('true');
      expect(buttonNames(screen.getByRole('group', { name: 'Other statuses' }))).toEqual(more);
    },
  );

  it.each([
    ['Saga Foods B.V.', 'Saga Foods B.V.'],
    // As it is shown: the marketplace's trailing space or hidden character is not, so its stop ends the sentence.
    ['Saga Foods B.V. ', 'Saga Foods B.V.'],
    ['Saga Foods B.V.\u200b', 'Saga Foods B.V.'],
    // Any sentence's end, as sentenceEnded reads one.
    ['Yahoo!', 'Yahoo!'],
  ])(
    "ends the undo bar's sentence once when the buyer's name %j ends with a full stop or another end",
    async (name, shown) => {
      const order = fullOrder();
      const buyer = order.buyerCustomerParty;
      const bridge = createFakeBridge({
        views: [
          fullView({
            order: {
              ...order,
              buyerCustomerParty: { ...buyer, party: { ...buyer?.party, partyName: name } },
            },
            status: 'ProvisioningStarted',
            outbox: [],
          }),
        ],
      });
      renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
      await screen.findByRole('region', { name: 'To provision' });
      fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
      await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
      // The bar says it once the mark's answer is back, a render after the call.
      await waitFor(() =>
        expect(within(undoBar()).getByRole('status').textContent).toBe(`Marked In progress: ${shown}`),
      );
    },
  );

  it('marks an order started, holds it to undo, and puts the focus on the way to the next waiting order', async () => {
    const nextWaiting = vi.fn();
    const bridge = await renderOrder('ProvisioningStarted', {}, nextWaiting);
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
    expect(bridge.callsOf('markStatus')[0]).toEqual({
      orderId: FULL_ORDER_ID,
      statusCode: 'ProvisioningInProgress',
    });
    // Offered once the mark's answer is back, a render after the call.
    const next = await screen.findByRole('button', { name: 'Next waiting order →' });
    await waitFor(() => expect(document.activeElement).toBe(next));
    fireEvent.click(next);
    expect(nextWaiting).toHaveBeenCalledTimes(1);
    expect(undoBar().textContent).toContain('Marked In progress: Acme Industrial GmbH.');
    expect(undoBar().textContent).toMatch(/Sending in (10|9) s/);
    expect(within(undoBar()).getByRole('button', { name: /^Undo/ })).toBeTruthy();
    expect(screen.getByText('Marked In progress. Held 10 s so it can be undone, then sent.')).toBeTruthy();
    const held = within(screen.getByRole('list', { name: 'Statuses not yet confirmed' })).getByRole(
      'listitem',
    );
    expect(held.textContent).toContain('Marked by Anna Virtanen');
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('moves the focus on to the next waiting order in the same moment the marked status shows', async () => {
    await renderOrder('ProvisioningStarted', {}, () => {});
    // Where the focus is when the order shows its new status, ready for the next step.
    const focusedAsShown = focusWhen(enabled('Mark completed'));
    const start = screen.getByRole('button', { name: 'Start provisioning' });
    start.focus(); // as a click does in a browser
    fireEvent.click(start);
    expect(await focusedAsShown).toBe(screen.getByRole('button', { name: 'Next waiting order →' }));
  });

  it('moves the focus to the next action in the same moment an undone order shows as it was', async () => {
    await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    const focusedAsShown = focusWhen(enabled('Start provisioning'));
    undo.focus(); // as a click does in a browser
    fireEvent.click(undo);
    expect(await focusedAsShown).toBe(screen.getByRole('button', { name: 'Start provisioning' }));
  });

  it('undoes a mark from the bar: the order is as it was, and the focus on its next action', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    fireEvent.click(undo);
    await waitFor(() => expect(bridge.callsOf('undoMark')).toHaveLength(1));
    expect(bridge.callsOf('undoMark')[0]).toEqual({
      requestId: bridge.callsOf('markStatus').length && expect.any(String),
    });
    expect(await within(undoBar()).findByText('Undone: the marketplace was not told.')).toBeTruthy();
    const start = await screen.findByRole('button', { name: 'Start provisioning' });
    await waitFor(() => expect(document.activeElement).toBe(start));
    expect(bridge.views.get(FULL_ORDER_ID)?.outbox).toEqual([]);
  });

  it('undoes with Ctrl+Z while the bar offers it, but leaves Ctrl+Z in a text field to the field', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
    const description = screen.getByLabelText('Description (required)');
    fireEvent.change(description, { target: { value: 'Tenant creation failed' } });
    fireEvent.change(screen.getByLabelText('Detailed description of the reason (required)'), {
      target: { value: 'Quota exceeded' },
    });
    fireEvent.keyDown(description, { key: 'z', ctrlKey: true });
    expect(bridge.callsOf('undoMark')).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Mark as failed' }));
    await within(undoBar()).findByRole('button', { name: /^Undo/ });
    fireEvent.keyDown(document.body, { key: 'z', ctrlKey: true });
    await waitFor(() => expect(bridge.callsOf('undoMark')).toHaveLength(1));
    expect(await within(undoBar()).findByText('Undone: the marketplace was not told.')).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Mark completed' })).toBeTruthy();
  });

  it('hears Ctrl+Z pressed the moment the bar appears, before anything else runs', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    // Pressed as the Undo shows (a mutation observer runs before React's passive effects would).
    const pressed = new Promise<void>((resolve) => {
      const watch = new MutationObserver(() => {
        if (!within(undoBar()).queryByRole('button', { name: /^Undo/ })) return;
        watch.disconnect();
        document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'z', ctrlKey: true, bubbles: true }));
        resolve();
      });
      watch.observe(document.body, { childList: true, subtree: true });
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await pressed;
    await waitFor(() => expect(bridge.callsOf('undoMark')).toHaveLength(1));
  });

  it('says when it is too late to undo', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    bridge.handle('undoMark', () => ({ outcome: 'already-sent' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    undo.focus(); // as a click does in a browser
    fireEvent.click(undo);
    expect(await within(undoBar()).findByText(/Too late to undo: it was already sent/)).toBeTruthy();
    // The focus the Undo button had stays in the bar, on its Dismiss.
    expect(document.activeElement).toBe(within(undoBar()).getByRole('button', { name: 'Dismiss' }));
  });

  it('moves the focus to Dismiss in the same moment the outcome shows, not a frame later', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    bridge.handle('undoMark', () => ({ outcome: 'already-sent' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    // Where the focus is when the words appear: a reader (or a test) that looks then finds it there.
    const focusedAsShown = focusWhen(() => /Too late to undo/.test(undoBar().textContent ?? ''));
    undo.focus(); // as a click does in a browser
    fireEvent.click(undo);
    expect(await focusedAsShown).toBe(within(undoBar()).getByRole('button', { name: 'Dismiss' }));
  });

  it('leaves the focus in the bar when the order is read back only after the Undo was taken', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    const readBacks: ((view: OrderView) => void)[] = [];
    bridge.handle('getOrder', () => new Promise<OrderView>((resolve) => readBacks.push(resolve)));
    bridge.handle('undoMark', () => ({ outcome: 'already-sent' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    undo.focus(); // as a click does in a browser
    fireEvent.click(undo);
    await within(undoBar()).findByText(/Too late to undo/);
    const dismiss = within(undoBar()).getByRole('button', { name: 'Dismiss' });
    expect(document.activeElement).toBe(dismiss);
    // The order as marked arrives now: its next action shows, and the focus stays put.
    const marked = bridge.views.get(FULL_ORDER_ID);
    expect(readBacks.length).toBeGreaterThan(0);
    for (const readBack of readBacks.splice(0)) act(() => readBack(structuredClone(marked as OrderView)));
    await screen.findByRole('button', { name: 'Mark completed' });
    expect(document.activeElement).toBe(dismiss);
  });

  it('takes the Undo away when the grace period ends, and offers none when it is 0', async () => {
    const bridge = await renderOrder('ProvisioningStarted', { undoSeconds: 1 });
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await within(undoBar()).findByRole('button', { name: /^Undo/ });
    await waitFor(() => expect(within(undoBar()).queryByRole('button', { name: /^Undo/ })).toBeNull(), {
      timeout: 3000,
    });
    bridge.settings = { ...bridge.settings, undoSeconds: 0 };
    fireEvent.click(await screen.findByRole('button', { name: 'Mark completed' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(2));
    expect(within(undoBar()).queryByRole('button', { name: /^Undo/ })).toBeNull();
  });

  it('undoes a held status from the history too', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const pending = await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    fireEvent.click(within(pending).getByRole('button', { name: 'Undo: In progress' }));
    await waitFor(() => expect(bridge.callsOf('undoMark')).toHaveLength(1));
    await waitFor(() =>
      expect(screen.queryByRole('list', { name: 'Statuses not yet confirmed' })).toBeNull(),
    );
  });

  it('shows when what was marked failed to send, and why', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    const item = bridge.views.get(FULL_ORDER_ID)?.outbox[0];
    if (!item) throw new Error('the fake did not queue the status');
    const problem = apiProblem('sendEvent', 400);
    Object.assign(item, { state: 'failed', attempts: 1, problem });
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    // The words beside the actions; the details where the history lists it, to send again.
    const line = await within(actions()).findByText(/^Marked Completed\. Not sent: /);
    expect(line.textContent).toBe(
      `Marked Completed. Not sent: the marketplace refused it. ${problem.message}`,
    );
    expect(line.textContent).not.toMatch(/sendEvent|400|BadRequest|request id/i);
  });

  it('gives a mark that could not be sent yet no time after "tries again", where it would read as when', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    const item = bridge.views.get(FULL_ORDER_ID)?.outbox[0];
    if (!item) throw new Error('the fake did not queue the status');
    const problem = apiProblem('sendEvent', 503);
    Object.assign(item, { attempts: 1, notBefore: new Date(Date.now() - 60_000).toISOString(), problem });
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    const line = await within(actions()).findByText(/^Marked Completed\. Not sent yet/);
    expect(line.textContent).toBe(
      `Marked Completed. Not sent yet; Seller Tray tries again by itself. ${problem.message}`,
    );
  });

  it('follows what was marked through sent and confirmed, each with its time', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    const view = bridge.views.get(FULL_ORDER_ID);
    const item = view?.outbox[0];
    if (!view || !item) throw new Error('the fake did not queue the status');
    Object.assign(item, {
      state: 'sent',
      attempts: 1,
      notBefore: undefined,
      sentAt: new Date().toISOString(),
    });
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    await within(actions()).findByText(/^Marked In progress\. Sent: the marketplace accepted it \(.+\)\.$/);
    const { requestId, orderId, statusCode, createdAt } = item;
    view.outbox = [];
    view.settled = [
      {
        requestId,
        orderId,
        statusCode,
        createdAt,
        outcome: 'confirmed',
        settledAt: new Date().toISOString(),
      },
    ];
    act(() => bridge.emit({ type: 'app-state', state: bridge.state }));
    await within(actions()).findByText(/^Marked In progress\. Confirmed: the marketplace lists it \(.+\)\.$/);
  });

  it('says a mark made here before the order was opened as sentences, the status apart from its phase', async () => {
    const settled = {
      requestId: 'r-earlier',
      orderId: FULL_ORDER_ID,
      statusCode: 'ProvisioningInProgress',
      createdAt: '2026-11-20T09:58:00.000Z',
      outcome: 'confirmed',
      settledAt: '2026-11-20T10:00:00.000Z',
    } as const;
    const bridge = createFakeBridge({
      views: [fullView({ status: 'ProvisioningInProgress', outbox: [], settled: [settled] })],
    });
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} />);
    await screen.findByRole('region', { name: 'To provision' });
    const line = await within(actions()).findByText(/^Last marked/);
    expect(line.textContent).toMatch(
      /^Last marked In progress here\. Confirmed: the marketplace lists it \(.+\)\.$/,
    );
  });

  it('says a mark undone was undone, in the bar and beside the actions alike', async () => {
    await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await screen.findByRole('list', { name: 'Statuses not yet confirmed' });
    await within(undoBar()).findByRole('button', { name: /^Undo/ });
    fireEvent.keyDown(document.body, { key: 'z', ctrlKey: true });
    expect(await within(undoBar()).findByText('Undone: the marketplace was not told.')).toBeTruthy();
    const line = await within(actions()).findByText(/^Marked In progress\. Undone/);
    expect(line.textContent).toMatch(/^Marked In progress\. Undone: the marketplace was not told \(.+\)\.$/);
    expect(screen.queryByText(/Confirmed/)).toBeNull();
  });

  it('requires both a description and a detailed description to mark a failure', async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
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
    expect(screen.getByRole('alert').textContent).toContain('a detailed description of the reason');
    expect(document.activeElement).toBe(detailed);

    fireEvent.change(detailed, { target: { value: 'Quota exceeded in eu-central' } });
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
    // Not on the next step ("Start again"): on the actions, from where the user chooses.
    await screen.findByRole('button', { name: 'Start again' });
    await waitFor(() => expect(document.activeElement).toBe(actions()));
  });

  it('marks one status on a double Enter: the focus leaves the next step, and a press right after a mark is ignored', async () => {
    const bridge = await renderOrder('ProvisioningStarted', {}, () => {});
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const next = await screen.findByRole('button', { name: 'Next waiting order →' });
    await waitFor(() => expect(document.activeElement).toBe(next));
    // A second press lands on the next step all the same (a click, or a focus moved by hand).
    fireEvent.click(await screen.findByRole('button', { name: 'Mark completed' }));
    await new Promise((r) => setTimeout(r, 50));
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
    // Later it is a decision of its own.
    await new Promise((r) => setTimeout(r, 600));
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(2));
  });

  it('takes s, c and f as its buttons: a usual step at once, an unusual one asked first, never while typing', async () => {
    const bridge = await renderOrder('ProvisioningStarted', {}, () => {});
    // c on a New order is unusual: asked first, keeping the status the safe choice.
    fireEvent.keyDown(document.body, { key: 'c' });
    const dialog = screen.getByRole('alertdialog', { name: 'Mark this order Completed?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep it New' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep it New' }));
    expect(bridge.callsOf('markStatus')).toEqual([]);

    fireEvent.keyDown(document.body, { key: 's' });
    fireEvent.keyDown(document.body, { key: 's' });
    await waitFor(() => expect(bridge.callsOf('markStatus')).toHaveLength(1));
    expect(bridge.callsOf('markStatus')[0]).toEqual({
      orderId: FULL_ORDER_ID,
      statusCode: 'ProvisioningInProgress',
    });
    const next = await screen.findByRole('button', { name: 'Next waiting order →' });
    await waitFor(() => expect(document.activeElement).toBe(next));

    // f opens the failure form; letters typed into it are the form's.
    await new Promise((r) => setTimeout(r, REPEATED_PRESS_MS + 50));
    fireEvent.keyDown(document.body, { key: 'f' });
    const description = await screen.findByLabelText('Description (required)');
    fireEvent.keyDown(description, { key: 'c' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
    // With Ctrl or ⌘ a letter is no step (Ctrl+C copies).
    fireEvent.keyDown(document.body, { key: 'c', ctrlKey: true });
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
  });

  it("opens with the failure form when the inbox's f opened it, asking first when unusual", async () => {
    const bridge = createFakeBridge({ views: [fullView({ status: 'ProvisioningStarted', outbox: [] })] });
    renderWithUndo(
      bridge,
      <OrderDetail orderId={FULL_ORDER_ID} onBack={() => {}} pressOnOpen="ProvisioningFailed" />,
    );
    const dialog = await screen.findByRole('alertdialog', { name: 'Mark this order Failed?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark Failed…' }));
    expect(await screen.findByLabelText('Description (required)')).toBeTruthy();
  });

  it('closes the innermost thing first: Escape on More… closes its choices, and only then leaves the order', async () => {
    const onBack = vi.fn();
    const bridge = createFakeBridge({ views: [fullView({ status: 'ProvisioningStarted', outbox: [] })] });
    renderWithUndo(bridge, <OrderDetail orderId={FULL_ORDER_ID} onBack={onBack} />);
    const more = await screen.findByRole('button', { name: 'More…' });
    fireEvent.click(more);
    more.focus();
    fireEvent.keyDown(more, { key: 'Escape' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(onBack).not.toHaveBeenCalled();
    fireEvent.keyDown(more, { key: 'Escape' });
    expect(onBack).toHaveBeenCalledTimes(1);
  });

  it('asks before an unusual step, in the words the window uses, keeping the status as the safe choice', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'More…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Mark this order Completed?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.textContent).toContain('This order is New: nobody has started provisioning it.');
    expect(dialog.textContent).not.toContain('Started');
    const keep = within(dialog).getByRole('button', { name: 'Keep it New' });
    expect(document.activeElement).toBe(keep);
    expect(keep.className).toContain('primary');
    expect(within(dialog).getByRole('button', { name: 'Mark Completed' }).className).not.toContain('primary');
    expect(bridge.callsOf('markStatus')).toEqual([]);

    fireEvent.click(keep);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(bridge.callsOf('markStatus')).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Mark Completed' }));
    await waitFor(() =>
      expect(bridge.callsOf('markStatus')).toEqual([
        { orderId: FULL_ORDER_ID, statusCode: 'ProvisioningCompleted', override: true },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it("names a status it does not know isolated and plain, in the question's own words", async () => {
    await renderOrder(SPOOFED_TOTAL);
    fireEvent.click(within(actions()).getByRole('button', { name: 'More…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toContain(
      `This order's status is "00.1$ :latoT", which Seller Tray does not know`,
    );
    expect(dialog.textContent).not.toMatch(CONTROL_OR_BIDI);
    expect(within(dialog).getAllByText('00.1$ :latoT', { selector: 'bdi' })).toHaveLength(2);
    expect(within(dialog).getByRole('button', { name: 'Keep it 00.1$ :latoT' })).toBeTruthy();
  });

  it('asks first, then takes the reason, for an unusual failure', async () => {
    const bridge = await renderOrder('ProvisioningCompleted');
    fireEvent.click(screen.getByRole('button', { name: 'More…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Mark failed…' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Mark this order Failed?' });
    expect(dialog.textContent).toContain('This order is Completed.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark Failed…' }));
    fireEvent.change(screen.getByLabelText('Description (required)'), { target: { value: 'Rolled back' } });
    fireEvent.change(screen.getByLabelText('Detailed description of the reason (required)'), {
      target: { value: 'The tenant was deleted by mistake' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Mark as failed' }));
    await waitFor(() =>
      expect(bridge.callsOf('markStatus')).toEqual([
        {
          orderId: FULL_ORDER_ID,
          statusCode: 'ProvisioningFailed',
          description: 'Rolled back',
          detailedDescription: 'The tenant was deleted by mistake',
          override: true,
        },
      ]),
    );
  });

  it("asks with the service's words when the order changed meanwhile (a colleague marked it)", async () => {
    const bridge = await renderOrder('ProvisioningInProgress');
    const view = bridge.views.get(FULL_ORDER_ID);
    if (view) view.status = 'ProvisioningCompleted'; // another laptop, not shown yet
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toContain(
      'Marking an order Completed while it is Completed is unusual; confirm to do it anyway.',
    );
    fireEvent.keyDown(dialog, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(bridge.callsOf('markStatus')).toHaveLength(1);
  });

  it('keeps Tab inside the dialog, and Escape in it closes only the dialog', async () => {
    await renderOrder(undefined);
    fireEvent.click(screen.getByRole('button', { name: 'More…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Mark completed' }));
    const dialog = await screen.findByRole('alertdialog');
    const keep = within(dialog).getByRole('button', { name: 'Cancel' });
    const risky = within(dialog).getByRole('button', { name: 'Mark Completed' });
    expect(document.activeElement).toBe(keep);
    fireEvent.keyDown(dialog, { key: 'Tab' });
    expect(document.activeElement).toBe(risky);
    fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(keep);
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByRole('region', { name: 'To provision' })).toBeTruthy();
  });

  it('closes More… with Escape, back on its button', async () => {
    await renderOrder('ProvisioningStarted');
    const more = screen.getByRole('button', { name: 'More…' });
    fireEvent.click(more);
    const group = screen.getByRole('group', { name: 'Other statuses' });
    fireEvent.keyDown(within(group).getByRole('button', { name: 'Mark completed' }), { key: 'Escape' });
    expect(screen.queryByRole('group', { name: 'Other statuses' })).toBeNull();
    expect(document.activeElement).toBe(more);
  });

  it('shows other refusals in an alert', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    bridge.handle('markStatus', () => {
      throw new CodedError('not-configured', 'Seller Tray is not connected to a marketplace yet.');
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    expect((await screen.findByRole('alert')).textContent).toContain('not connected to a marketplace yet');
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('shows a failed mark in plain words, its operation, HTTP status and request id behind Details', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    const failure = apiFailure('sendEvent');
    bridge.handle('markStatus', () => {
      throw failure;
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    await expectDetailsOneClickAway(await screen.findByRole('alert'), failure, 'sendEvent');
  });

  it('says when an undo failed, with its details, until dismissed', async () => {
    const bridge = await renderOrder('ProvisioningStarted');
    fireEvent.click(screen.getByRole('button', { name: 'Start provisioning' }));
    const undo = await within(undoBar()).findByRole('button', { name: /^Undo/ });
    const failure = apiFailure('undoMark');
    bridge.handle('undoMark', () => {
      throw failure;
    });
    undo.focus(); // as a click does in a browser
    fireEvent.click(undo);
    const alert = await within(undoBar()).findByRole('alert');
    expect(alert.textContent).toMatch(/^Could not undo: The marketplace is having problems/);
    // The focus the Undo button had stays in the bar, on the alert's Dismiss.
    expect(document.activeElement).toBe(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    await expectDetailsOneClickAway(alert, failure, 'undoMark');
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(within(undoBar()).queryByRole('alert')).toBeNull();
  });
});
