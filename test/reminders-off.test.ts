// An idle poll with reminders and urgent announcements off (issue 27): their candidates, every
// waiting order never reminded (none is, with reminders off), are not read at all.
import { expect, it } from 'vitest';
import { AccountStore } from '../main/core/store/account-store';
import { openLaptop } from './support/core';
import { sharedMarketplace } from './support/shared-marketplace';

const market = sharedMarketplace({ seed: 11, orders: 40 });

it('reads no waiting order at an idle poll when reminders and urgent announcements are off', async () => {
  const laptop = await openLaptop(market.sim.url, undefined, {
    settings: { reminderAfterMinutes: 0, escalateAfterMinutes: 0 },
  });
  market.laptops.push(laptop);
  await laptop.core.start();
  await laptop.core.backlogRead();
  await laptop.core.checkNow();
  const proto = AccountStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown[]>;
  const read: Record<string, number> = {};
  const originals = Object.fromEntries(
    ['unremindedWaiting', 'unescalatedWaiting'].map((name) => [name, proto[name]]),
  );
  for (const [name, original] of Object.entries(originals)) {
    proto[name] = function (this: AccountStore, ...args: unknown[]) {
      const rows = (original as (...a: unknown[]) => unknown[]).apply(this, args);
      read[name] = (read[name] ?? 0) + rows.length;
      return rows;
    };
  }
  try {
    await laptop.core.checkNow();
    await laptop.core.checkNow();
  } finally {
    Object.assign(proto, originals);
  }
  expect(read).toEqual({});
});
