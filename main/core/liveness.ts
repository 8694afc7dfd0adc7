// Whether the marketplace is really being read: the one place that decides when silence stops
// meaning "nothing new". Pure, on a clock the caller moves: the core ticks it on a timer, records
// each successful poll, and does what it answers (warn in the tray, notify once, poll after a
// sleep it noticed). Time asleep does not count against the marketplace: a laptop that slept two
// hours is not "down" for two hours, it polls as it wakes and is judged from then.
import { notificationBody, notificationTitle } from '../../preload/marketplace-text';
import type { Connection, Health, NotificationRequest } from '../../preload/model';
import { lastReadText } from '../../preload/status-words';
import type { Advice } from './advice';

/** How often the core ticks the clock (and the tray's "Checked … ago" is renewed). */
export const LIVENESS_TICK_MS = 20_000;
/** A gap between ticks longer than this is the clock jumping (sleep), not time spent awake. */
export const CLOCK_JUMP_MS = 90_000;
/** Without a successful poll for this many intervals (awake), the tray warns. */
export const STALE_AFTER_INTERVALS = 3;
/** Warned for this long, one notification says so. */
export const NOTIFY_AFTER_STALE_MS = 15 * 60_000;

export interface LivenessState {
  /** The last successful poll (wall clock, ms); null before the first one of this account. */
  readonly lastSuccessMs: number | null;
  /** Awake time since the last success (or since the start): what staleness is judged by. */
  readonly awakeWithoutSuccessMs: number;
  readonly lastTickMs: number;
  /** The outage was told: 'raised' as a notification, 'silent' while notifications were off. */
  readonly told: 'raised' | 'silent' | null;
}

export function startLiveness(nowMs: number, lastSuccessMs: number | null): LivenessState {
  return { lastSuccessMs, awakeWithoutSuccessMs: 0, lastTickMs: nowMs, told: null };
}

/** Time passes: awake time is counted, a jump of the clock is not, and is reported as a wake. */
export function tick(state: LivenessState, nowMs: number): { state: LivenessState; woke: boolean } {
  const gap = nowMs - state.lastTickMs;
  // A clock set back counts as nothing; one far ahead is a sleep (or a suspended process).
  const woke = gap > CLOCK_JUMP_MS;
  const awake = woke || gap < 0 ? 0 : gap;
  return {
    state: { ...state, awakeWithoutSuccessMs: state.awakeWithoutSuccessMs + awake, lastTickMs: nowMs },
    woke,
  };
}

/** A poll read the marketplace. */
export function succeeded(state: LivenessState, nowMs: number): LivenessState {
  return { ...state, lastSuccessMs: nowMs, awakeWithoutSuccessMs: 0, lastTickMs: nowMs };
}

/**
 * healthy: read within the last 3 intervals awake; stale: not, and the tray warns; down: stale
 * for 15 minutes more, and the user is told in words.
 */
export function health(state: LivenessState, intervalMs: number): Health {
  const staleAfter = STALE_AFTER_INTERVALS * intervalMs;
  if (state.awakeWithoutSuccessMs <= staleAfter) return 'healthy';
  return state.awakeWithoutSuccessMs > staleAfter + NOTIFY_AFTER_STALE_MS ? 'down' : 'stale';
}

/** What to tell: the outage once when it turns "down", the recovery once after a told outage. */
export function toTell(
  state: LivenessState,
  now: Health,
  notify: boolean,
): { state: LivenessState; tell: 'down' | 'recovered' | null } {
  if (now === 'down' && state.told === null) {
    return { state: { ...state, told: notify ? 'raised' : 'silent' }, tell: notify ? 'down' : null };
  }
  if (now === 'healthy' && state.told !== null) {
    return { state: { ...state, told: null }, tell: state.told === 'raised' ? 'recovered' : null };
  }
  return { state, tell: null };
}

/** What to do about a connection that does not work, by how it fails (the poller's last word). */
function whatToDo(connection: Connection, advice: Advice): string {
  switch (connection) {
    // Still "ok" or "starting": the last poll neither worked nor failed, it is waiting for an answer.
    case 'ok':
    case 'starting':
      return `Its requests get no answer: check the network, VPN or proxy${advice.checkNow ? `, or ${advice.checkNow}` : ''}.`;
    case 'paused':
      return 'Polling is paused.';
    case 'offline':
      return 'This computer cannot reach it: check the network, VPN or proxy. Seller Tray keeps trying.';
    case 'server-problem':
      return `The marketplace answers with errors; Seller Tray keeps trying. If it lasts, ${advice.diagnose}.`;
    case 'credentials-rejected':
      return `The marketplace refuses the client secret (revoked or replaced?): ${advice.enterSecret}.`;
    case 'failing':
      return `Its answers cannot be used: ${advice.diagnose} and send the result to the marketplace.`;
  }
}

/**
 * The notification for an outage or a recovery, in words with what to do; `account`: its label,
 * while several accounts are served (each account's liveness is its own).
 */
export function livenessNotification(
  tell: 'down' | 'recovered',
  state: LivenessState,
  nowMs: number,
  connection: Connection,
  advice: Advice,
  account?: string,
): NotificationRequest {
  const marketplace = account ?? 'the marketplace';
  if (tell === 'recovered') {
    return {
      kind: 'connection',
      title: notificationTitle(`Seller Tray reads ${marketplace} again`),
      body: notificationBody('Orders that came in meanwhile are in the inbox.'),
    };
  }
  // As the header says it (whatToDo says whether Seller Tray keeps trying, as the banner does).
  const lastSuccessfulPoll =
    state.lastSuccessMs === null ? null : new Date(state.lastSuccessMs).toISOString();
  const read = lastReadText({ connection, health: 'down', lastSuccessfulPoll }, nowMs, true);
  const waiting = lastSuccessfulPoll === null ? '' : ' New orders may be waiting.';
  return {
    kind: 'connection',
    title: notificationTitle(`Seller Tray cannot read ${marketplace}`),
    body: notificationBody(`${read}.${waiting} ${whatToDo(connection, advice)}`),
  };
}
