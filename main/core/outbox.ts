// The status outbox: a status a user marks is on disk before any network call, and is
// posted until the server confirms it, always under the same X-Request-ID. A post whose answer
// was lost is read back before it is posted again (status-post.ts), since the server may not
// deduplicate request ids; the item remembers across restarts that it must be. A status may first be held for a grace period
// (`notBefore`, on disk with it, so a restart keeps holding it): until then it can be undone,
// which removes it as if never marked.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isHeld } from '../../preload/hold';
import type {
  Explained,
  SettledMark,
  OutboxItem as SharedOutboxItem,
  UndoOutcome,
} from '../../preload/model';
import { MARKABLE_STATUSES } from '../../preload/order-status';
import type { Advice } from './advice';
import { SellerApiError } from './api/errors';
import { explainFailure } from './failure-words';
import { failureFields, type Log, type LogLevel, silentLog } from './log';
import type { Same } from './same-type';
import { type PostingPorts, postOnce } from './status-post';
import type { StatusEnding } from './status-records';

export const OutboxItem = z.object({
  /** Also the X-Request-ID of every post of this item. */
  requestId: z.guid(),
  orderId: z.string().min(1),
  statusCode: z.enum(MARKABLE_STATUSES),
  description: z.string().min(1),
  detailedDescription: z.string().optional(),
  createdAt: z.string(),
  state: z.enum(['pending', 'sent', 'failed']),
  attempts: z.int().min(0),
  /** Why the last post failed: words for people and the technical detail (failure-words.ts). */
  problem: z.object({ message: z.string(), details: z.array(z.string()) }).optional(),
  /** The stored event, once the server confirmed it. */
  eventId: z.string().optional(),
  /** When the marketplace accepted the post. */
  sentAt: z.string().optional(),
  /** The HTTP status of the marketplace's answer to the last post (2xx took it, 4xx refused it). */
  httpStatus: z.int().optional(),
  /** Held until this moment (ISO time), so it can be undone; absent: sent at once. */
  notBefore: z.string().optional(),
  /** A post may have reached the marketplace unconfirmed: read back before posting again. */
  mayBePosted: z.boolean().optional(),
  /** Sent: how many successful polls this laptop had made then. */
  sentAtPoll: z.int().min(0).optional(),
  /** When a listing read by a poll showed it: confirmed. */
  readBackAt: z.string().optional(),
  /** The step of the order it was marked after, which its post names. */
  after: z.string().optional(),
});
export type OutboxItem = SharedOutboxItem;
// Fails to compile when the stored form reads other than preload/model.ts declares.
void (true satisfies Same<z.output<typeof OutboxItem>, SharedOutboxItem>);

/**
 * An item as earlier versions stored it too: before failures were explained, a failed post left
 * only its technical line, `lastError`.
 */
export const StoredOutboxItem = OutboxItem.extend({ lastError: z.string().optional() });
type StoredOutboxItem = z.output<typeof StoredOutboxItem>;

/** An item read back from the store (JSON): one an earlier version stored gets its failure explained. */
export function readOutboxItem(json: string): OutboxItem {
  const { lastError, ...item } = JSON.parse(json) as StoredOutboxItem;
  if (lastError === undefined || item.problem !== undefined) return item;
  return { ...item, problem: explainEarlierFailure(item.state, lastError) };
}

/** Only the technical line is known: the words say what to do from where the item is. */
function explainEarlierFailure(state: OutboxItem['state'], lastError: string): Explained {
  return {
    message:
      state === 'failed'
        ? "The marketplace did not take this status. Send it again; if it fails again, copy the details for the marketplace's support."
        : 'The last try to send this status did not work. Seller Tray tries again by itself.',
    details: [`Message: ${lastError}`],
  };
}

export type NewOutboxItem = Pick<
  OutboxItem,
  'orderId' | 'statusCode' | 'description' | 'detailedDescription'
>;

/** A mark waiting to be sent: its request id and its order. */
export interface PendingMark {
  requestId: string;
  orderId: string;
}

/** Where the items live (the account store): each change is durable when the call returns. */
export interface OutboxStore {
  outboxItems(orderId?: string): OutboxItem[];
  /** The marks waiting to be sent (state pending), oldest first. */
  pendingOutboxMarks(): PendingMark[];
  /** The same marks whole. */
  pendingOutboxItems(): OutboxItem[];
  outboxItem(requestId: string): OutboxItem | undefined;
  putOutboxItem(item: OutboxItem): void;
  /** Runs `work` in one write transaction (or the one under way): its reads see no other process's writes before its own. */
  atomically<T>(work: () => T): T;
  /** Takes an item out before it was confirmed; its record (proof of delivery) says how and when. */
  deleteOutboxItem(requestId: string, ended: StatusEnding): void;
  pendingOutboxCount(): number;
  /** How many polls read the marketplace on this laptop so far: a sent status is unconfirmed a few polls on. */
  pollsSucceeded(): number;
  /** What the order's status comes from now, by the id a mark made now names it with (its `after`). */
  latestStep(orderId: string): string | undefined;
}

