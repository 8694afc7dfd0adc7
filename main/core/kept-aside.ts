// How the items the tolerant reader kept aside are told: one sentence for the user, what was
// wrong with each one click away (the window's Details, the CLI's following lines).
import type { ItemKind } from './api/wire';

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

/** Keys longer than an id are the content of an item that has none. */
const MAX_SHOWN_KEY = 64;

export function describeAside(items: readonly AsideItem[]): { message: string; details: string[] } {
  const counts = new Map<ItemKind, number>();
  for (const item of items) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  const phrase = [...counts].map(([kind, n]) => `${n} ${NOUNS[kind][n === 1 ? 0 : 1]}`).join(' and ');
  const one = items.length === 1;
  return {
    message: `${phrase} from the marketplace could not be read and ${one ? 'is' : 'are'} kept aside; everything else was read as usual.`,
    details: items.map((item) => {
      const id = item.key.length > MAX_SHOWN_KEY ? '(without an id)' : item.key;
      return `${NOUNS[item.kind][0]} ${id}: ${item.fieldPath}: ${item.reason}`;
    }),
  };
}
