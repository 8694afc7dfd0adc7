import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../../test/support/core';
import { SellerApiError } from './api/errors';
import { nextPollDelayMs, Poller } from './poller';

const http = (status: number, operation = 'listEvents', retryAfterSeconds?: number) =>
  new SellerApiError({ kind: 'http', operation, status, retryAfterSeconds }, `HTTP ${status}`);

/** A seeded generator (mulberry32), so the spread below is the same at every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A poller whose marketplace refuses the secret while `refusing()` (minutes on a clock of its own,
 * each `minute()` one interval): when it polled, in minutes.
 */
function refusedOnAClock(refusing: () => boolean, credentialsChanged: () => Promise<boolean>) {
  const polledAt: number[] = [];
  const clock = { ms: 0 };
  const timers = new ManualTimers();
  const p = new Poller({
    poll: async () => {
      polledAt.push(clock.ms / 60_000);
      if (refusing()) throw http(401, 'createToken');
    },
    intervalMs: () => 60_000,
    timers,
    random: () => 0.5,
    now: () => clock.ms,
    credentialsChanged,
  });
  const minutes = async (n: number) => {
    for (let minute = 0; minute < n; minute++) {
      clock.ms += 60_000;
      timers.fireAll();
      await new Promise((resolve) => setTimeout(resolve, 0));
      await p.idle();
    }
  };
  return { p, polledAt, minutes };
}

describe('next poll delay', () => {
  it('is the interval after a success, ±10% at random', () => {
    expect(nextPollDelayMs(60_000, 0, undefined, () => 0.5)).toBe(60_000);
    expect(nextPollDelayMs(60_000, 0, undefined, () => 0)).toBe(54_000);
    expect(nextPollDelayMs(60_000, 0, undefined, () => 0.99999999)).toBe(66_000);
  });

  it('doubles from 15 s after failures up to the interval, anywhere from half to one and a half times it', () => {
    const mid = [1, 2, 3, 4, 5, 9].map((n) => nextPollDelayMs(60_000, n, http(503), () => 0.5));
    expect(mid).toEqual([15_000, 30_000, 60_000, 60_000, 60_000, 60_000]);
    expect(nextPollDelayMs(60_000, 1, http(503), () => 0)).toBe(7_500);
    expect(nextPollDelayMs(60_000, 5, http(503), () => 0)).toBe(30_000);
    expect(nextPollDelayMs(60_000, 5, http(503), () => 0.99999999)).toBe(90_000);
    expect(nextPollDelayMs(5 * 60_000, 6, http(503), () => 0.5)).toBe(5 * 60_000);
  });

  it("is never shorter than the server's Retry-After, nor longer than 15 minutes", () => {
    expect(nextPollDelayMs(60_000, 1, http(429, 'listEvents', 300), () => 0.5)).toBe(300_000);
    expect(nextPollDelayMs(60_000, 1, http(429, 'listEvents', 86_400), () => 0.5)).toBe(900_000);
  });

  it('brings 20 laptops back from a 5-minute outage spread over more than 30 s, each within 2 intervals', () => {
    const interval = 60_000;
    const outageEnd = 5 * 60_000;
    const random = seeded(20);
    const returns = Array.from({ length: 20 }, (_, laptop) => {
      // Polling on the interval since it started, a few seconds apart; then failing until the end.
      let at = laptop * 500;
      while (at < 30_000) at += nextPollDelayMs(interval, 0, undefined, random);
      for (let failures = 1; at < outageEnd; failures++)
        at += nextPollDelayMs(interval, failures, http(503), random);
      return at - outageEnd;
    });
    expect(Math.max(...returns)).toBeLessThanOrEqual(2 * interval);
    const firstMinute = returns.filter((ms) => ms < interval);
    expect(Math.max(...firstMinute) - Math.min(...firstMinute)).toBeGreaterThanOrEqual(30_000);
  });
});

