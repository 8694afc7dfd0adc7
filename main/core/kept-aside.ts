// How the items the tolerant reader kept aside are told: one sentence for the user, what was
// wrong with each one click away (the window's Details, the CLI's following lines). Events of
// another seller account are kept aside the same way, and told as such.
import { type ItemKind, itemKey, type MarketplaceEvent, orderIdOf, type UnreadableItem } from './api/wire';

export interface AsideItem {
  kind: ItemKind;
  key: string;
  fieldPath: string;
  reason: string;
}

const NOUNS: Record<ItemKind, [string, string]> = {
  event: ['event', 'events'],
  order: ['order', 'orders'],
  license: ['license', 'licenses'],
};

/** Keys longer than an id (within its order) are the content of an item that has none. */
const MAX_SHOWN_KEY = 80;

/**
 * How the reason of an event of another seller account opens, so it is told as such. The store's
 * indexes unreadable_foreign and unreadable_shown (schema.ts, migration 15) are of the items whose
 * reason opens so and of the others: a change here needs a migration that builds them anew.
 */
export const ANOTHER_SELLER = 'of another seller account';

/**
 * An event kept aside because it is another seller's (by its `sellerId`, or because its order
 * answers 404 for this account): never announced, told as such.
 */
export function anotherSellers(event: MarketplaceEvent, fieldPath: string, why: string): UnreadableItem {
  return {
    kind: 'event',
    key: itemKey('event', event),
    fieldPath,
    reason: `${ANOTHER_SELLER}: ${why}`,
    raw: event,
  };
}

/**
 * An event whose UUID was read before for another order (`first`): a marketplace reusing an id.
 * The event as first read stays; this repeat is kept aside under its id within its own order.
 */
export function reusedId(event: MarketplaceEvent, first: string): UnreadableItem {
  return {
    kind: 'event',
    key: `${itemKey('event', event)} in ${orderIdOf(event)}`,
    fieldPath: 'eventId',
    reason: `its id was read before for order ${first}, whose event is kept as first read: each event needs an id of its own`,
    raw: event,
  };
}

export function describeAside(items: readonly AsideItem[]): { message: string; details: string[] } {
  const foreign = items.filter((item) => item.reason.startsWith(ANOTHER_SELLER));
  const unreadable = items.filter((item) => !item.reason.startsWith(ANOTHER_SELLER));
  const sentences = [
    unreadable.length > 0 &&
      `${phrase(unreadable)} from the marketplace could not be read and ${unreadable.length === 1 ? 'is' : 'are'} kept aside; everything else was read as usual.`,
    foreign.length > 0 &&
      `${phrase(foreign)} of another seller account came with this account's and ${foreign.length === 1 ? 'is' : 'are'} kept aside, not announced. If this lasts, tell the marketplace: its lists should hold only your own orders.`,
  ];
  return {
    message: sentences.filter(Boolean).join(' '),
    details: [...unreadable, ...foreign].map((item) => {
      const id = item.key.length > MAX_SHOWN_KEY ? '(without an id)' : item.key;
      return `${NOUNS[item.kind][0]} ${id}: ${item.fieldPath}: ${item.reason}`;
    }),
  };
}

/** "2 events and 1 order". */
function phrase(items: readonly AsideItem[]): string {
  const counts = new Map<ItemKind, number>();
  for (const item of items) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${NOUNS[kind][n === 1 ? 0 : 1]}`).join(' and ');
}
