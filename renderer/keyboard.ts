// The window's keys: one table (KEYS) that every handler looks its key up in and the Help screen
// lists, so what Help says and what the keys do cannot drift apart; and the helpers the handlers
// share (a key in a text field is the field's own).
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

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** What a key does; the handlers switch on these. */
export type KeyAction =
  | 'previous'
  | 'next'
  | 'pageUp'
  | 'pageDown'
  | 'first'
  | 'last'
  | 'open'
  | 'select'
  | 'selectPrevious'
  | 'selectNext'
  | 'selectAll'
  | 'start'
  | 'complete'
  | 'fail'
  | 'back'
  | 'search'
  | 'undo'
  | 'close'
  | 'help';

/** Where a key acts: in the inbox's list (it has the focus), on an order's page, or anywhere. */
export type KeyPlace = 'list' | 'order' | 'window';

/**
 * A key as `chordOf` names it: `KeyboardEvent.key` ("ArrowUp", "s", "?", " "), after "Mod+" for
 * Ctrl (⌘ on a Mac) and "Shift+" where Shift is not already in the character (Shift+ArrowUp).
 */
type Chord = string;

export interface KeyRow {
  /** The keys of the row, each with what it does. */
  keys: Readonly<Record<Chord, KeyAction>>;
  what: string;
}

export interface KeySection {
  title: string;
  places: readonly KeyPlace[];
  rows: readonly KeyRow[];
}

/** Every key of the window, where it acts, and what it does: the handlers read it, Help lists it. */
export const KEYS: readonly KeySection[] = [
  {
    title: 'In the list of orders',
    places: ['list'],
    rows: [
      { keys: { ArrowUp: 'previous', ArrowDown: 'next' }, what: 'Previous or next order' },
      {
        keys: { PageUp: 'pageUp', PageDown: 'pageDown', Home: 'first', End: 'last' },
        what: 'A page up or down; the first or last order',
      },
      { keys: { Enter: 'open' }, what: 'Open the order' },
      { keys: { ' ': 'select' }, what: 'Select the order, or unselect it, for a bulk action' },
      {
        keys: { 'Shift+ArrowUp': 'selectPrevious', 'Shift+ArrowDown': 'selectNext' },
        what: 'Select the orders on the way',
      },
      { keys: { 'Mod+a': 'selectAll' }, what: 'Select every order of the list' },
    ],
  },
  {
    title: 'On an order, or the list’s current order',
    places: ['list', 'order'],
    rows: [
      { keys: { s: 'start' }, what: 'Start provisioning: In progress' },
      { keys: { c: 'complete' }, what: 'Mark it Completed' },
      { keys: { f: 'fail' }, what: 'Mark it Failed (asks why)' },
    ],
  },
  {
    title: 'On an order',
    places: ['order'],
    rows: [
      {
        keys: { ArrowUp: 'previous', ArrowDown: 'next', k: 'previous', j: 'next' },
        what: 'Previous or next order of the inbox',
      },
      { keys: { Escape: 'back' }, what: 'Back to the inbox' },
    ],
  },
  {
    title: 'Anywhere',
    places: ['window'],
    rows: [
      { keys: { '/': 'search' }, what: 'Search the inbox' },
      { keys: { 'Mod+z': 'undo' }, what: 'Undo the last mark while it is held' },
      { keys: { Escape: 'close' }, what: 'Close what is open (a menu, a selection, this help)' },
      { keys: { '?': 'help' }, what: 'Show this help' },
    ],
  },
];

/** The key pressed, named as in KEYS; null with Alt or the other platform's modifier, never ours. */
export function chordOf(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>) {
  const mod = isMac ? event.metaKey : event.ctrlKey;
  if (event.altKey || (isMac ? event.ctrlKey : event.metaKey)) return null;
  // A character carries its Shift ("?", "S"), except under Mod, where letters are named lower-case.
  const character = event.key.length === 1;
  const key = mod && character ? event.key.toLowerCase() : event.key;
  const shift = event.shiftKey && (mod || !character);
  return `${mod ? 'Mod+' : ''}${shift ? 'Shift+' : ''}${key}`;
}

/** What the key does at `place`, if anything. */
export function keyAction(
  event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>,
  place: KeyPlace,
): KeyAction | undefined {
  const chord = chordOf(event);
  if (chord === null) return undefined;
  for (const section of KEYS) {
    if (!section.places.includes(place)) continue;
    for (const row of section.rows) if (Object.hasOwn(row.keys, chord)) return row.keys[chord];
  }
  return undefined;
}

/** The keys that do `action`, anywhere. */
export function chordsOf(action: KeyAction): Chord[] {
  return KEYS.flatMap((section) =>
    section.rows.flatMap((row) => Object.keys(row.keys).filter((chord) => row.keys[chord] === action)),
  );
}

/** The status each marking key sets: the same steps as the buttons. */
const MARKS: Partial<Record<KeyAction, MarkableStatus>> = {
  start: 'ProvisioningInProgress',
  complete: 'ProvisioningCompleted',
  fail: 'ProvisioningFailed',
};

/** The status the key marks at `place`, if it is a marking key. */
export function markKey(
  event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>,
  place: KeyPlace,
): MarkableStatus | undefined {
  const action = keyAction(event, place);
  return action && MARKS[action];
}

const KEY_NAMES: Readonly<Record<string, string>> = {
  ArrowUp: '↑',
  ArrowDown: '↓',
  PageUp: 'Page Up',
  PageDown: 'Page Down',
  Escape: 'Esc',
  ' ': 'Space',
};

/** A chord as people read it: "Ctrl+A" ("⌘A" on a Mac), "Shift+↓", "Space". */
export function keyLabel(chord: Chord): string {
  const parts = chord.split('+');
  const key = parts.pop() ?? '';
  const named = KEY_NAMES[key] ?? (parts.includes('Mod') ? key.toUpperCase() : key);
  const modifiers = parts.map((part) => (part !== 'Mod' ? `${part}+` : isMac ? '⌘' : 'Ctrl+'));
  return `${modifiers.join('')}${named}`;
}
