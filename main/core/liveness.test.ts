// The liveness decision on a clock the test moves: healthy, stale after 3 intervals awake without
// a successful poll, down 15 minutes later (told once), recovery told once; a sleep is not an outage.
import { describe, expect, it } from 'vitest';
import { lastReadText } from '../../preload/status-words';
import { adviceFor } from './advice';
import {
  CLOCK_JUMP_MS,
  health,
  LIVENESS_TICK_MS,
  type LivenessState,
  livenessNotification,
  NOTIFY_AFTER_STALE_MS,
  startLiveness,
  succeeded,
  tick,
  toTell,
} from './liveness';

const MINUTE = 60_000;
/** As the app words it (advice.test.ts has the terminal's). */
const APP = adviceFor('app');
const INTERVAL = MINUTE;

/** The clock moved on `ms` in ticks, as the core's timer does; what was told on the way. */
function awake(state: LivenessState, ms: number, notify = true) {
  let at = state.lastTickMs;
  const told: string[] = [];
  let current = state;
  for (let passed = 0; passed < ms; passed += LIVENESS_TICK_MS) {
    at += LIVENESS_TICK_MS;
    current = tick(current, at).state;
    const decided = toTell(current, health(current, INTERVAL), notify);
    current = decided.state;
    if (decided.tell) told.push(decided.tell);
  }
  return { state: current, told, at };
}

describe('liveness', () => {
  it('is healthy within 3 intervals of a success, stale after, down 15 minutes later', () => {
    const start = startLiveness(0, null);
    expect(health(awake(start, 3 * MINUTE).state, INTERVAL)).toBe('healthy');
    expect(health(awake(start, 3 * MINUTE + LIVENESS_TICK_MS).state, INTERVAL)).toBe('stale');
    const { state } = awake(start, 3 * MINUTE + NOTIFY_AFTER_STALE_MS);
    expect(health(state, INTERVAL)).toBe('stale');
    expect(health(awake(state, LIVENESS_TICK_MS).state, INTERVAL)).toBe('down');
    // A longer interval waits longer: 3 of them.
    expect(health(awake(start, 10 * MINUTE).state, 5 * MINUTE)).toBe('healthy');
  });

  it('tells the outage once, and the recovery once', () => {
    const { state, told, at } = awake(startLiveness(0, null), 40 * MINUTE);
    expect(told).toEqual(['down']);
    const back = succeeded(state, at);
    expect(health(back, INTERVAL)).toBe('healthy');
    const after = toTell(back, 'healthy', true);
    expect(after.tell).toBe('recovered');
    expect(toTell(after.state, 'healthy', true).tell).toBeNull();
    // A second outage is told again.
    expect(awake(after.state, 40 * MINUTE).told).toEqual(['down']);
  });

  it('with notifications off, tells nothing, then not the recovery either', () => {
    const { state, told, at } = awake(startLiveness(0, null), 40 * MINUTE, false);
    expect(told).toEqual([]);
    expect(state.told).toBe('silent');
    expect(toTell(succeeded(state, at), 'healthy', true).tell).toBeNull();
  });

  it('does not count a sleep (the clock jumping) as time without the marketplace, and says it woke', () => {
    const start = startLiveness(0, 0);
    const jumped = tick(start, 2 * 60 * MINUTE);
    expect(jumped.woke).toBe(true);
    expect(health(jumped.state, INTERVAL)).toBe('healthy');
    // Awake after it, the outage counts from the wake.
    expect(health(awake(jumped.state, 3 * MINUTE + LIVENESS_TICK_MS).state, INTERVAL)).toBe('stale');
    // Ticks a little late are time awake, not a sleep; a clock set back counts nothing.
    expect(tick(start, CLOCK_JUMP_MS).woke).toBe(false);
    expect(tick(start, -5 * MINUTE).state.awakeWithoutSuccessMs).toBe(0);
  });

  it('says in words how long, and what to do, by how the polls fail', () => {
    const state = { ...startLiveness(0, 0), awakeWithoutSuccessMs: 20 * MINUTE };
    const down = (connection: Parameters<typeof livenessNotification>[3]) =>
      livenessNotification('down', state, 20 * MINUTE, connection, APP);
    expect(down('offline')).toEqual({
      kind: 'connection',
      title: 'Seller Tray cannot read the marketplace',
      body: 'Not read for 20 min. New orders may be waiting. This computer cannot reach it: check the network, VPN or proxy. Seller Tray keeps trying.',
    });
    // The polls tried and read nothing: never "checked". Said as the header says it, from one place.
    for (const connection of [
      'offline',
      'server-problem',
      'failing',
      'credentials-rejected',
      'ok',
    ] as const) {
      const header = lastReadText(
        { connection, health: 'down', lastSuccessfulPoll: new Date(0).toISOString() },
        20 * MINUTE,
        true,
      );
      expect(down(connection).body.startsWith(`${header}. `)).toBe(true);
      expect(down(connection).body).not.toMatch(/checked/i);
    }
    expect(down('failing').body).toMatch(/^Not read for 20 min, trying again\. /);
    expect(down('credentials-rejected').body).toMatch(
      /refuses the client secret.*enter the current secret with Replace secret in Settings → Accounts/,
    );
    expect(down('server-problem').body).toMatch(/answers with errors/);
    expect(down('failing').body).toMatch(/Diagnose connection/);
    // Still waiting for an answer: the poll neither worked nor failed.
    expect(down('ok').body).toMatch(/get no answer/);
    expect(livenessNotification('down', startLiveness(0, null), 20 * MINUTE, 'offline', APP).body).toMatch(
      /^Not read yet\. This computer cannot reach it/,
    );
    expect(livenessNotification('recovered', state, 20 * MINUTE, 'ok', APP).title).toBe(
      'Seller Tray reads the marketplace again',
    );
    // Serving several accounts, each account's outage names it.
    expect(livenessNotification('down', state, 20 * MINUTE, 'offline', APP, 'US').title).toBe(
      'Seller Tray cannot read US',
    );
    expect(livenessNotification('recovered', state, 20 * MINUTE, 'ok', APP, 'US').title).toBe(
      'Seller Tray reads US again',
    );
  });
});
