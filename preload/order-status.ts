// An order's provisioning status, derived from its events, and the transitions a user may
// make without a second thought.

import { parseMark } from './marked-by';
import type { MarketplaceEvent, StatusCode } from './marketplace';
import { readPostReference } from './post-reference';
import { statusLabel } from './status-words';

/** The statuses a user can mark (the marketplace itself sets ProvisioningStarted). */
export const MARKABLE_STATUSES = [
  'ProvisioningInProgress',
  'ProvisioningCompleted',
  'ProvisioningFailed',
] as const;
export type MarkableStatus = (typeof MARKABLE_STATUSES)[number];

/** What the purchase event's type is called where people read it (notifications, the inbox). */
const PURCHASE_TYPE_LABELS: Readonly<Record<string, string>> = {
  ServicePurchased: 'Purchase',
  Trial: 'Trial',
  Evaluation: 'Evaluation',
  UpgradeToTrial: 'Upgrade to trial',
  UpgradeToPurchase: 'Upgrade to purchase',
};

/** A purchase type in words; one this app does not know yet is split into words as it came. */
export function purchaseTypeLabel(code: string): string {
  const known = PURCHASE_TYPE_LABELS[code];
  if (known) return known;
  const words = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Whether the purchase is the plain kind: other kinds (a trial, an upgrade) are named where shown. */
export function isPlainPurchase(code: string | undefined): boolean {
  return code === undefined || code === 'ServicePurchased';
}

const USUAL_TRANSITIONS: Readonly<Record<StatusCode, readonly StatusCode[]>> = {
  ProvisioningStarted: ['ProvisioningInProgress'],
  ProvisioningInProgress: ['ProvisioningCompleted', 'ProvisioningFailed'],
  ProvisioningFailed: ['ProvisioningInProgress'],
  ProvisioningCompleted: [],
};

/**
 * Started → InProgress → Completed or Failed, and Failed → InProgress (a retry). Anything
 * else (skipping a step, reopening a completed order, an unknown status) is unusual: it
 * needs the user's explicit override.
 */
export function isUsualTransition(from: string | undefined, to: StatusCode): boolean {
  if (from === undefined) return false;
  return (USUAL_TRANSITIONS[from as StatusCode] ?? []).includes(to);
}

/** An unusual mark: to what, from what, and who marked the status it is in (when the history says). */
export interface UnusualMark {
  to: MarkableStatus;
  from: string | undefined;
  by: string | undefined;
}

/** The unusual mark `to` an order in `from`: who marked `from` is named when the history (in causal order) ends with it. */
export function unusualMark(
  to: MarkableStatus,
  from: string | undefined,
  history: readonly MarketplaceEvent[],
): UnusualMark {
  const last = history.at(-1);
  return { to, from, by: last?.statusCode === from ? parseMark(last?.description)?.actor : undefined };
}

/** " (marked by Anna Virtanen)", or nothing when who marked the order's status is not known. */
const markedBy = ({ by }: UnusualMark): string => (by ? ` (marked by ${by})` : '');

/**
 * Why a person's mark needs a second thought, in words: "Marking an order In progress while it is
 * Completed (marked by Anna Virtanen) is unusual". Each caller says how to confirm.
 */
export function unusualMarkText(mark: UnusualMark): string {
  return `Marking an order ${statusLabel(mark.to)} while it is ${statusLabel(mark.from)}${markedBy(mark)} is unusual`;
}

/**
 * An automation's reported status left unmarked, in words: "provision reported Failed for an order
 * already Completed (marked by Anna Virtanen)". It cannot confirm: its caller says who can.
 */
export function unusualReportText(automation: string, mark: UnusualMark): string {
  return `${automation} reported ${statusLabel(mark.to)} for an order already ${statusLabel(mark.from)}${markedBy(mark)}`;
}

/** How far along a status is: a move to a lower rank is a move back (Failed to In progress is a retry). */
const RANK: Readonly<Record<string, number>> = {
  ProvisioningStarted: 0,
  ProvisioningInProgress: 1,
  ProvisioningCompleted: 2,
  ProvisioningFailed: 2,
};

/**
 * An order's events in causal order, from its events in listing order. The purchase comes first
 * whatever the clocks say: every other status was posted in answer to it (by the seller, from any
 * laptop), and the marketplace's clock that stamps purchases need not agree with the one that
 * stamps posts. Among purchases, and among the other statuses, an event's own time orders it;
 * ties keep the listing's order, and an event without a readable time stays where the listing put
 * it (right after the one before it). A status Seller Tray posted names the step it was marked
 * after (preload/post-reference.ts): it counts after that status whatever the two stamps say (the
 * servers that stamp posts need not agree either).
 */
export function causalOrder<T extends MarketplaceEvent>(events: readonly T[]): T[] {
  const latest = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const keyed = events.map((event, index) => {
    const phase = isNewPurchase(event) ? 0 : 1;
    const own = event.eventTime === undefined ? Number.NaN : Date.parse(event.eventTime);
    if (Number.isFinite(own)) latest[phase] = own;
    // hops: how many steps after a status its time ties with (lifted to that status's time) it is.
    return {
      event,
      phase,
      ms: latest[phase] ?? Number.NEGATIVE_INFINITY,
      hops: 0,
      index,
      reference: readPostReference(event),
    };
  });
  type Keyed = (typeof keyed)[number];
  // A step is named by its event's id, or by the request id of the post that made it.
  const steps = new Map<string, Keyed>();
  for (const k of keyed) {
    if (k.reference) steps.set(k.reference.requestId, k);
    if (k.event.eventId !== undefined) steps.set(k.event.eventId, k);
  }
  /** The status a status was marked after (only a status lifts one: the purchase comes first anyway). */
  const stepBefore = (k: Keyed): Keyed | undefined => {
    const before = k.reference?.after === undefined ? undefined : steps.get(k.reference.after);
    return before?.phase === k.phase && before !== k ? before : undefined;
  };
  // Each status at least as late as the one it follows, walked along the chain of names without
  // recursion (a history may be long), once each; a loop of names lifts nothing.
  const settled = new Set<Keyed>();
  for (const start of keyed) {
    const chain: Keyed[] = [];
    const onChain = new Set<Keyed>();
    let k: Keyed | undefined = start;
    for (; k && !settled.has(k) && !onChain.has(k); k = stepBefore(k)) {
      chain.push(k);
      onChain.add(k);
    }
    // The chain ends in a loop: its steps keep their own times.
    if (k && onChain.has(k)) for (const looped of chain.splice(chain.indexOf(k))) settled.add(looped);
    for (const step of chain.reverse()) {
      const before = stepBefore(step);
      if (before && before.ms >= step.ms) {
        step.ms = before.ms;
        step.hops = before.hops + 1;
      }
      settled.add(step);
    }
  }
  keyed.sort(
    (a, b) => a.phase - b.phase || Math.sign(a.ms - b.ms || 0) || a.hops - b.hops || a.index - b.index,
  );
  return keyed.map((k) => k.event);
}

/** A status that went back (Completed, then In progress): the event that moved it and the status it left. */
export interface StatusReversal<T extends MarketplaceEvent = MarketplaceEvent> {
  event: T;
  from: string;
}

/**
 * Whether the order's current status came from a move back (another laptop marked In progress an
 * order that was Completed): then the order says so rather than go back silently. `history` is in
 * causal order.
 */
export function currentReversal<T extends MarketplaceEvent>(
  history: readonly T[],
): StatusReversal<T> | undefined {
  // The event that set the current status: the first of the run of it at the end.
  let at = history.length - 1;
  const current = history[at]?.statusCode;
  while (at > 0 && history[at - 1]?.statusCode === current) at--;
  const event = history[at];
  const before = history[at - 1];
  if (!event || !before) return undefined;
  const from = RANK[before.statusCode];
  const to = RANK[event.statusCode];
  if (from === undefined || to === undefined || to >= from) return undefined;
  return isUsualTransition(before.statusCode, event.statusCode as StatusCode)
    ? undefined
    : { event, from: before.statusCode };
}

/** A move back in words: "Marked In progress by Anna Virtanen after it was Completed". */
export function reversalText({ event, from }: StatusReversal): string {
  const actor = parseMark(event.description)?.actor;
  return `Marked ${statusLabel(event.statusCode)}${actor ? ` by ${actor}` : ''} after it was ${statusLabel(from)}`;
}

/** A new purchase nobody has started to provision yet. */
export function isWaitingForAction(status: string | undefined): boolean {
  return status === 'ProvisioningStarted';
}

/**
 * The event a new order arrives with: spec §6 names ServicePurchased with ProvisioningStarted,
 * but any purchase-like type (Trial, Evaluation, UpgradeToTrial, UpgradeToPurchase, one the spec
 * does not list yet) with that status is a new order to provision too. The wire model has
 * already matched the status's case.
 */
export function isNewPurchase(event: MarketplaceEvent): boolean {
  return event.statusCode === 'ProvisioningStarted';
}
