// What SQLite alone costs a first start (issue 27): the long history's events (about 95,000 of
// 42,000 orders, simulator seed 3, as core.bench.ts) read once, then written into the store's own
// schema (every migration, every index and trigger) by bare statements, no app logic: each event
// as the store writes it, and its order stored or given its status, in parts of 1,000 and of
// 5,000 events a transaction. A floor under the first sync that no reading can remove: compare
// it with the fetch-and-parse floor of the same pages (core.bench.ts). Each part size twice,
// interleaved; CPU is this process's, which a shared machine's load inflates less than the wall.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SellerApiClient } from '../../main/core/api/client';
import { eventKey, type MarketplaceEvent, orderIdOf } from '../../main/core/api/wire';
import { openDatabase } from '../../main/core/store/database';
import { spawnSimulator } from '../support/processes';

const { url, child } = await spawnSimulator(['--orders', '42000', '--seed', '3']);
const client = new SellerApiClient({
  baseUrl: url,
  credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
});
const events: MarketplaceEvent[] = [];
for await (const page of client.allEvents(0)) events.push(...page.items);
child.kill('SIGTERM');

function write(perTransaction: number, orders: boolean): { wallMs: number; cpuMs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'store-floor-'));
  const { db } = openDatabase(join(dir, 'account.sqlite'));
  const insertEvent = db.prepare(
    `INSERT OR IGNORE INTO events (key, order_id, event_type, status, event_time, event_ms, json)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertOrder = db.prepare(
    `INSERT INTO orders (order_id, learned_at, unindexed, escalated_at, status, status_at, purchased_at,
         effective_status) VALUES (?1, ?2, 1, ?2, ?3, ?4, ?4, ?3)
       ON CONFLICT (order_id) DO UPDATE SET status = ?3, effective_status = ?3, status_at = ?4`,
  );
  const now = new Date().toISOString();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let first = 0; first < events.length; first += perTransaction) {
    db.exec('BEGIN IMMEDIATE');
    for (const event of events.slice(first, first + perTransaction)) {
      const orderId = orderIdOf(event) ?? null;
      const time = event.eventTime ?? null;
      insertEvent.run(
        eventKey(event),
        orderId,
        event.eventTypeCode,
        event.statusCode,
        time,
        time === null ? null : Date.parse(time),
        JSON.stringify(event),
      );
      if (orders && orderId !== null) insertOrder.run(orderId, now, event.statusCode, time);
    }
    db.exec('COMMIT');
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const rows: Record<string, { 'wall ms': number; 'CPU ms': number }> = {};
for (let run = 1; run <= 2; run++) {
  for (const per of [1_000, 5_000]) {
    for (const orders of [false, true]) {
      const { wallMs, cpuMs } = write(per, orders);
      rows[`run ${run}: ${per} a transaction, events${orders ? ' and orders' : ''}`] = {
        'wall ms': Math.round(wallMs),
        'CPU ms': Math.round(cpuMs),
      };
    }
  }
}
console.log(`${events.length} events written into the store's schema by bare statements`);
console.table(rows);
