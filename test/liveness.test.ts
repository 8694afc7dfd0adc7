// Liveness as the app lives it: a laptop's core against the simulator over loopback HTTP, on a
// clock the test moves, the liveness timer fired by hand. The marketplace answers errors, stalls,
// revokes the client; the clock jumps (a sleep). Each time the status says when the marketplace
// was last read and whether that is too long ago, one notification tells the outage in words,
// and one the recovery.
import { describe, expect, it } from 'vitest';
import { accountFolder, accountRef } from '../main/core/account/account-ref';
import { formatDiagnosis } from '../main/core/diagnosis';
import { LIVENESS_TICK_MS } from '../main/core/liveness';
import { userDataDir } from '../main/core/paths';
import { AccountStore } from '../main/core/store/account-store';
import { lastReadText } from '../preload/status-words';
import { openLaptop } from './support/core';
import { runTs } from './support/processes';
import { admin } from './support/raw-api';
import { sharedMarketplace } from './support/shared-marketplace';

const MINUTE = 60_000;

const market = sharedMarketplace({ seed: 26, orders: 10 });
const { laptops } = market;

/** A started laptop whose first poll worked, on a clock the test moves. */
async function liveLaptop(secret: () => string = () => 'demo-secret') {
  const clock = { now: Date.parse('2026-11-26T09:00:00Z') };
  const laptop = await openLaptop(market.sim.url, undefined, { now: () => clock.now, secret });
  laptops.push(laptop);
  await laptop.core.start();
  expect(laptop.core.status()).toMatchObject({ connection: 'ok', health: 'healthy' });
  /** Time passes awake, the liveness timer ticking; a poll each interval, as the poller would make. */
  const pass = async (ms: number, poll = true) => {
    for (let passed = 0; passed < ms; passed += LIVENESS_TICK_MS) {
      clock.now += LIVENESS_TICK_MS;
      laptop.timers.fire(LIVENESS_TICK_MS);
      if (poll && (passed + LIVENESS_TICK_MS) % MINUTE === 0) await laptop.core.checkNow();
    }
  };
  const told = () => laptop.notifications().filter((n) => n.kind === 'connection');
  return { ...laptop, clock, pass, told };
}

const faults = (patch: Record<string, unknown>) => admin(market.sim.url, 'PATCH', 'faults', patch);
const calls = async (operation: string) =>
  ((await admin(market.sim.url, 'GET', 'state')).json.requests?.[operation] as number | undefined) ?? 0;