export interface OutboxPorts {
  store: OutboxStore;
  /** Posts, and reads back the marketplace's recent events (status-post.ts). */
  posting: PostingPorts;
  now(): number;
  /** Told of each delivery: sent, failed, or kept for another try. */
  log?: Log;
  /** A failed delivery's advice, worded for the surface its session serves. */
  advice: Advice;
}

export interface DeliveryReport {
  sent: OutboxItem[];
  failed: OutboxItem[];
  /** Items left pending by a failure that may pass (network, 5xx, 429). */
  deferred: number;
  /** The orders of items this delivery first left "not sent yet" (a problem where none was): their rows say so. */
  newlyWaiting: string[];
  /** Items still in their grace period (and those of their orders marked after them). */
  held: number;
  /** The first failure that may pass, to schedule the next try by. */
  transientError?: SellerApiError;
  /**
   * When the earliest hold this delivery passed over ends (ms since the epoch). Its hold may have
   * ended since (a timer fires a moment before the clock says it is due; a delivery takes time):
   * no longer held, nextRelease leaves it out, and it would wait for the next poll.
   */
  passedOverRelease?: number;
}

/** How a delivery is logged, by the item's state after it. */
const DELIVERY_OUTCOMES: Record<OutboxItem['state'], [LogLevel, string]> = {
  sent: ['info', 'sent'],
  failed: ['error', 'failed'],
  pending: ['warn', 'will-retry'],
};

/**
 * Marks of different orders failing in a row for a reason that may pass (no answer, 5xx, 429)
 * that end a delivery: one order's trouble does not hold the others back, but a marketplace
 * taking no posts is not sent every pending mark (each with its retries) at every poll.
 */
export const AWAY_AFTER_FAILURES = 2;

/** How long a mark that left the outbox (undone, confirmed) is still told of by its order's view. */
export const SETTLED_KEPT_MS = 10 * 60_000;

export class Outbox {
  private delivering: Promise<DeliveryReport> | undefined;
  /**
   * The order whose failure ended the last delivery (AWAY_AFTER_FAILURES): the next starts at the
   * order after it, so the same orders in trouble do not end every delivery before later marks.
   */
  private stoppedAt: string | undefined;
  /** Marks that left the outbox lately, so views say what became of them (memory only: minutes matter). */
  private readonly settled = new Map<string, SettledMark>();

  constructor(private readonly ports: OutboxPorts) {}

  /** Every mark: the outbox may hold thousands the marketplace refused, so not for what runs often. */
  all(): OutboxItem[] {
    return this.ports.store.outboxItems();
  }

  item(requestId: string): OutboxItem | undefined {
    return this.ports.store.outboxItem(requestId);
  }

  forOrder(orderId: string): OutboxItem[] {
    return this.ports.store.outboxItems(orderId);
  }

  get pendingCount(): number {
    return this.ports.store.pendingOutboxCount();
  }

  /**
   * Queues a status, held for `holdMs` first when more than 0; it is on disk when this returns. It
   * names the step its order is at (`after`): marked knowing that, it counts after it on every laptop.
   */
  enqueue(input: NewOutboxItem, holdMs = 0): OutboxItem {
    const now = this.ports.now();
    const after = this.ports.store.latestStep(input.orderId);
    const item: OutboxItem = OutboxItem.parse({
      ...input,
      ...(after === undefined ? {} : { after }),
      requestId: randomUUID(),
      createdAt: new Date(now).toISOString(),
      state: 'pending',
      attempts: 0,
      ...(holdMs > 0 ? { notBefore: new Date(now + holdMs).toISOString() } : {}),
    });
    this.ports.store.putOutboxItem(item);
    return item;
  }

  /**
   * Removes a status still held; one whose grace period has ended (or that a delivery took) is on
   * its way and stays. Read and removed in one write transaction: a delivery in another process
   * takes the mark wholly before or after.
   */
  undo(requestId: string): UndoOutcome {
    const undone = this.ports.store.atomically(() => {
      const item = this.ports.store.outboxItem(requestId);
      if (!item) return 'unknown';
      if (!isHeld(item, this.ports.now()) || item.attempts > 0) return 'already-sent';
      this.ports.store.deleteOutboxItem(requestId, {
        as: 'undone',
        at: new Date(this.ports.now()).toISOString(),
      });
      return item;
    });
    if (typeof undone === 'string') return undone;
    this.settle([undone], 'undone');
    return 'undone';
  }

