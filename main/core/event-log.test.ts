import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketplaceEvent } from './api/wire';
import { EventLog } from './event-log';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'event-log-'));
  file = join(dir, 'events.jsonl');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

let ids = 0;
/** Events as the API gives them; ids are UUIDs, as the wire schema demands. */
const event = (statusCode: string, eventTime: string, orderId = 'o1'): MarketplaceEvent => ({
  eventId: `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  eventTypeCode: 'ServicePurchased',
  statusCode,
  eventTime,
  description: statusCode,
  additionalProperties: [{ name: 'orderId', value: orderId }],
});

describe('event log', () => {
  it('keeps each event once, also across a reopen', async () => {
    const { log } = await EventLog.open(file);
    const started = event('ProvisioningStarted', '2026-11-20T10:00:00Z');
    expect(log.append([started, started])).toHaveLength(1);
    expect(log.append([started])).toHaveLength(0);
    const { log: reopened } = await EventLog.open(file);
    expect(reopened.size).toBe(1);
    expect(reopened.append([started])).toEqual([]);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it("knows each order's status from its latest event by time, whatever the arrival order", async () => {
    const { log } = await EventLog.open(file);
    log.append([event('ProvisioningCompleted', '2026-11-21T10:00:00.000002+00:00')]);
    log.append([event('ProvisioningStarted', '2026-11-20T10:00:00.000000+00:00')]);
    log.append([event('ProvisioningInProgress', '2026-11-21T10:00:00.000001+00:00')]);
    expect(log.status('o1')).toBe('ProvisioningCompleted');
    expect(log.history('o1').map((e) => e.statusCode)).toEqual([
      'ProvisioningStarted',
      'ProvisioningInProgress',
      'ProvisioningCompleted',
    ]);
  });

  it('compares times across UTC offsets', async () => {
    const { log } = await EventLog.open(file);
    log.append([
      event('ProvisioningInProgress', '2026-11-21T12:00:00+02:00'),
      event('ProvisioningFailed', '2026-11-21T10:30:00Z'),
    ]);
    expect(log.status('o1')).toBe('ProvisioningFailed');
  });

  it('tracks the orders waiting for action as events arrive', async () => {
    const { log } = await EventLog.open(file);
    log.append([
      event('ProvisioningStarted', '2026-11-20T10:00:00Z', 'a'),
      event('ProvisioningStarted', '2026-11-20T11:00:00Z', 'b'),
    ]);
    expect([...log.waitingOrders()]).toEqual([
      ['a', '2026-11-20T10:00:00Z'],
      ['b', '2026-11-20T11:00:00Z'],
    ]);
    log.append([event('ProvisioningInProgress', '2026-11-20T12:00:00Z', 'a')]);
    expect([...log.waitingOrders().keys()]).toEqual(['b']);
  });

  it('skips a line cut short by a crash, and says how many', async () => {
    const { log } = await EventLog.open(file);
    log.append([event('ProvisioningStarted', '2026-11-20T10:00:00Z')]);
    await appendFile(file, '{"eventId":"half');
    const reopened = await EventLog.open(file);
    expect(reopened.skippedLines).toBe(1);
    expect(reopened.log.size).toBe(1);
  });
});
