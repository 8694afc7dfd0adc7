// Escalation over the simulator on loopback HTTP, on a clock the test moves: a new order nobody
// started within the setting's minutes is announced again, urgent, once, on every laptop; one
// started in time, the first start's backlog and a laptop whose notifications are paused are not;
// a snooze on one laptop puts it off there only.
import { describe, expect, it } from 'vitest';
import { type Laptop, openLaptop } from './support/core';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';

const MINUTE = 60_000;
const market = sharedMarketplace({ seed: 31, orders: 20 });
const { laptops } = market;

/** Two laptops of one seller on one clock, urgent after 30 minutes, their first sync done. */
async function team() {
  const clock = { now: Date.now() };
  const open = async () => {
    const laptop = await openLaptop(market.sim.url, undefined, {
      now: () => clock.now,
      // Reminders too, after 15 minutes: Needs attention lists an order from then, with its snooze.
      settings: { escalateAfterMinutes: 30, reminderAfterMinutes: 15 },
    });
    laptops.push(laptop);
    await laptop.core.start();
    return laptop;
  };
  const [a, b] = [await open(), await open()];
  const poll = async () => {
    for (const laptop of [a, b]) await laptop.core.checkNow();
  };
  const later = async (minutes: number) => {
    clock.now += minutes * MINUTE;
    await poll();
  };
  const purchase = async (buyer: string): Promise<string> =>
    (
      await admin(market.sim.url, 'POST', 'purchases', {
        order: { buyerCustomerParty: { party: { partyName: buyer } } },
      })
    ).json.orderId;
  return { a, b, clock, poll, later, purchase };
}

const urgent = (laptop: Laptop) => laptop.notifications().filter((n) => n.kind === 'urgent');

describe('escalation', () => {
  it('announces a new order nobody started again, urgent, once, on every laptop; not the backlog', async () => {
    const { a, b, poll, later, purchase } = await team();
    const orderId = await purchase('Kestrel Foods Oy');
    await poll();
    await later(29);
    expect([...urgent(a), ...urgent(b)]).toEqual([]);
    await later(2);
    for (const laptop of [a, b]) {
      expect(urgent(laptop)).toEqual([
        {
          kind: 'urgent',
          title: 'Urgent: not started, Kestrel Foods Oy',
          body: expect.stringMatching(/ has waited for over 30 minutes$/),
          orderId,
        },
      ]);
    }
    // Once: not again at the next polls, and the backlog (older than 30 minutes, waiting) never.
    await later(60);
    expect([urgent(a), urgent(b)].map((told) => told.length)).toEqual([1, 1]);
    expect(a.core.status().waitingCount).toBeGreaterThan(1);
  });

  it('on a laptop that learns of the order late (it was off), counts from then: new first, urgent later', async () => {
    const { a, b, clock, later, purchase } = await team();
    const orderId = await purchase('Tundra Media AB');
    // Only A polls for 40 minutes.
    for (let minutes = 0; minutes < 40; minutes += 10) {
      clock.now += 10 * MINUTE;
      await a.core.checkNow();
    }
    expect(urgent(a).map((n) => n.orderId)).toEqual([orderId]);
    await b.core.checkNow();
    // Announced as new (reminders of the backlog aside), not urgent.
    expect(b.notifications().filter((n) => n.kind === 'order' || n.kind === 'urgent')).toEqual([
      expect.objectContaining({ kind: 'order', orderId }),
    ]);
    await later(29);
    expect(urgent(b)).toEqual([]);
    await later(2);
    expect(urgent(b).map((n) => n.orderId)).toEqual([orderId]);
  });

  it('does not announce an order a colleague started in time', async () => {
    const { a, b, poll, later, purchase } = await team();
    const orderId = await purchase('Fjord Health GmbH');
    await poll();
    await later(10);
    await a.core.markStatus({
      orderId,
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by Anna Virtanen.',
    });
    await a.core.deliverOutbox();
    await later(30);
    expect([...urgent(a), ...urgent(b)]).toEqual([]);
  });

  it('a snooze puts it off on that laptop only, until the snooze ends', async () => {
    const { a, b, clock, poll, later, purchase } = await team();
    const orderId = await purchase('Lumen Legal Oy');
    await poll();
    a.core.snooze(orderId, new Date(clock.now + 60 * MINUTE).toISOString());
    expect(a.core.attention().snoozed).toEqual({});
    await later(31);
    expect(urgent(b).map((n) => n.orderId)).toEqual([orderId]);
    expect(urgent(a)).toEqual([]);
    expect(a.core.attention().snoozed).toEqual({
      [orderId]: new Date(clock.now + 29 * MINUTE).toISOString(),
    });
    await later(30);
    expect(urgent(a).map((n) => n.orderId)).toEqual([orderId]);
    // Snoozed again after it was told: told again when that snooze ends.
    a.core.snooze(orderId, new Date(clock.now + 60 * MINUTE).toISOString());
    await later(61);
    expect(urgent(a).map((n) => n.orderId)).toEqual([orderId, orderId]);
    expect(urgent(b)).toHaveLength(1);
  });

  it('waits while notifications are paused, and tells once they resume', async () => {
    const { a, b, later, purchase, poll } = await team();
    a.settings.pausedUntil = new Date(Date.now() + 10 * 24 * 60 * MINUTE).toISOString();
    await purchase('Saga Retail B.V.');
    await poll();
    await later(40);
    expect(urgent(a)).toEqual([]);
    expect(urgent(b)).toHaveLength(1);
    a.settings.pausedUntil = null;
    await later(1);
    expect(urgent(a)).toHaveLength(1);
  });
});
