// Keyboard helpers shared by the views' shortcuts, and the one list of them that "?" shows.
import type { MarkableStatus } from '../preload/order-status';

/** Whether a key went to a text field, where letters, arrows and Ctrl+Z are the field's own. */
export function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Whether a plain key (no Ctrl, ⌘ or Alt) is the window's to act on: not typed into a field, no dialog open. */
export function isWindowKey(
  event: Pick<KeyboardEvent, 'defaultPrevented' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target'>,
): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
  return !isEditable(event.target) && document.querySelector('[aria-modal="true"]') === null;
}

/** The single keys that mark an order, on its row and on its page: the same steps as the buttons. */
export const ACTION_KEYS: Readonly<Record<string, MarkableStatus>> = {
  s: 'ProvisioningInProgress',
  c: 'ProvisioningCompleted',
  f: 'ProvisioningFailed',
};

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? '⌘' : 'Ctrl+';

/** Every shortcut, as the keys dialog lists them. */
export const SHORTCUTS: readonly { keys: readonly string[]; what: string }[] = [
  { keys: ['↑', '↓'], what: 'Previous or next order' },
  { keys: ['Enter'], what: 'Open the order' },
  { keys: ['s'], what: 'Start provisioning the order' },
  { keys: ['c'], what: 'Mark the order completed' },
  { keys: ['f'], what: 'Mark the order failed (asks why)' },
  { keys: ['Space'], what: 'Select the order, or unselect it, for a bulk action' },
  { keys: ['Shift+↑', 'Shift+↓'], what: 'Select the orders on the way' },
  { keys: [`${MOD}A`], what: 'Select every order of the list' },
  { keys: ['/'], what: 'Search' },
  { keys: [`${MOD}Z`], what: 'Undo the last mark while it is held' },
  { keys: ['Esc'], what: 'Close what is open; back to the inbox' },
  { keys: ['?'], what: 'Show these keys' },
];