describe('poller', () => {
  function poller(poll: () => Promise<void>) {
    const timers = new ManualTimers();
    const states: string[] = [];
    const p = new Poller({
      poll,
      intervalMs: () => 60_000,
      timers,
      random: () => 0.5,
      onState: (s) => states.push(s),
    });
    return { p, timers, states };
  }

  it('polls on start, then on the interval', async () => {
    let polls = 0;
    const { p, timers } = poller(async () => {
      polls += 1;
    });
    await p.start();
    expect(polls).toBe(1);
    expect(timers.delays).toEqual([60_000]);
    timers.fireAll();
    await p.pollNow();
    expect(polls).toBeGreaterThanOrEqual(2);
  });

  it('follows a running poll with exactly one more when asked meanwhile', async () => {
    let polls = 0;
    let release: () => void = () => undefined;
    const { p } = poller(
      () =>
        new Promise<void>((resolve) => {
          polls += 1;
          release = resolve;
        }),
    );
    p.start();
    const asks = [p.pollNow(), p.pollNow(), p.pollNow()];
    release();
    await new Promise((r) => setTimeout(r, 0));
    release();
    await Promise.all(asks);
    expect(polls).toBe(2);
  });

  it('stops for good on rejected credentials, until asked again', async () => {
    let fail = true;
    const { p, timers, states } = poller(async () => {
      if (fail) throw http(401, 'createToken');
    });
    p.start();
    await p.pollNow();
    expect(p.state).toBe('credentials-rejected');
    expect(timers.scheduled).toBe(0);
    fail = false;
    await p.pollNow();
    expect(p.state).toBe('idle');
    expect(states).toContain('credentials-rejected');
  });

  it('says when its next poll is due, and none when no poll comes by itself', async () => {
    const clock = { ms: 1_000_000 };
    let failure: Error | undefined;
    const p = new Poller({
      poll: async () => {
        if (failure) throw failure;
      },
      intervalMs: () => 60_000,
      timers: new ManualTimers(),
      random: () => 0.5,
      now: () => clock.ms,
      elapsed: () => clock.ms, // a clock no one sets back here
    });
    expect(p.nextPollAt).toBeUndefined();
    await p.start();
    expect(p.nextPollAt).toBe(clock.ms + 60_000);
    clock.ms += 10_000;
    failure = http(503);
    await p.pollNow();
    expect(p.nextPollAt).toBe(clock.ms + 15_000); // backing off
    failure = http(401, 'createToken');
    await p.pollNow();
    expect(p.nextPollAt).toBeUndefined(); // credentials rejected
    failure = undefined;
    await p.pollNow();
    expect(p.nextPollAt).toBe(clock.ms + 60_000);
    p.pause();
    expect(p.nextPollAt).toBeUndefined();
    await p.start();
    expect(p.nextPollAt).toBe(clock.ms + 60_000);
    p.stop();
    expect(p.nextPollAt).toBeUndefined();
  });

  it("says when its next poll is due by the timer's own time: the wall clock set back meanwhile moves it not", async () => {
    const clock = { ms: 1_000_000 };
    const elapsed = { ms: 0 };
    const p = new Poller({
      poll: async () => {},
      intervalMs: () => 60_000,
      timers: new ManualTimers(),
      random: () => 0.5,
      now: () => clock.ms,
      elapsed: () => elapsed.ms,
    });
    await p.start();
    clock.ms += 20_000;
    elapsed.ms += 20_000;
    clock.ms -= 2 * 3_600_000; // set back two hours: the timer still fires 40 s on
    expect(p.nextPollAt).toBe(clock.ms + 40_000);
  });

  it('while the credentials are rejected, asks at the interval whether they changed, and polls at once when they did', async () => {
    let fail = true;
    let polls = 0;
    let changed = false;
    let asked = 0;
    const timers = new ManualTimers();
    const p = new Poller({
      poll: async () => {
        polls += 1;
        if (fail) throw http(401, 'createToken');
      },
      intervalMs: () => 60_000,
      timers,
      random: () => 0.5,
      credentialsChanged: async () => {
        asked += 1;
        return changed;
      },
    });
    await p.start();
    expect(p.state).toBe('credentials-rejected');
    expect(timers.pendingDelays).toEqual([60_000]);
    for (let i = 0; i < 3; i++) {
      timers.fireAll();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    // Asked three times, polled not once more: the same secret is tried again only after 15 minutes.
    expect([asked, polls, p.state]).toEqual([3, 1, 'credentials-rejected']);
    expect(timers.pendingDelays).toEqual([60_000]);
    fail = false;
    changed = true;
    timers.fireAll();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await p.idle();
    expect([polls, p.state]).toEqual([2, 'idle']);
    p.stop();
    expect(timers.scheduled).toBe(0);
  });

  it('while the credentials are rejected and unchanged, tries the same secret again after 15 minutes, doubling to an hour (a client enabled again, a gateway that refused by mistake)', async () => {
    let fail = true;
    const { p, polledAt, minutes } = refusedOnAClock(
      () => fail,
      async () => false,
    );
    await p.start();
    await minutes(4 * 60);
    // Minutes 15, 45, 105, 165, 225: at most one call an hour once it has doubled (polls make 60).
    expect(polledAt).toEqual([0, 15, 45, 105, 165, 225]);
    expect(p.state).toBe('credentials-rejected');
    expect(p.nextPollAt).toBeUndefined();
    fail = false;
    await minutes(60);
    expect(p.state).toBe('idle');
    expect(polledAt.slice(6, 7)).toEqual([285]);
    p.stop();
  });

  it('a new secret refused in turn is tried again after 15 minutes, as the first was, not after the hour the old one had reached', async () => {
    let replaced = false;
    const { p, polledAt, minutes } = refusedOnAClock(
      () => true,
      async () => {
        const changed = replaced;
        replaced = false;
        return changed;
      },
    );
    await p.start();
    await minutes(4 * 60);
    // Someone enters another secret (minute 241), which the marketplace refuses too.
    replaced = true;
    await minutes(30);
    expect(polledAt.slice(5)).toEqual([225, 241, 256]);
    p.stop();
  });

  it('is not revived by a poll that ends after stop()', async () => {
    let release: () => void = () => undefined;
    const { p, timers } = poller(() => new Promise<void>((resolve) => (release = resolve)));
    p.start();
    const running = p.pollNow();
    p.stop();
    release();
    await running;
    expect(p.state).toBe('stopped');
    expect(timers.scheduled).toBe(0);
  });

  it('does nothing while paused, and resumes on start', async () => {
    let polls = 0;
    const { p } = poller(async () => {
      polls += 1;
    });
    p.pause();
    await p.pollNow();
    expect(polls).toBe(0);
    await p.start();
    expect(polls).toBe(1);
  });
});

it.each([
  ['3 hours', 3 * 60],
  ['40 minutes (less than its longest wait, an hour)', 40],
])(
  'tries a refused secret again at its first look when the clock went back %s past its 15 minutes, not as much later',
  async (_, minutesBack) => {
    const clock = { ms: 10 * 60 * 60_000 };
    const timers = new ManualTimers();
    let polls = 0;
    const p = new Poller({
      poll: async () => {
        polls += 1;
        throw http(401, 'createToken');
      },
      intervalMs: () => 60_000,
      timers,
      random: () => 0.5,
      now: () => clock.ms,
      credentialsChanged: async () => false,
    });
    await p.start();
    clock.ms -= minutesBack * 60_000; // set back after the refusal
    const lookedAt: number[] = [];
    for (let minute = 1; minute <= 20; minute++) {
      clock.ms += 60_000;
      timers.fireAll();
      await new Promise((resolve) => setTimeout(resolve, 0));
      await p.idle();
      if (polls > 1 + lookedAt.length) lookedAt.push(minute);
    }
    // At the first look, then its 30 minutes (refused again) from there.
    expect(lookedAt).toEqual([1]);
    p.stop();
  },
);