  /** Items the store let go because the marketplace's history now lists them. */
  confirmed(items: readonly OutboxItem[]): void {
    this.settle(items, 'confirmed');
  }

  /** An order's marks that left the outbox within SETTLED_KEPT_MS, oldest first. */
  settledFor(orderId: string): SettledMark[] {
    const oldest = this.ports.now() - SETTLED_KEPT_MS;
    for (const [requestId, mark] of this.settled) {
      if (Date.parse(mark.settledAt) < oldest) this.settled.delete(requestId);
    }
    return [...this.settled.values()].filter((mark) => mark.orderId === orderId);
  }

  private settle(items: readonly OutboxItem[], outcome: SettledMark['outcome']): void {
    const settledAt = new Date(this.ports.now()).toISOString();
    for (const { requestId, orderId, statusCode, createdAt } of items) {
      this.settled.set(requestId, { requestId, orderId, statusCode, createdAt, outcome, settledAt });
    }
  }

  /** When the first held item's grace period ends (ms since the epoch), if one is held. */
  nextRelease(): number | undefined {
    const now = this.ports.now();
    const times = this.ports.store
      .pendingOutboxItems()
      .filter((item) => isHeld(item, now))
      .map((item) => Date.parse(item.notBefore ?? ''));
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Puts a failed item back in the queue (the user asked to try again). */
  retry(requestId: string): OutboxItem | undefined {
    const item = this.item(requestId);
    if (item?.state !== 'failed') return undefined;
    item.state = 'pending';
    item.problem = undefined;
    this.ports.store.putOutboxItem(item);
    return item;
  }

  /** Resolves when no delivery is running. */
  idle(): Promise<void> {
    // A failed delivery's error is for whoever started it.
    const settled = () => undefined;
    return this.delivering?.then(settled, settled) ?? Promise.resolve();
  }

  /**
   * Posts pending items, each order's oldest first, starting at the order after the one where the
   * last delivery stopped; one concurrent delivery at most.
   */
  deliver(): Promise<DeliveryReport> {
    this.delivering ??= this.deliverPending().finally(() => {
      this.delivering = undefined;
    });
    return this.delivering;
  }

  private async deliverPending(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: [], failed: [], deferred: 0, held: 0, newlyWaiting: [] };
    // An order whose earlier item could not be posted yet (or is held) keeps its later items
    // back, so statuses reach the marketplace in the order the user marked them.
    const blocked = new Set<string>();
    // Each item once, oldest first, those marked while this delivery runs too (a bulk step, a
    // second mark): they would otherwise wait for the next poll.
    const visited = new Set<string>();
    // The pending marks alone, read again when those read are done (a mark made meanwhile is
    // posted by this delivery too): the outbox may hold thousands the marketplace refused.
    let waiting: string[] = [];
    let failedInARow = 0;
    const stoppedAt = this.stoppedAt;
    this.stoppedAt = undefined;
    for (;;) {
      if (waiting.length === 0) {
        const marks = this.ports.store.pendingOutboxMarks().filter((mark) => !visited.has(mark.requestId));
        waiting = (visited.size === 0 ? rotatedAfter(marks, stoppedAt) : marks).map((mark) => mark.requestId);
      }
      const requestId = waiting.shift();
      if (requestId === undefined) break;
      visited.add(requestId);
      const turn = this.ports.store.atomically(() => this.takeForPost(requestId, blocked, report));
      if (!turn) continue;
      const { item, tries } = turn;
      const untroubled = item.problem === undefined;
      let failure: unknown;
      let readBack = false;
      try {
        const delivered = await postOnce(this.ports.posting, item, item.requestId, tries);
        item.state = 'sent';
        item.sentAt = new Date(this.ports.now()).toISOString();
        item.sentAtPoll = this.ports.store.pollsSucceeded();
        item.eventId = delivered.eventId;
        item.httpStatus = delivered.httpStatus;
        item.problem = undefined;
        item.mayBePosted = undefined;
        readBack = delivered.readBack;
        report.sent.push(item);
        failedInARow = 0;
      } catch (error) {
        failure = error;
        const apiError = error instanceof SellerApiError ? error : undefined;
        item.problem = explainFailure(error, this.ports.advice);
        // A post's answer (a read-back's is not one): no answer (network) leaves none.
        item.httpStatus = apiError?.operation === 'sendEvent' ? apiError.status : item.httpStatus;
        if (apiError && apiError.operation !== 'sendEvent') {
          // The read-back failed, not a post: say what it was for.
          item.problem.details.unshift(
            'Seller Tray was reading back whether the marketplace already has this status (an earlier answer was lost).',
          );
        }
        item.mayBePosted = tries.mayBePosted || undefined;
        if (apiError && !apiError.transient && !apiError.credentialsRejected) {
          item.state = 'failed';
          report.failed.push(item);
          failedInARow = 0;
        } else {
          blocked.add(item.orderId);
          report.deferred += 1;
          if (untroubled) report.newlyWaiting.push(item.orderId);
          report.transientError ??= apiError;
          failedInARow += 1;
        }
      }
      this.ports.store.putOutboxItem(item);
      this.logDelivery(item, failure, readBack);
      if (failedInARow >= AWAY_AFTER_FAILURES) {
        // The marketplace takes no posts now: the rest wait for the next delivery (the next poll).
        const untried = this.ports.store.pendingOutboxMarks().filter((mark) => !visited.has(mark.requestId));
        report.deferred += untried.length;
        this.stoppedAt = item.orderId;
        report.newlyWaiting.push(...this.sayWhyWaiting(untried, item.problem));
        break;
      }
    }
    return report;
  }