describe('liveness over the simulator', () => {
  it('a marketplace answering errors: stale after 3 intervals, told once after 15 minutes more, recovery told once', async () => {
    const a = await liveLaptop();
    const lastRead = a.core.status().lastSuccessfulPoll;
    await faults({ errorRate: 1 });
    await a.pass(3 * MINUTE);
    expect(a.core.status().health).toBe('healthy');
    await a.pass(LIVENESS_TICK_MS);
    expect(a.core.status()).toMatchObject({
      health: 'stale',
      connection: 'server-problem',
      lastSuccessfulPoll: lastRead,
    });
    expect(a.events.some((e) => e.type === 'state-changed' && e.status.health === 'stale')).toBe(true);
    expect(a.told()).toEqual([]);
    await a.pass(15 * MINUTE);
    expect(a.core.status().health).toBe('down');
    expect(a.told()).toEqual([
      {
        kind: 'connection',
        title: 'Seller Tray cannot read the marketplace',
        body: expect.stringMatching(
          /^Not read for 18 min\. New orders may be waiting\. .*answers with errors/,
        ),
      },
    ]);
    // What the header says of the same state, chosen in one place.
    expect(a.told()[0]?.body.startsWith(`${lastReadText(a.core.status(), a.clock.now, true)}. `)).toBe(true);
    await a.pass(30 * MINUTE);
    expect(a.told()).toHaveLength(1);

    await faults({ errorRate: 0 });
    await a.core.checkNow();
    expect(a.core.status()).toMatchObject({ health: 'healthy', connection: 'ok' });
    expect(a.core.status().lastSuccessfulPoll).toBe(new Date(a.clock.now).toISOString());
    expect(a.told().map((n) => n.title)).toEqual([
      'Seller Tray cannot read the marketplace',
      'Seller Tray reads the marketplace again',
    ]);
    await a.pass(5 * MINUTE);
    expect(a.told()).toHaveLength(2);
  });

  it('a stalled connection (a poll that gets no answer) warns while it hangs, and says so', async () => {
    const a = await liveLaptop();
    await faults({ script: [{ operation: 'listEvents', action: 'delay', delayMs: 4_000, times: 1 }] });
    const hanging = a.core.checkNow();
    // Nothing fails: the poll waits. Time goes on without a successful poll.
    await a.pass(19 * MINUTE, false);
    expect(a.core.status()).toMatchObject({ health: 'down', connection: 'ok' });
    expect(a.told()[0]?.body).toMatch(/get no answer: check the network, VPN or proxy, or choose Check now/);
    await hanging;
    expect(a.core.status().health).toBe('healthy');
    expect(a.told().map((n) => n.title)).toEqual([
      'Seller Tray cannot read the marketplace',
      'Seller Tray reads the marketplace again',
    ]);
  });

  it('a revoked client: polling stops, and the notification says to enter the current secret', async () => {
    // Tokens that lapse within a second, and the client's secret revoked once the first poll worked:
    // the marketplace then refuses the token and every request for a new one.
    await faults({ tokenTtlSeconds: 1 });
    let secret = 'demo-secret';
    const a = await liveLaptop(() => secret);
    secret = 'revoked';
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await a.core.checkNow();
    expect(a.core.status().connection).toBe('credentials-rejected');
    const polled = await calls('listEvents');
    await a.pass(20 * MINUTE, false);
    expect(a.core.status().health).toBe('down');
    expect(a.told()).toHaveLength(1);
    expect(a.told()[0]?.body).toMatch(
      /refuses the client secret \(revoked or replaced\?\): enter the current secret with Replace secret in Settings → Accounts/,
    );
    // Told, not hammered: no poll was made meanwhile.
    expect(await calls('listEvents')).toBe(polled);
  });

  it('a sleep (the clock jumping) is no outage: it polls as it wakes, and the outage after it counts from the wake', async () => {
    const a = await liveLaptop();
    const before = await calls('listEvents');
    a.clock.now += 2 * 60 * MINUTE;
    a.timers.fire(LIVENESS_TICK_MS);
    await a.core.checkNow(); // joins the poll the wake started
    expect(await calls('listEvents')).toBeGreaterThan(before);
    expect(a.core.status()).toMatchObject({
      health: 'healthy',
      lastSuccessfulPoll: new Date(a.clock.now).toISOString(),
    });
    expect(a.told()).toEqual([]);

    // Asleep again, and the marketplace gone when it wakes: judged from the wake, not the last read.
    await faults({ errorRate: 1 });
    a.clock.now += 5 * 60 * MINUTE;
    a.timers.fire(LIVENESS_TICK_MS);
    await a.core.checkNow();
    expect(a.core.status().health).toBe('healthy');
    await a.pass(3 * MINUTE + LIVENESS_TICK_MS);
    expect(a.core.status().health).toBe('stale');
  });

  it('when the marketplace was last read survives a restart, and is read without opening the store for writing', async () => {
    const a = await liveLaptop();
    const lastRead = a.core.status().lastSuccessfulPoll;
    expect(lastRead).not.toBeNull();
    await a.core.close();
    expect(AccountStore.lastSuccessfulPollIn(a.dataDir)).toBe(lastRead);
    const again = await a.reopen();
    laptops.push(again);
    expect(again.core.status().lastSuccessfulPoll).toBe(lastRead);
  });
});

describe('seller-tray doctor', () => {
  it("says when this laptop last read the marketplace in the header's words, true during an outage too", () => {
    const at = '2026-11-27T12:00:00.000Z';
    const lastRead = '2026-11-27T09:00:00.000Z';
    const report = formatDiagnosis(
      {
        at,
        baseUrl: 'http://127.0.0.1:9/',
        clientId: 'demo-client',
        pageSize: 100,
        steps: [],
        lastSuccessfulPoll: lastRead,
      },
      '0.0.0',
    );
    // Only the last successful poll is known, not whether the polls fail now: no "Checked".
    expect(report).toContain(`This laptop: Last read 3 h ago (${lastRead}) by the app or seller-tray watch.`);
    // The header's words while the polls fail, before the outage is stale.
    expect(
      lastReadText(
        { connection: 'offline', health: 'healthy', lastSuccessfulPoll: lastRead },
        Date.parse(at),
        true,
      ),
    ).toBe('Last read 3 h ago');
  });

  it('says when this laptop last read the marketplace, from the store the app keeps', async () => {
    const doctor = (...args: string[]) =>
      runTs('main/cli/seller-tray.ts', ['doctor', ...args], {
        SELLER_API_BASE_URL: market.sim.url,
        SELLER_CLIENT_ID: 'demo-client',
        SELLER_CLIENT_SECRET: 'demo-secret',
      });
    const never = await doctor();
    expect(never.code).toBe(0);
    expect(never.stdout).toContain('This laptop: Seller Tray has not read this marketplace here yet');

    // The app's store for this account, where the CLI looks for it.
    const laptop = await openLaptop(
      market.sim.url,
      accountFolder(userDataDir(), accountRef({ baseUrl: market.sim.url, clientId: 'demo-client' }).id),
    );
    laptops.push(laptop);
    await laptop.core.start();
    const lastRead = laptop.core.status().lastSuccessfulPoll;
    // The app still running beside it: the store is only read.
    const run = await doctor();
    expect(run.stdout).toMatch(
      new RegExp(
        `^This laptop: Last read (just now|1 min ago) \\(${lastRead}\\) by the app or seller-tray watch\\.$`,
        'm',
      ),
    );
    expect(JSON.parse((await doctor('--json')).stdout).lastSuccessfulPoll).toBe(lastRead);
    expect(laptop.core.status().connection).toBe('ok');
  });
});
