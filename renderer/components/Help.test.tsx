// @vitest-environment happy-dom
// Help: the keys it lists are exactly the keys the window handles (every listed key acts where
// Help says, and no other key of a wide set does), and Help opens by "?", the header, the inbox's
// keys button and the tray's event, and goes back where it was by Escape or Close.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ShellEvent } from '../../preload/contract';
import { createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { FULL_ORDER_ID, fullOrder, fullView, manyOrders } from '../../test/support/renderer/fixtures';
import { setWindowSize, withInboxHeight } from '../../test/support/renderer/layout';
import { App } from '../App';
import { chordOf, isMac, KEYS, type KeyPlace, keyLabel } from '../keyboard';

withInboxHeight(480);
beforeEach(() => setWindowSize(420, 640));
afterEach(cleanup);

const orderRows = () => within(screen.getByRole('listbox', { name: 'Orders' })).queryAllByRole('option');

/** An inbox of waiting orders whose first one has a page (New, so each of s, c, f is a step). */
async function renderInbox() {
  const orders = manyOrders(4, 4);
  orders[0] = {
    ...(orders[0] as (typeof orders)[number]),
    orderId: FULL_ORDER_ID,
    buyer: 'Acme Industrial GmbH',
  };
  const bridge = createFakeBridge({
    orders,
    views: [fullView({ order: fullOrder(), status: 'ProvisioningStarted', outbox: [], settled: [] })],
  });
  render(<App bridge={bridge} />);
  await waitFor(() => expect(orderRows()).toHaveLength(4));
  return bridge;
}

/** The list with the focus, its first order current. */
async function inList(): Promise<Element> {
  await renderInbox();
  const list = screen.getByRole('listbox', { name: 'Orders' });
  list.focus();
  fireEvent.keyDown(list, { key: 'ArrowDown' });
  await waitFor(() => expect(orderRows()[0]?.getAttribute('aria-selected')).toBe('true'));
  return list;
}

/** An order's page, opened from the inbox. */
async function onOrder(): Promise<Element> {
  await renderInbox();
  fireEvent.click(orderRows()[0] as Element);
  await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' });
  await screen.findByRole('button', { name: 'Start provisioning' });
  return document.activeElement ?? document.body;
}

/** The inbox with something open (a selected row) and a mark to undo: every window key has work. */
async function inWindow(): Promise<Element> {
  const list = await inList();
  fireEvent.keyDown(list, { key: 's' });
  await screen.findByRole('button', { name: /^Undo/ });
  fireEvent.keyDown(list, { key: ' ' });
  await screen.findByText('1 order selected');
  return document.body;
}

const SETUPS: Readonly<Record<KeyPlace, () => Promise<Element>>> = {
  list: inList,
  order: onOrder,
  window: inWindow,
};

type Press = { key: string; shiftKey?: boolean; ctrlKey?: boolean; metaKey?: boolean };
const MOD = isMac ? 'metaKey' : 'ctrlKey';

/** A listed chord as a key press. */
function pressOf(chord: string): Press {
  const parts = chord.split('+');
  const key = parts.pop() ?? '';
  return {
    key,
    ...(parts.includes('Shift') ? { shiftKey: true } : {}),
    ...(parts.includes('Mod') ? { [MOD]: true } : {}),
  };
}

/** Every key a person may press, alone, with Shift, with Ctrl (⌘) and with both. */
function everyPress(): Press[] {
  const characters = [
    ...'abcdefghijklmnopqrstuvwxyz',
    ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    ...'0123456789',
    ...' `-=[]\\;\',./~!@#$%^&*()_+{}|:"<>?',
  ];
  const named = [
    'Enter',
    'Escape',
    'Tab',
    'Backspace',
    'Delete',
    'Insert',
    'ArrowUp',
    'ArrowDown',
    'ArrowLeft',
    'ArrowRight',
    'Home',
    'End',
    'PageUp',
    'PageDown',
    'F1',
    'ContextMenu',
  ];
  return [...characters, ...named].flatMap((key) => [
    { key },
    { key, shiftKey: true },
    { key, [MOD]: true },
    { key, shiftKey: true, [MOD]: true },
  ]);
}

/** The chords Help lists for a place, with the window's (which act everywhere). */
function listedAt(place: KeyPlace): Set<string> {
  return new Set(
    KEYS.filter((s) => s.places.includes(place) || s.places.includes('window')).flatMap((s) =>
      s.rows.flatMap((row) => Object.keys(row.keys)),
    ),
  );
}

describe('Help’s keys', () => {
  const listed = KEYS.flatMap((section) =>
    section.places.flatMap((place) =>
      section.rows.flatMap((row) => Object.keys(row.keys).map((chord) => ({ place, chord, what: row.what }))),
    ),
  );

  it.each(listed)('$place: $chord acts ($what)', async ({ place, chord }) => {
    const target = await SETUPS[place]();
    // fireEvent answers false when a handler took the key (prevented its default).
    expect(fireEvent.keyDown(target, pressOf(chord))).toBe(false);
  });

  it.each(['list', 'order', 'window'] as const)('%s: no key that Help does not list acts', async (place) => {
    const target = await SETUPS[place]();
    const listedHere = listedAt(place);
    const acted = everyPress()
      .filter(
        (press) =>
          !listedHere.has(
            chordOf({ altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, ...press }) ?? '',
          ),
      )
      .filter((press) => !fireEvent.keyDown(target, press))
      .map((press) => JSON.stringify(press));
    expect(acted).toEqual([]);
  });

  it('are listed as people read them, each section under its title', async () => {
    await renderInbox();
    fireEvent.keyDown(document.body, { key: '?' });
    const help = await screen.findByRole('region', { name: 'Help' });
    for (const section of KEYS) {
      const table = within(help).getByRole('table', { name: section.title });
      const rows = within(table).getAllByRole('row').slice(1);
      expect(rows.map((row) => row.textContent)).toEqual(
        section.rows.map((row) => Object.keys(row.keys).map(keyLabel).join(' ') + row.what),
      );
    }
    expect(keyLabel('Mod+a')).toBe(isMac ? '⌘A' : 'Ctrl+A');
    expect(keyLabel('Shift+ArrowDown')).toBe('Shift+↓');
    expect(keyLabel(' ')).toBe('Space');
  });
});

describe('Help', () => {
  it('opens by "?" (not while typing) and Escape goes back to the order it was opened over, held or not', async () => {
    await renderInbox();
    fireEvent.keyDown(screen.getByRole('searchbox', { name: 'Search orders' }), { key: '?' });
    expect(screen.queryByRole('region', { name: 'Help' })).toBeNull();
    cleanup();
    await onOrder();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: '?' });
    const help = await screen.findByRole('region', { name: 'Help' });
    expect(document.activeElement).toBe(within(help).getByRole('heading', { level: 2, name: 'Help' }));
    expect(screen.getByRole('button', { name: 'Help' }).getAttribute('aria-current')).toBe('page');
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Help' })).toBeNull();
    // The same Escape held down (the keyboard repeating it) stays on the order.
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape', repeat: true });
    expect(screen.getByRole('heading', { level: 2, name: 'Acme Industrial GmbH' })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    await waitFor(() => expect(orderRows()).toHaveLength(4));
  });

  it('gives the focus back to the list when Escape closes it over the inbox, nothing chosen yet', async () => {
    await renderInbox();
    fireEvent.keyDown(document.body, { key: '?' });
    await screen.findByRole('region', { name: 'Help' });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    await waitFor(() => expect(orderRows()).toHaveLength(4));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('listbox', { name: 'Orders' })));
  });

  it('explains what an inbox row says of a mark, and sends a rejected secret to the account’s own row', async () => {
    await renderInbox();
    fireEvent.keyDown(document.body, { key: '?' });
    const help = await screen.findByRole('region', { name: 'Help' });
    // A row says "sending", "not sent yet" (a post that failed, tried again) or "not sent" (refused).
    expect(help.textContent).toMatch(
      /Not sent yet: the marketplace could not be reached or answered with an error/,
    );
    expect(help.textContent).toMatch(/Credentials rejected[^.]*\. Check them in Settings → Accounts/);
  });

  it('says what "Not read for 20 min" means, and that Seller Tray tries again only where it does', async () => {
    await renderInbox();
    fireEvent.keyDown(document.body, { key: '?' });
    const help = await screen.findByRole('region', { name: 'Help' });
    const lastRead = [...help.querySelectorAll('p')].find((p) =>
      p.textContent?.includes('Beside a problem'),
    )?.textContent;
    expect(lastRead).toMatch(
      /Last read 3 min ago or Not read for 20 min says when the marketplace was last read/,
    );
    // Rejected credentials wait for a new secret, a pause for its end (poller.ts): no "keeps trying" for all.
    expect(lastRead).not.toMatch(/keeps trying/);
    expect(lastRead).toMatch(/trying again says Seller Tray tries again by itself/);
    expect(lastRead).toMatch(
      /with credentials rejected it waits for a new secret, and paused, for the pause to end/,
    );
    // The header's warning in its words: the polls tried and read nothing, so never "Not checked".
    expect(help.textContent).toMatch(/Not read for 20 min is a warning: new orders may be waiting unseen/);
    expect(help.textContent).not.toMatch(/Not checked for/);
  });

  it('gives the focus back to what had it when Escape closes it over another page (Settings)', async () => {
    await renderInbox();
    const settings = screen.getByRole('button', { name: 'Settings' });
    settings.focus();
    fireEvent.click(settings);
    await screen.findByRole('region', { name: 'Accounts' });
    fireEvent.keyDown(settings, { key: '?' });
    await screen.findByRole('region', { name: 'Help' });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    await screen.findByRole('region', { name: 'Accounts' });
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Settings' })),
    );
  });

  it('opens from the header, from the inbox’s keys button at the keys, and from the tray', async () => {
    const bridge = await renderInbox();
    fireEvent.click(screen.getByRole('button', { name: 'Help' }));
    await screen.findByRole('region', { name: 'Help' });
    fireEvent.click(screen.getByRole('button', { name: /^Close/ }));
    await waitFor(() => expect(orderRows()).toHaveLength(4));

    fireEvent.click(screen.getByRole('button', { name: 'Keyboard shortcuts' }));
    await screen.findByRole('region', { name: 'Help' });
    expect(document.activeElement).toBe(screen.getByRole('heading', { level: 3, name: 'Keys' }));

    fireEvent.click(screen.getByRole('button', { name: 'Open Settings' }));
    await screen.findByRole('heading', { level: 2, name: 'Settings' });
    const emit = (event: ShellEvent) => (bridge.emit as unknown as (event: ShellEvent) => void)(event);
    act(() => emit({ type: 'open-help' }));
    await screen.findByRole('region', { name: 'Help' });
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(await screen.findByRole('heading', { level: 2, name: 'Settings' })).toBeTruthy();
  });
});