  /**
   * The mark at its turn, read again (it may have been undone while earlier posts were on their
   * way) and, when it is to be posted now, its try written down before the post: a crash while it
   * is on its way leaves it to be read back. Both in one write transaction with the caller's, so
   * an undo in another process comes wholly before (nothing posted) or after (too late).
   */
  private takeForPost(
    requestId: string,
    blocked: Set<string>,
    report: DeliveryReport,
  ): { item: OutboxItem; tries: { mayBePosted: boolean | undefined } } | undefined {
    const item = this.ports.store.outboxItem(requestId);
    if (item?.state !== 'pending') return undefined;
    if (isHeld(item, this.ports.now())) {
      blocked.add(item.orderId);
      report.held += 1;
      report.passedOverRelease = Math.min(
        report.passedOverRelease ?? Number.POSITIVE_INFINITY,
        Date.parse(item.notBefore ?? ''),
      );
      return undefined;
    }
    if (blocked.has(item.orderId)) {
      report.deferred += 1;
      return undefined;
    }
    item.attempts += 1;
    const tries = { mayBePosted: item.mayBePosted };
    item.mayBePosted = true;
    this.ports.store.putOutboxItem(item);
    return { item, tries };
  }

  /**
   * The marks a delivery that stopped did not try say why they wait (else "Sending" for polls
   * on), each once: a mark with a reason of its own keeps it, one in its undo period is not told.
   */
  private sayWhyWaiting(untried: PendingMark[], othersFailed: Explained | undefined): string[] {
    const told: string[] = [];
    for (const { requestId } of untried) {
      const item = this.ports.store.outboxItem(requestId);
      if (item?.state !== 'pending' || item.problem !== undefined || isHeld(item, this.ports.now())) continue;
      item.problem = {
        message:
          'Not sent yet: the marketplace did not take the statuses of other orders just now, so Seller Tray waits before sending more. It tries again by itself; nothing you marked is lost.',
        details: othersFailed === undefined ? [] : [othersFailed.message, ...othersFailed.details],
      };
      this.ports.store.putOutboxItem(item);
      told.push(item.orderId);
    }
    return told;
  }

  /** Sent, failed for good (the server refused it), or pending for another try, and why. */
  private logDelivery(item: OutboxItem, failure: unknown, readBack: boolean): void {
    const [level, outcome] = DELIVERY_OUTCOMES[item.state];
    (this.ports.log ?? silentLog)[level](`delivery ${outcome}`, {
      ...(failure === undefined ? {} : failureFields(failure)),
      orderId: item.orderId,
      requestId: item.requestId,
      statusCode: item.statusCode,
      attempt: item.attempts,
      eventId: item.eventId,
      // Found already in the marketplace after a lost answer, so not posted again.
      ...(readBack ? { readBack } : {}),
      ...(item.mayBePosted ? { mayBePosted: true } : {}),
    });
  }
}

/**
 * Pending marks (oldest first) from the order after `stoppedAt` round to it, each order's marks in
 * their own order (oldest first); as they are when that order has none pending any more.
 */
function rotatedAfter(marks: PendingMark[], stoppedAt: string | undefined): PendingMark[] {
  const orders = [...new Set(marks.map((mark) => mark.orderId))];
  const at = stoppedAt === undefined ? -1 : orders.indexOf(stoppedAt);
  if (at < 0) return marks;
  const rank = new Map(orders.map((orderId, i) => [orderId, (i - at - 1 + orders.length) % orders.length]));
  return marks.toSorted((a, b) => (rank.get(a.orderId) ?? 0) - (rank.get(b.orderId) ?? 0));
}
