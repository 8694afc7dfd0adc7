// A first start killed with kill -9 midway: what an account's store holds, read beside the process
// writing it; the kill of that process once the stores show the point chosen; and the listing pages
// the next start asks each marketplace for, to tell that it goes on from what was recorded.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Transport } from '../../main/core/api/transport';
import { DATABASE_FILE } from '../../main/core/store/account-store';
import { openReadOnly } from '../../main/core/store/database';
import { exitOf } from './processes';

/** What an account's store says of its first start; undefined while the store is not made yet. */
export interface StoreNow {
  /** Set while the history is being read. */
  firstSync: string | undefined;
  cursor: { offset: number } | undefined;
  /** The place the walk of the orders listing goes on from, while it is under way. */
  ordersWalk: number | undefined;
  events: number;
  announcements: number;
}

export function storeNow(dataDir: string): StoreNow | undefined {
  let db: ReturnType<typeof openReadOnly>;
  try {
    db = openReadOnly(join(dataDir, DATABASE_FILE));
  } catch {
    return undefined; // not made yet
  }
  try {
    const meta = (key: string) =>
      (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const cursor = meta('cursor');
    const ordersWalk = meta('orders-walk');
    return {
      firstSync: meta('first-sync'),
      cursor: cursor === undefined ? undefined : (JSON.parse(cursor) as { offset: number }),
      ordersWalk: ordersWalk === undefined ? undefined : Number(ordersWalk),
      events: count('SELECT COUNT(*) AS n FROM events'),
      announcements: count('SELECT COUNT(*) AS n FROM announcements'),
    };
  } catch {
    return undefined; // its tables not made yet
  } finally {
    db.close();
  }
}

/**
 * Kills `child` (SIGKILL) once `midway` holds, looking every 20 ms for at most 30 s; answers what it
 * printed. The caller checks that `midway` still holds of what the kill left (it did land there).
 */
export async function killWhen(child: ChildProcess, midway: () => boolean): Promise<string> {
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  for (let tries = 0; tries < 1_500 && !midway(); tries++) await delay(20);
  child.kill('SIGKILL');
  await exitOf(child);
  return stdout;
}

/** The offsets of the listing pages asked for, by origin. */
export interface ListingsAsked {
  listEvents: number[];
  listOrders: number[];
}

/** A transport that notes the offset of every listing page asked for (events and orders), by origin. */
export function listingsNoted(): { transport: Transport; asked: (origin: string) => ListingsAsked } {
  const byOrigin = new Map<string, ListingsAsked>();
  const asked = (origin: string) => {
    const listings = byOrigin.get(origin) ?? { listEvents: [], listOrders: [] };
    byOrigin.set(origin, listings);
    return listings;
  };
  const transport: Transport = (input, init) => {
    const url = new URL(input);
    const offset = Number(url.searchParams.get('offset') ?? Number.NaN);
    if (url.pathname.endsWith('/marketplaceEvents')) asked(url.origin).listEvents.push(offset);
    if (url.pathname.endsWith('/orders')) asked(url.origin).listOrders.push(offset);
    return fetch(input, init);
  };
  return { transport, asked };
}
