// The heart of Seller Tray: what runs all day in the main process, window or not. It polls
// the marketplace, keeps the event history and the order statuses, decides what to
// notify, and delivers the statuses the user marks. Everything platform-specific comes in
// through its ports, so it runs the same in Electron, the CLI and the tests.

import { type AutomationRun, type AutomationSetting, automationNamed } from '../../preload/automations';
import { CodedError } from '../../preload/coded-error';
import { waitLeftMs } from '../../preload/hold';
import { capped, NAME_MAX, plainText, sentenceEnded } from '../../preload/marketplace-text';
import {
  type AccountAttention,
  ATTENTION_SHOWN,
  type AttentionCounts,
  type Connection,
  type CoreEvent,
  type CoreStatus,
  type Explained,
  type Health,
  type OrderDetail,
  type ResendOutcome,
  type UndoOutcome,
} from '../../preload/model';
import { canonicalOrderId } from '../../preload/order-link';
import {
  currentReversal,
  isNewPurchase,
  isUsualTransition,
  type MarkableStatus,
  reversalText,
  unusualMark,
} from '../../preload/order-status';
import type { RunbookTick } from '../../preload/runbooks';
import { statusLabel } from '../../preload/status-words';
import { type Advice, capitalized } from './advice';
import type { TokenLifetime } from './api/access-token';
import type { SellerApiClient } from './api/client';
import { SellerApiError } from './api/errors';
import { newestEvents } from './api/newest';
import { PAGE } from './api/routes';
import { type MarketplaceEvent, type Order, orderIdOf, type UnreadableItem } from './api/wire';
import { automationsToQueue } from './automation/automation-settings';
import { KILL_GRACE_MS } from './automation/command';
import { type AutomationPorts, AutomationRunner } from './automation/runner';
import { Claimant } from './claimant';
import { type FeedSync, syncFeed, takeNewEvents } from './event-feed';
import { explainFailure, failureKind } from './failure-words';
import { anotherSellers, describeAside } from './kept-aside';
import {
  health,
  LIVENESS_TICK_MS,
  type LivenessState,
  livenessNotification,
  startLiveness,
  succeeded,
  tick,
  toTell,
} from './liveness';
import { failureFields, type Log, silentLog } from './log';
import { TransitionError } from './mark';
import {
  automationFailedNotification,
  briefOf,
  dueReminders,
  type OrderBrief,
  purchaseNotifications,
  reminderNotifications,
  resumeSummary,
} from './notification-policy';
import { OrderFetcher } from './order-fetcher';
import { type DeliveryReport, Outbox, type OutboxItem } from './outbox';
import { Poller, type PollerState, type Timers } from './poller';
import { isProcessAlive } from './process-alive';
import { eventsFrom, showsMark } from './status-post';
import { recordsKeptFrom, type StatusRecord } from './status-records';
import {
  AccountStore,
  type AttentionLimits,
  type InboxPage,
  type InboxQuery,
  type InboxReader,
  type KeptAside,
} from './store/account-store';
import type { InsightsPart, InsightsQuery } from './store/insights';
import { importLegacyFiles } from './store/legacy-import';

/** What the core needs to know of the settings, read at each use so changes apply at once. */
export interface CoreSettings {
  pollIntervalSeconds: number;
  notificationsEnabled: boolean;
  pausedUntil: string | null;
  /** Each account's own pause, by its id: the session folds its account's into `pausedUntil`. */
  accountPauses?: Readonly<Record<string, string>> | undefined;
  reminderAfterMinutes: number;
  /** A marked status is held this long before it is sent, so it can be undone; 0 sends at once. */
  undoSeconds: number;
  /** An order in progress longer than this many days needs attention; 0 = never. */
  staleInProgressDays: number;
  /** A new order nobody started after this many minutes is announced again, urgent; 0 = never. */
  escalateAfterMinutes: number;
  /** This laptop runs the account's automations (off when absent). */
  automationsEnabled?: boolean | undefined;
  /** The account's automations, from the settings file only. */
  automations?: readonly AutomationSetting[] | undefined;
}

export interface CorePorts {
  client: SellerApiClient;
  /** Where this laptop keeps its state and event history. */
  dataDir: string;
  settings: () => CoreSettings;
  timers?: Timers;
  now?: () => number;
  /** Whether a process (of another core on the same data folder) is still running. */
  isProcessAlive?: (pid: number) => boolean;
  /** Told of each poll's outcome, delivery and announcement; its client logs its failed calls. */
  log?: Log;
  /** The locale notifications write amounts in; the runtime's default when absent (docs/window.md, "Order"). */
  locale?: string | undefined;
  /** What automations need to run here (keychain, account, laptop); none run without it. */
  automations?: AutomationPorts | undefined;
  /** The account's label while the app serves more than one (notifications then name it). */
  accountName?: (() => string | undefined) | undefined;
  /** Every message's advice, worded for the surface the account's session serves (advice.ts). */
  advice: Advice;
}

// Declared for every process in preload/model.ts.
export type { Connection, CoreEvent, CoreStatus, OrderDetail } from '../../preload/model';

export interface MarkRequest {
  orderId: string;
  statusCode: MarkableStatus;
  description: string;
  detailedDescription?: string | undefined;
  /** The user confirmed an unusual transition. */
  override?: boolean | undefined;
}

/** An order never read, whose fetch failed (`failure`), and when Seller Tray reads it again by itself (ISO time). */
export class OrderReadLater extends Error {
  constructor(
    readonly failure: unknown,
    readonly retryAt: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
    this.name = 'OrderReadLater';
  }
}

/** A request about something this laptop does not have (a status to send again, an order): the message is for the user. */
export class NotFoundError extends CodedError<'not-found'> {
  constructor(message: string) {
    super('not-found', message);
  }
}

/** "Send again" reads the listing back to an hour before the post: a later-stamped copy is not missed. */
const RESEND_LOOK_BACK_MS = 60 * 60_000;

/**
 * How long closing waits for the poll, fetches and deliveries under way: a quit never hangs on
 * the network. What is cut short stays in the store (a status still pending is posted at the
 * next start under its request id); the store is then not marked closed cleanly.
 */
export const CLOSE_WITHIN_MS = 4_000;

/**
 * The backlog walk stores its orders this many at a time (a transaction each): a page of them.
 * Held across requests, larger batches lived long enough to fill the heap's old space (a first
 * start of 42,000 orders peaked 40 MB higher with 500).
 */
const BACKLOG_BATCH = 100;

/**
 * Pages of events recorded in one transaction at most (1,000 events at the usual 100 a page): a
 * first start's memory and transactions stay bounded. Event and order ids are random, so each
 * commit writes again most pages of their indexes: parts of 5,000 cost a 100,000-event first
 * sync about a fifth less CPU, but its peak RSS rose by about 45 MiB (V8's heap grew with what a
 * part holds), so memory decides (test/bench/README.md).
 */
const SYNC_PAGES = 10;

/** Orders indexed for search per transaction after a first start. */
const SEARCH_INDEX_BATCH = 200;

/** How long a mark waits for the order's history to be read again before it is checked. */
export const MARK_REFRESH_MS = 5_000;
/**
 * SQLite's advice for connections that live long: `PRAGMA optimize` now and then, and after a
 * large change, or the planner keeps the shape the tables had at the start (a store grown from a
 * few hundred orders to thousands walked every order for each automation claim: 0.3 ms a claim).
 * It costs next to nothing when the statistics are current.
 */
const OPTIMIZE_EVERY_MS = 60 * 60_000;
const OPTIMIZE_AFTER_ORDERS = 500;
/** Check now waits for a retry this soon (a server's passing error); a longer wait it leaves to the poll. */
const CHECK_WAITS_FOR_RETRY_MS = 2_000;

/** How long an announcement waits for its order's document, so it can name buyer and amount. */
export const ANNOUNCE_WAIT_MS = 4_000;

export class SellerCore {
  private readonly listeners = new Set<(event: CoreEvent) => void>();
  private readonly poller: Poller;
  private readonly fetcher: OrderFetcher;
  private readonly outbox: Outbox;
  private readonly runner: AutomationRunner | undefined;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly timers: Timers;
  /** Delivers the held statuses once the first one's grace period ends. */
  private releaseTimer: unknown;
  private announcing: Promise<void> = Promise.resolve();
  /** Whose the announcements and automation runs it claims are: this core's, not only this process's (claimant.ts). */
  private readonly claimant: Claimant;
  private backlogWalk: Promise<void> | undefined;
  private searchBuild: Promise<void> | undefined;
  /** The backlog walk failed in this start: the fetcher takes the rest; the next start goes on with it. */
  private backlogWalkFailed = false;
  private stopped = false;
  /** The automation runs under way that the stop ended (queued again for the next start). */
  runsCutShort = 0;
  private closing: Promise<void> | undefined;
  private updated = new Set<string>();
  /** The poll a mark reads the history with, and when the last one ended (see refreshBeforeMark). */
  private markRefresh: Promise<void> | undefined;
  private markRefreshEnded = Number.NEGATIVE_INFINITY;
  /**
   * When an open last refreshed each order, or a fetch of it failed, oldest first: a try moves its
   * order to the end (see openRefreshDue).
   */
  private readonly fetchTries = new Map<string, number>();
  private connection: Connection = 'starting';
  private lastSuccessfulPoll: string | null;
  /** Whether the marketplace is being read (liveness.ts), ticked on a timer once started. */
  private liveness: LivenessState | undefined;
  private health: Health = 'healthy';
  private livenessTimer: unknown;
  /** What needs attention, counted when the status is told (after a poll, a mark, a delivery). */
  private attentionCounts: AttentionCounts | undefined;
  /** Statuses being sent again: a second click waits for nothing and sends nothing. */
  private readonly resending = new Set<string>();
  private lastError: string | null = null;
  private problem: Explained | null = null;
  /** New orders learned since this core started (not the first start's backlog). */
  private ordersLearned = 0;
  /** When the store last brought its planner statistics up to date (it does when it opens). */
  private optimizedAt: number;
  /** The "new" listing's failure was told: it is told again only after it worked in between. */
  private newListingFailureTold = false;
  /** The events listing's result window was told (once per start). */
  private windowTold = false;

  private constructor(
    private readonly ports: CorePorts,
    private readonly store: AccountStore,
    private readonly startupProblems: string[],
  ) {
    this.now = ports.now ?? Date.now;
    this.optimizedAt = this.now();
    this.log = ports.log ?? silentLog;
    this.lastSuccessfulPoll = store.lastSuccessfulPoll() ?? null;
    this.timers = ports.timers ?? { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
    this.claimant = new Claimant(ports.isProcessAlive ?? isProcessAlive);
    this.outbox = new Outbox({
      store,
      posting: {
        post: async (body, requestId) => {
          const answer = await ports.client.sendEvent(body, requestId);
          // The stored event the marketplace answered with counts at once (causality: it is ours).
          if (answer.event) store.recordPosted(answer.event, new Date(this.now()).toISOString());
          return answer;
        },
        // What the store has of the order (a poll may have read the post), then the listing's
        // end from a page before the cursor (the listing may have lost old events meanwhile).
        recentEvents: async function* (orderId) {
          yield store.history(orderId);
          yield* eventsFrom(ports.client, (store.cursor()?.offset ?? 0) - ports.client.pageSize);
        },
      },
      now: this.now,
      log: this.log,
      advice: ports.advice,
    });
    this.fetcher = new OrderFetcher({
      // Asked between fetches, in the background: damage met there is mended as anywhere else, and
      // anything else leaves the queue for the next round rather than failing unseen.
      due: (limit, skip) => {
        try {
          return this.withStore(() => store.ordersToFetch(limit, skip));
        } catch (error) {
          this.log.warn('orders to fetch could not be read', failureFields(error));
          return [];
        }
      },
      fetch: (orderId) => this.fetchOrder(orderId),
      stored: (orderId) => this.withStore(() => store.storedOrder(orderId)?.document !== undefined),
      idle: () => this.emitUpdated(),
    });
    this.runner =
      ports.automations &&
      new AutomationRunner({
        store,
        settings: ports.settings,
        ports: ports.automations,
        now: this.now,
        timers: this.timers,
        log: this.log,
        claimant: this.claimant,
        brief: (orderId) => this.brief(orderId),
        // As a person's mark, checked against the order's history; held for undo like one.
        mark: (mark) => this.markStatus(mark),
        changed: (orderIds) => this.emitChanged(orderIds, false),
        failed: (run, detail, lastOutput) => this.tellAutomationFailed(run, detail, lastOutput),
        advice: ports.advice,
      });
    this.poller = new Poller({
      poll: () => this.poll(),
      intervalMs: () => ports.settings().pollIntervalSeconds * 1000,
      timers: this.timers,
      now: this.now,
      onState: (state, error) => this.onPollerState(state, error),
      credentialsChanged: () => ports.client.secretChanged(),
      retrySameSecret: () => ports.client.retryRefusedSecret(),
    });
  }

  /** Opens the account's store in `dataDir` (importing 0.1's files once); throws if it is too new. */
  static async open(ports: CorePorts): Promise<SellerCore> {
    const now = ports.now ?? Date.now;
    const { store, problems, warnings } = AccountStore.open(ports.dataDir, now);
    for (const warning of warnings) (ports.log ?? silentLog).warn(warning, { dataDir: ports.dataDir });
    problems.push(...importLegacyFiles(ports.dataDir, store, new Date(now()).toISOString()));
    const learned = store.learnedPageSize();
    if (learned !== undefined) ports.client.adoptPageSize(learned);
    ports.client.adoptResultWindows(store.learnedResultWindows());
    return new SellerCore(ports, store, problems);
  }

  on(listener: (event: CoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts polling; problems found while opening are told now, to whoever listens, and new
   * orders queued before a crash are announced (also when the first poll fails).
   */
  start(): Promise<void> {
    for (const message of this.startupProblems.splice(0)) this.emit({ type: 'problem', message });
    this.announce().catch((error: unknown) => {
      if (!this.recoverFromDamage(error)) this.log.warn('announcing failed', failureFields(error));
    });
    this.scheduleRelease();
    const last = this.lastSuccessfulPoll === null ? null : Date.parse(this.lastSuccessfulPoll);
    this.liveness = startLiveness(this.now(), Number.isFinite(last) ? last : null);
    this.scheduleTick();
    // Runs queued before a crash or a stop: taken again under their delivery ids.
    this.runAutomations();
    return this.poller.start();
  }

  /** Ticks the liveness clock: a jump (a sleep no one told of) polls at once. */
  private scheduleTick(): void {
    this.livenessTimer = this.timers.setTimeout(() => {
      if (this.stopped || !this.liveness) return;
      const { state, woke } = tick(this.liveness, this.now());
      this.liveness = state;
      if (woke) {
        this.log.info('clock jumped (sleep?): polling now', {});
        void this.poller.pollNow();
      }
      this.judgeLiveness();
      this.scheduleTick();
    }, LIVENESS_TICK_MS);
  }

  /** Says in the status when the marketplace stops being read, and once in a notification. */
  private judgeLiveness(): void {
    if (!this.liveness) return;
    const settings = this.ports.settings();
    const now = health(this.liveness, settings.pollIntervalSeconds * 1000);
    const notify = settings.notificationsEnabled && this.pausedUntil() === null;
    const { state, tell } = toTell(this.liveness, now, notify);
    this.liveness = state;
    if (tell) {
      this.log.info('liveness told', { tell, connection: this.connection });
      this.emit({
        type: 'notification',
        request: livenessNotification(
          tell,
          state,
          this.now(),
          this.connection,
          this.ports.advice,
          this.ports.accountName?.(),
        ),
      });
    }
    if (now === this.health) return;
    this.log.warn('liveness', { health: now, lastSuccessfulPoll: this.lastSuccessfulPoll });
    this.health = now;
    this.emitStatus();
  }

  /** Stops for good: a poll still running ends without telling anyone anything. */
  stop(): void {
    const cutShort = this.runner?.stop() ?? 0;
    if (!this.stopped) this.runsCutShort = cutShort;
    this.stopped = true;
    this.timers.clearTimeout(this.releaseTimer);
    this.timers.clearTimeout(this.livenessTimer);
    this.poller.stop();
    void this.fetcher.stop();
    this.listeners.clear();
  }

  /**
   * Stops, and closes the store once the poll, fetches and deliveries still running have ended,
   * waiting for them at most `withinMs`; the store is marked closed cleanly only when they did.
   */
  close(withinMs = CLOSE_WITHIN_MS): Promise<void> {
    this.closing ??= (async () => {
      this.stop();
      const [network, commands] = await Promise.all([
        endedWithin(
          Promise.allSettled([
            this.poller.idle(),
            this.backlogWalk,
            this.fetcher.stop(),
            this.outbox.idle(),
            this.announcing,
          ]),
          withinMs,
        ),
        // Commands the stop cut are waited for until surely ended (SIGKILL after their grace): a store
        // opened again at once (an account renamed while `run` follows the file) must not run one again
        // beside the copy still ending, nor this store hear its end once closed.
        endedWithin(this.runner?.idle() ?? Promise.resolve(), Math.max(withinMs, KILL_GRACE_MS + 1_000)),
      ]);
      const clean = network && commands;
      if (!clean) this.log.warn('closed before the work under way ended', { withinMs });
      this.store.close(clean);
      // Nothing of it acts on its claims any more (a run still ending writes its end first): what
      // a failed write left claimed is another core's to take.
      this.claimant.retire();
    })();
    return this.closing;
  }

  /**
   * Check now, resume from sleep, network back, or new credentials. Answers how many new orders
   * the polls it waited for learned (a poll already running counts, and the one after it). It
   * waits for no backoff: retries waiting are tried at once, a quick retry of an error answer is
   * waited for, and a marketplace that does not answer (or asks for a long wait) ends the wait at
   * its first failure, shown as this account's (the poll goes on retrying by itself). The person
   * asked: it calls even while the marketplace asks to wait or refused the secret (once a press;
   * nothing else does).
   */
  checkNow(): Promise<number> {
    this.ports.client.tryAnyway();
    return this.pollAtOnce();
  }

  /** A poll at once, retries waiting out our own backoff tried now (see checkNow). */
  private async pollAtOnce(): Promise<number> {
    const before = this.ordersLearned;
    let unsubscribe = () => {};
    this.ports.client.hurry();
    const failedOnce = new Promise<void>((resolve) => {
      unsubscribe = this.ports.client.onRetry((error, delayMs) => {
        if (error.kind !== 'network' && error.kind !== 'timeout' && delayMs <= CHECK_WAITS_FOR_RETRY_MS)
          return;
        this.showFailure(error);
        resolve();
      });
    });
    try {
      await Promise.race([this.poller.pollNow(), failedOnce]);
    } finally {
      unsubscribe();
    }
    return this.ordersLearned - before;
  }

  status(): CoreStatus {
    const pausedUntil = this.pausedUntil();
    this.attentionCounts ??= this.countAttention();
    return {
      connection: this.connection,
      lastSuccessfulPoll: this.lastSuccessfulPoll,
      health: this.health,
      lastError: this.lastError,
      problem: this.problem,
      waitingCount: this.withStore(() => this.store.waitingCount()),
      pendingOutbox: this.outbox.pendingCount,
      notificationsPausedUntil: pausedUntil === null ? null : new Date(pausedUntil).toISOString(),
      attention: this.attentionCounts,
    };
  }

  /** The Needs attention view, from the store alone: holding it open costs the marketplace nothing. */
  attention(): AccountAttention {
    const settings = this.ports.settings();
    const found = this.withStore(() => this.store.attention(this.attentionLimits(), ATTENTION_SHOWN));
    this.attentionCounts = found.counts;
    return {
      ...found,
      reminderAfterMinutes: settings.reminderAfterMinutes,
      stalledAfterDays: settings.staleInProgressDays,
      escalateAfterMinutes: settings.escalateAfterMinutes,
    };
  }

  /** One period's Insights figures from the store alone (the service adds accounts together). */
  insights(query: InsightsQuery): InsightsPart {
    return this.withStore(() => this.store.insights(query));
  }

  /** The items kept aside up to `id` were looked at: they no longer need attention. */
  markAsideSeen(id: number): void {
    this.withStore(() => this.store.markAsideSeen(id));
    this.emitStatus();
  }

  /**
   * "Send again" for a status the marketplace's listing did not show after a few polls. It is
   * first looked for where the listing keeps the order's latest events (read back from the end to
   * an hour before it was sent, or to the order's purchase): found, it counts as confirmed and
   * nothing is sent; absent, it is posted again through the outbox under a new request id (the
   * marketplace may remember the old one as stored).
   */
  async resendStatus(requestId: string): Promise<{ outcome: ResendOutcome; item: OutboxItem }> {
    const item = this.store.outboxItem(requestId);
    if (item?.state !== 'sent' || item.readBackAt !== undefined || this.resending.has(requestId)) {
      throw new NotFoundError('There is no unconfirmed status to send again with that id.');
    }
    this.resending.add(requestId);
    try {
      if (await this.isInMarketplace(item)) {
        this.withStore(() => this.store.putOutboxItem({ ...item, readBackAt: this.isoNow() }));
        this.outbox.confirmed(this.store.forgetConfirmed());
        this.log.info('resend: found after all', { orderId: item.orderId, requestId });
        this.emitStatus();
        return { outcome: 'found', item };
      }
      const { orderId, statusCode, description, detailedDescription } = item;
      const again = this.withStore(() =>
        this.store.atomically(() => {
          this.store.deleteOutboxItem(requestId, { as: 'sent-again', at: this.isoNow() });
          return this.outbox.enqueue({ orderId, statusCode, description, detailedDescription });
        }),
      );
      this.log.info('resend: absent, sent again', { orderId, requestId, newRequestId: again.requestId });
      this.emitStatus();
      this.emit({ type: 'orders-updated', orderIds: [orderId], moved: true });
      this.deliverInBackground();
      return { outcome: 'sent-again', item: again };
    } finally {
      this.resending.delete(requestId);
    }
  }

  /**
   * Whether the listing shows the status after all: its end read back past the post's time, on
   * the marketplace's clock as well as this laptop's (the earlier: that clock may be hours behind,
   * and its post then stamped before this laptop's time of it). The marketplace's time of the post
   * is taken as long before the newest event read as the post is before now here.
   */
  private async isInMarketplace(item: OutboxItem): Promise<boolean> {
    const sent = Date.parse(item.sentAt ?? item.createdAt);
    const reachedPost = (events: MarketplaceEvent[]) => {
      const newest = events.reduce((at, event) => {
        const ms = Date.parse(event.eventTime ?? '');
        return ms > at ? ms : at;
      }, Number.NEGATIVE_INFINITY);
      const since = Math.min(sent, newest - (this.now() - sent)) - RESEND_LOOK_BACK_MS;
      return events.some(
        (event) =>
          (canonicalOrderId(orderIdOf(event) ?? '') === item.orderId && isNewPurchase(event)) ||
          Date.parse(event.eventTime ?? '') < since,
      );
    };
    const stop = new AbortController();
    try {
      const read = await newestEvents(this.ports.client, stop.signal)(reachedPost);
      return read.items.some((event) => showsMark(event, item));
    } finally {
      stop.abort(); // what was read ahead is not waited for
    }
  }

  private attentionLimits(): AttentionLimits {
    const settings = this.ports.settings();
    return {
      now: this.isoNow(),
      reminderAfterMinutes: settings.reminderAfterMinutes,
      stalledAfterDays: settings.staleInProgressDays,
    };
  }

  private countAttention(): AttentionCounts {
    return this.withStore(() => this.store.attentionCounts(this.attentionLimits()));
  }

  /** Every status marked here since `since` (ISO; all kept when absent), oldest first: the proof of delivery. */
  statusRecords(since?: string): StatusRecord[] {
    return this.withStore(() => this.store.statusRecords(since));
  }

  /** One page of the inbox from the store: waiting orders first, then newest first. */
  orders(query: InboxQuery): InboxPage {
    return this.withStore(() => this.store.inboxPage(query));
  }

  /** Reads of the inbox across accounts (main/core/inbox-across.ts), each mended like any read. */
  inboxRead<T>(read: (store: InboxReader) => T): T {
    return this.withStore(() => read(this.store));
  }

  /** What the account's client learned of its tokens' lifetime while it polled (for a diagnosis). */
  tokenLifetime(): TokenLifetime {
    return this.ports.client.tokenLifetime();
  }

  /** The latest items the reader kept aside, and how many there are (for a diagnosis). */
  keptAside(limit: number): { items: KeptAside[]; total: number } {
    return this.store.aside(limit);
  }

  /** What a notification says of an order (buyer, product, total), from the store. */
  brief(id: string): OrderBrief {
    const orderId = canonicalOrderId(id);
    const stored = this.store.storedOrder(orderId);
    const account = this.ports.accountName?.();
    return {
      ...briefOf(orderId, stored?.document, this.ports.locale),
      purchaseType: stored?.purchaseType,
      ...(account ? { account } : {}),
    };
  }

  /**
   * The statuses marked here and not delivered yet, each in words, the first `shown` and how many
   * more: a removal names them before it may discard them.
   */
  undeliveredStatuses(shown = 20): string[] {
    const pending = this.outbox.all().filter((item) => item.state === 'pending');
    const named = pending
      .slice(0, shown)
      .map(
        (item) =>
          `${statusLabel(item.statusCode)} for ${this.brief(item.orderId).buyer} (order ${item.orderId})`,
      );
    return pending.length > shown ? [...named, `and ${pending.length - shown} more`] : named;
  }

  /** Whether this account has heard of the order (its events or its document are in the store). */
  knowsOrder(orderId: string): boolean {
    return this.store.storedOrder(canonicalOrderId(orderId)) !== undefined;
  }

  /** Whether a status marked here (by its request id) is in this account's outbox. */
  holdsDelivery(requestId: string): boolean {
    return this.outbox.item(requestId) !== undefined;
  }

  /** Whether the store holds the order itself (it then opens without the marketplace). */
  hasOrder(orderId: string): boolean {
    return this.store.storedOrder(canonicalOrderId(orderId))?.document !== undefined;
  }

  /**
   * An order from the store, at once. Opening it refreshes it from the marketplace at most once a
   * poll interval (a view reloads the order on every change it is told of, so refreshing on every
   * read would feed on itself); "orders-updated" tells when the refresh changed something. A view
   * reading again the order it shows (`reread`: told of a change, or following the app's state
   * while a mark is on the page) refreshes nothing: the polls fetch an order whose events change,
   * so an order left open costs no call however long it stays. An order never fetched yet is
   * fetched now; that fails when the marketplace does not answer.
   */
  async order(id: string, { reread = false }: { reread?: boolean } = {}): Promise<OrderDetail> {
    const orderId = canonicalOrderId(id);
    if (this.store.markOpened(orderId, this.isoNow())) this.emitChanged([orderId], false);
    let stored = this.store.storedOrder(orderId);
    // A document without its licenses (read from the orders listing) has not been fetched whole yet.
    const due =
      !reread && this.openRefreshDue(orderId, stored?.licenses === undefined ? null : stored.fetchedAt);
    if (stored?.document === undefined || (due && stored.licenses === undefined)) {
      const failure = await this.fetcher.refresh(orderId).then(
        () => undefined,
        (error: unknown) => error,
      );
      stored = this.store.storedOrder(orderId);
      if (stored?.document === undefined) {
        const retryAt = this.fetchAgainAt(stored?.fetchAgainAt ?? null);
        throw retryAt ? new OrderReadLater(failure, retryAt) : failure;
      }
    } else if (due) {
      this.fetcher
        .refresh(orderId)
        .then(
          () => this.emitUpdated(),
          () => this.emitUpdated(),
        )
        // Telling the views reads the store: damage it cannot mend there is logged, never an
        // unhandled rejection of a refresh nobody awaits.
        .catch((error: unknown) => this.log.warn('refresh of an open order not told', failureFields(error)));
    }
    const history = this.store.history(orderId);
    const reversal = currentReversal(history);
    const unconfirmed = this.store.unconfirmedOf(orderId);
    return {
      order: stored.document,
      licenses: stored.licenses ?? null,
      history,
      outbox: this.outbox.forOrder(orderId),
      settled: this.outbox.settledFor(orderId),
      ...(unconfirmed.length > 0 ? { unconfirmed } : {}),
      status: stored.status,
      ...(stored.waitingSince === undefined ? {} : { waitingSince: stored.waitingSince }),
      fetchedAt: stored.fetchedAt,
      refreshProblem: stored.fetchError,
      refreshAgainAt: this.fetchAgainAt(stored.fetchAgainAt),
      automationRuns: this.store.runsFor(orderId),
      runbookTicks: this.store.runbookTicks(orderId),
      // Told while the order shows the status it went back to.
      ...(reversal && reversal.event.statusCode === stored.status
        ? { statusReversal: reversalText(reversal) }
        : {}),
    };
  }

  /**
   * Marks an order's status: committed to the store before this resolves, then posted once the
   * grace period (settings' undoSeconds) has passed. The order's history is read again first
   * (bounded by MARK_REFRESH_MS; offline, the store's view counts), so a mark behind what the
   * marketplace shows (another laptop completed it meanwhile) is asked about, not made blindly:
   * an unusual transition needs `override`.
   */
  async markStatus(mark: MarkRequest): Promise<OutboxItem> {
    const request = { ...mark, orderId: canonicalOrderId(mark.orderId) };
    if (!request.override) await this.refreshBeforeMark();
    const from = this.withStore(() => this.store.storedOrder(request.orderId)?.status);
    if (!request.override && !isUsualTransition(from, request.statusCode)) {
      throw new TransitionError(unusualMark(request.statusCode, from, this.store.history(request.orderId)));
    }
    const item = this.withStore(() =>
      this.outbox.enqueue(
        {
          orderId: request.orderId,
          statusCode: request.statusCode,
          description: request.description,
          detailedDescription: request.detailedDescription,
        },
        this.ports.settings().undoSeconds * 1000,
      ),
    );
    this.emitStatus();
    this.emitChanged([request.orderId], true);
    if (item.notBefore === undefined) this.deliverInBackground();
    else this.scheduleRelease();
    return item;
  }

  /**
   * A poll before a mark, waited for at most MARK_REFRESH_MS; its failure is the poller's to tell.
   * Marks in a row (a bulk step) share one: a poll that ended within MARK_REFRESH_MS, or one under
   * way, is read again rather than another made per order.
   */
  private async refreshBeforeMark(): Promise<void> {
    // Only a read made since, by a clock that did not go back, counts (a clock set back is not "within").
    const since = this.now() - this.markRefreshEnded;
    if (since >= 0 && since < MARK_REFRESH_MS) return;
    this.markRefresh ??= this.pollAtOnce()
      .catch(() => undefined)
      .then(() => {
        this.markRefreshEnded = this.now();
        this.markRefresh = undefined;
      });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.markRefresh,
      new Promise((resolve) => {
        timer = setTimeout(resolve, MARK_REFRESH_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Takes back a status still in its grace period: it is removed and never sent, and the order
   * shows its status as before. Past the grace period it is on its way and stays.
   */
  undoMark(requestId: string): UndoOutcome {
    const orderId = this.outbox.item(requestId)?.orderId;
    const outcome = this.outbox.undo(requestId);
    if (outcome === 'undone' && orderId !== undefined) {
      this.scheduleRelease();
      this.emitStatus();
      this.emitChanged([orderId], true);
    }
    return outcome;
  }

  /** The outbox after a delivery attempt, for callers that wait for it (CLI, tests). */
  async deliverOutbox(): Promise<readonly OutboxItem[]> {
    await this.deliverAndTell();
    return this.outbox.all();
  }

  private async deliverAndTell(): Promise<DeliveryReport> {
    const report = await this.outbox.deliver();
    const settled = [...report.sent, ...report.failed];
    if (settled.length > 0) {
      this.emitStatus();
      // A failed status no longer shows as the order's, a sent one is in its history.
      this.emitChanged([...new Set(settled.map((item) => item.orderId))], true);
    }
    // A mark now waiting for another try: its row says "not sent yet" where it said "sending".
    this.emitChanged([...new Set(report.newlyWaiting)], false);
    return report;
  }

  /** Delivers without a caller waiting: a failure that is not the marketplace's is logged. */
  private deliverInBackground(): void {
    this.deliverAndTell().catch(this.deliveryStopped);
  }

  private readonly deliveryStopped = (error: unknown): void => {
    if (!this.recoverFromDamage(error)) this.log.warn('delivery stopped', failureFields(error));
  };

  /**
   * Delivers when the first held status's grace period ends (also for those held before a
   * restart), or when the hold a release's own delivery passed over ends (`passedOver`).
   */
  private scheduleRelease(passedOver?: number): void {
    this.timers.clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    const release = Math.min(
      this.outbox.nextRelease() ?? Number.POSITIVE_INFINITY,
      passedOver ?? Number.POSITIVE_INFINITY,
    );
    if (release === Number.POSITIVE_INFINITY || this.stopped) return;
    this.releaseTimer = this.timers.setTimeout(
      () => {
        this.releaseTimer = undefined;
        // After a delivery already running (which may have passed the item while it was held).
        this.outbox
          .idle()
          .then(() => this.deliverAndTell())
          .then(
            (report) => this.scheduleRelease(report.passedOverRelease),
            (error: unknown) => {
              this.scheduleRelease();
              throw error;
            },
          )
          .catch(this.deliveryStopped);
      },
      Math.max(0, release - this.now()),
    );
  }

  retryDelivery(requestId: string): OutboxItem | undefined {
    const item = this.outbox.retry(requestId);
    if (item) this.deliverInBackground();
    return item;
  }

  /** Resolves when the first start's backlog walk and search index, if under way, have ended. */
  async backlogRead(): Promise<void> {
    await this.backlogWalk;
    await this.searchBuild;
  }

  /** Orders fetched at most this many at once, ever (for the benchmark's report). */
  get peakFetchesInFlight(): number {
    return this.fetcher.peakInFlight;
  }

  /**
   * One poll: learn (events, cursor and the announcements they call for, in one transaction),
   * fetch the orders they name, announce, remind, deliver. Thrown errors go to the poller's backoff.
   */
  private async poll(): Promise<void> {
    // A wait the marketplace asked of another process on this folder, or before a restart, holds here.
    const { client } = this.ports;
    client.adoptServerWait(this.withStore(() => this.store.learnedServerWait()));
    try {
      await this.pollOnce();
    } catch (error) {
      if (!this.recoverFromDamage(error)) throw error;
      await this.pollOnce();
    } finally {
      // The runs of the orders it learned start now (held since it learned them).
      this.runner?.pollEnded();
      this.runAutomations();
      if (!this.stopped) {
        try {
          this.withStore(() => this.store.rememberServerWait(client.serverWait));
        } catch (error) {
          this.log.warn('wait asked for not kept', failureFields(error));
        }
      }
    }
  }

  /**
   * Damage met while running: the store sets the file aside and starts a new one at once,
   * keeping what its journal holds, and the user is told. Whether `error` was such damage.
   */
  private recoverFromDamage(error: unknown): boolean {
    if (!this.store.noteIfDamage(error) || this.stopped) return false;
    this.log.warn('store damaged: rebuilt', failureFields(error));
    this.emit({ type: 'problem', message: this.store.rebuild() });
    this.emitStatus();
    return true;
  }

  /** `work` on the store, once more after a rebuild when it met damage. */
  private withStore<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (!this.recoverFromDamage(error)) throw error;
      return work();
    }
  }

  private async pollOnce(): Promise<void> {
    const started = this.now();
    let cursor = this.store.cursor();
    // A first start's history (also one a crash cut short, going on from its cursor) is not news.
    const backlog = cursor === undefined || this.store.firstSyncUnderway();
    // Which seller this account is (the token says): another seller's events are kept aside.
    const own = sellerOf((await this.ports.client.authenticate()).sellerId);
    let newOrders = 0;
    let newListingProblem: string | undefined;
    const record = (read: Omit<Parameters<AccountStore['recordPoll']>[0], 'paused' | 'now'>) => {
      const { events, foreign } = ownEvents(read.events, own);
      const learned = this.store.recordPoll({
        ...read,
        events,
        unreadable: [...(read.unreadable ?? []), ...foreign],
        paused: this.pausedUntil() !== null,
        now: this.isoNow(),
        // None queued where the organization forbids them: they would run once it allows them again.
        automations: this.ports.automations?.forbidden?.()
          ? []
          : automationsToQueue(this.ports.settings(), this.ports.automations?.account.id),
      });
      newOrders += learned.newOrders;
      this.ordersLearned += learned.newOrders;
      if (learned.newOrders > 0) this.runner?.holdForPoll();
      this.emitChanged(learned.changed, true);
      return learned;
    };
    // What "new" hands over is recorded (and announced) at once: it is gone from "new" once read,
    // so a failure of the rest of the poll must not lose it. A first start reads "all" alone.
    if (!backlog) {
      newListingProblem = await takeNewEvents(this.ports.client, ({ items, unreadable }) => {
        if (record({ events: items, unreadable, cursor: undefined, backlog: false }).newOrders === 0) return;
        this.fetcher.round();
        void this.announce();
      });
    }
    // A long history (a first start, a laptop long offline) is read and recorded a bounded part at
    // a time, each with its cursor: memory and each transaction stay small, and a crash loses at
    // most the part under way.
    const read = { events: 0, newEvents: 0, unreadable: 0 };
    const recordPart = (sync: FeedSync) => {
      const learned = record({ ...sync, backlog, more: sync.more });
      read.events += sync.events.length;
      read.newEvents += learned.newEvents;
      read.unreadable += sync.unreadable.length;
      this.tellWindow(sync.atWindow);
    };
    for (;;) {
      const sync = await syncFeed(this.ports.client, cursor, SYNC_PAGES, recordPart);
      recordPart(sync);
      cursor = sync.cursor;
      if (!sync.more || this.stopped) break;
    }
    this.tellNewListingFailure(newListingProblem);
    this.tellAside();
    this.rememberListingLimits();
    if (this.store.ordersWalkFrom() !== undefined && !this.backlogWalkFailed)
      this.backlogWalk ??= this.walkBacklog();
    else if (!this.backlogWalk) {
      this.fetcher.round();
      if (this.store.searchIndexing()) this.searchBuild ??= this.buildSearchIndex();
    }
    await this.announce();
    await this.remind();
    if (this.outbox.pendingCount > 0) await this.outbox.deliver();
    this.outbox.confirmed(this.store.forgetConfirmed());
    this.store.forgetStatusRecords(recordsKeptFrom(this.now()));
    this.lastSuccessfulPoll = this.isoNow();
    this.store.notePollSucceeded(this.lastSuccessfulPoll);
    this.optimizeWhenDue(newOrders);
    if (this.liveness) this.liveness = succeeded(this.liveness, this.now());
    this.judgeLiveness();
    this.lastError = null;
    this.problem = null;
    this.log.info('poll ok', {
      events: read.events,
      newEvents: read.newEvents,
      newOrders,
      unreadable: read.unreadable,
      backlog,
      newListing: newListingProblem === undefined ? 'ok' : 'failed',
      ms: this.now() - started,
    });
  }

  /** The planner's statistics brought up to date after a poll that learned many orders, or hourly (OPTIMIZE_EVERY_MS). */
  private optimizeWhenDue(learned: number): void {
    const due = waitLeftMs(this.optimizedAt + OPTIMIZE_EVERY_MS, OPTIMIZE_EVERY_MS, this.now()) === 0;
    if (learned < OPTIMIZE_AFTER_ORDERS && !due) return;
    this.optimizedAt = this.now();
    try {
      this.store.optimize(true);
    } catch (error) {
      // Upkeep: it never costs a poll (a busy or damaged file is the next write's to meet).
      this.log.warn('planner statistics not brought up to date', failureFields(error));
    }
  }

  /** What the client learned of the listings' limits (page size, result windows), for the next start. */
  private rememberListingLimits(): void {
    const { client } = this.ports;
    if (client.pageSize < PAGE.maxLimit) this.store.rememberPageSize(client.pageSize);
    this.store.rememberResultWindows(client.resultWindows);
  }

  /**
   * The events listing reached its result window: what lies past it (the newest events while the
   * listing is longer) cannot be read. Told once per start.
   */
  private tellWindow(window: number | undefined): void {
    if (window === undefined || this.windowTold) return;
    this.windowTold = true;
    this.emit({
      type: 'problem',
      message: `The marketplace lists only its first ${window.toLocaleString('en')} events, so Seller Tray cannot read events past them. New orders still arrive through its list of new events, on the laptop that reads them first; other laptops see them once older events expire. ${capitalized(this.ports.advice.diagnose)} and send the result to the marketplace.`,
    });
  }

  /** Items kept aside since the user was last told: one message, what was wrong in its details. */
  private tellAside(): void {
    const untold = this.store.untoldAside();
    if (untold.length === 0) return;
    this.emit({ type: 'problem', ...describeAside(untold) });
    this.store.markTold(untold);
  }

  private tellNewListingFailure(problem: string | undefined): void {
    if (problem === undefined || this.newListingFailureTold) {
      this.newListingFailureTold = problem !== undefined;
      return;
    }
    this.newListingFailureTold = true;
    this.emit({
      type: 'problem',
      message: `The marketplace's list of new events does not work, so Seller Tray reads its full list of events instead: no order is missed. If this stays, ${this.ports.advice.diagnose} and send the result to the marketplace.`,
      details: [problem],
    });
  }

  /** Raises the queued announcements, one run at a time. */
  private announce(): Promise<void> {
    // One run that failed (the store damaged under it) is told by its caller; the next runs anew.
    this.announcing = this.announcing.catch(() => undefined).then(() => this.announceQueued());
    return this.announcing;
  }

  /**
   * Queued, raised, then marked raised: a crash before the mark raises again on the next start
   * (the only way to a duplicate); a crash before the raise loses nothing. Stopped (a quit, the
   * account closed), nobody hears them: they stay queued for the next start, or `watch`.
   */
  private async announceQueued(): Promise<void> {
    if (this.stopped) return;
    const paused = this.pausedUntil() !== null;
    let { pending, held } = this.store.claimAnnouncements(this.claimant, paused);
    if (pending.length + held.length === 0) return;
    await this.fetcher.settled([...pending, ...held], ANNOUNCE_WAIT_MS);
    // Stopped while it waited for their documents: let go, not marked raised unheard.
    if (this.stopped) return this.store.releaseAnnouncements(this.claimant, [...pending, ...held]);
    // An order found meanwhile to be another seller's has left the store: it is not announced.
    const stillStored = (orderIds: string[]) =>
      orderIds.filter((id) => this.store.storedOrder(id) !== undefined);
    pending = stillStored(pending);
    held = stillStored(held);
    const notify = this.ports.settings().notificationsEnabled;
    this.logAnnouncements('new-order', pending, notify);
    this.logAnnouncements('held-while-paused', held, notify);
    if (notify) {
      const requests = [...purchaseNotifications(this.briefs(pending)), ...resumeSummary(this.briefs(held))];
      for (const request of requests) this.emit({ type: 'notification', request });
    }
    this.emit({ type: 'orders-arrived', orderIds: [...pending, ...held] });
    this.store.markRaised([...pending, ...held], this.isoNow());
  }

  /** Starts the automations' runs that are due, or those of an order just read (none unless this laptop runs automations). */
  private runAutomations(orderId?: string): void {
    try {
      this.withStore(() => (orderId === undefined ? this.runner?.kick() : this.runner?.kickOrder(orderId)));
    } catch (error) {
      this.log.warn('automations could not start', failureFields(error));
    }
  }

  /** A run that failed for good, told once: in the banner, and as a notification unless they are off or paused. */
  private tellAutomationFailed(run: AutomationRun, detail: string, lastOutput: string): void {
    const brief = this.brief(run.orderId);
    this.emit({
      type: 'problem',
      message: `The automation ${run.automation} failed for the order of ${capped(plainText(brief.buyer), NAME_MAX)}: ${sentenceEnded(detail)} ${this.ports.advice.orderRuns(run.automation, run.orderId)}`,
      details: [`order ${run.orderId}`, `delivery ${run.deliveryId}`, ...(lastOutput ? [lastOutput] : [])],
    });
    if (this.ports.settings().notificationsEnabled && this.pausedUntil() === null) {
      this.emit({
        type: 'notification',
        request: automationFailedNotification(brief, run.automation, detail),
      });
    }
  }

  /** An order's automation runs, oldest first. */
  automationRuns(orderId: string): AutomationRun[] {
    return this.withStore(() => this.store.runsFor(canonicalOrderId(orderId)));
  }

  /**
   * One run, awaited: a test ("Test" in Settings, `seller-tray automations test`; event
   * order.test, never marks) or a Run again from the command line (`automations run-again`). The
   * order goes into the store first (from the marketplace when it is new here).
   */
  async runAutomationToEnd(
    orderId: string,
    automation: string,
    trigger: 'again' | 'test',
  ): Promise<AutomationRun> {
    await this.order(orderId);
    return this.runAutomation(orderId, automation, trigger).ended;
  }

  /**
   * Queues a run of the automation for the order under a new delivery id ("Run again", or a
   * `test`) and starts it: the run as queued, and once it ended (or waits to be tried again).
   */
  runAutomation(
    orderId: string,
    automation: string,
    trigger: 'again' | 'test',
  ): { queued: AutomationRun; ended: Promise<AutomationRun> } {
    const id = canonicalOrderId(orderId);
    const known = automationNamed(this.ports.settings().automations, automation);
    if (!known) throw new CodedError('not-found', `No automation is named ${automation} in the settings.`);
    const runner = this.runner;
    if (!runner) throw new CodedError('not-found', 'Automations do not run in this process.');
    const forbidden = this.ports.automations?.forbidden?.();
    if (forbidden) throw new CodedError('managed', `${capitalized(forbidden)}: ${known.name} was not run.`);
    const queued = this.withStore(() => {
      const deliveryId = this.store.queueRun(id, known.name, trigger, this.isoNow()) as string;
      return this.store.run(deliveryId) as AutomationRun;
    });
    this.emitChanged([id], false);
    const ended = runner.runNow(queued.deliveryId).then((run) => run ?? queued);
    return { queued, ended };
  }

  /**
   * Orders announced again (none while paused): a reminder once for each order still waiting after
   * the reminder delay, and, urgent, once for each new order nobody started within the escalation
   * delay (again when a snooze on this laptop ends), each counted from when this laptop could first
   * tell of the order (WAITS_SINCE in the store).
   */
  private async remind(): Promise<void> {
    // A first start's backlog gets its documents from the walk of the orders listing: reminded of
    // after it, by its buyers' names, not as "A buyer" (the walk is under way for a few seconds).
    if (this.pausedUntil() !== null || this.backlogWalk !== undefined) return;
    const settings = this.ports.settings();
    await this.announceAgain(
      'reminder',
      settings.reminderAfterMinutes,
      () => this.store.unremindedWaiting(this.isoNow()),
      (due, at) => this.store.markReminded(due, at),
    );
    await this.announceAgain(
      'urgent',
      settings.escalateAfterMinutes,
      () => this.store.unescalatedWaiting(this.isoNow()),
      (due, at) => this.store.markEscalated(due, at),
    );
  }

  private async announceAgain(
    kind: 'reminder' | 'urgent',
    afterMinutes: number,
    /** Read only when on: with it off none is ever marked, so they are every waiting order. */
    candidates: () => readonly { orderId: string; since: string }[],
    mark: (orderIds: string[], at: string) => void,
  ): Promise<void> {
    const afterMs = afterMinutes * 60_000;
    if (afterMs <= 0) return;
    const waiting = candidates()
      .map((o) => ({ orderId: o.orderId, since: Date.parse(o.since) }))
      .filter((o) => Number.isFinite(o.since));
    const due = dueReminders(waiting, new Set(), this.now(), afterMs).map((o) => o.orderId);
    if (due.length === 0) return;
    // Recorded before raised: never repeated, at worst lost to a crash.
    mark(due, this.isoNow());
    // An order whose document is still being fetched is named once it is, as a new order is.
    await this.fetcher.settled(due, ANNOUNCE_WAIT_MS);
    const { notificationsEnabled } = this.ports.settings();
    this.logAnnouncements(kind, due, notificationsEnabled);
    if (!notificationsEnabled) return;
    for (const request of reminderNotifications(
      this.briefs(due),
      waitedFor(afterMinutes),
      kind === 'urgent',
    )) {
      this.emit({ type: 'notification', request });
    }
  }

  /**
   * Puts off a new order's urgent announcement on this laptop until `until` (ISO): announced then
   * if nobody started it meanwhile. Other laptops announce it as they would.
   */
  snooze(id: string, until: string): void {
    const orderId = canonicalOrderId(id);
    if (!this.withStore(() => this.store.snooze(orderId, until))) {
      throw new NotFoundError('This laptop does not know that order.');
    }
    this.log.info('snoozed', { orderId, until });
    this.emit({ type: 'orders-updated', orderIds: [orderId], moved: false });
  }

  /**
   * Ticks a runbook's step on an order, or takes the tick back: this laptop's own record (no
   * marketplace call), kept in the store so it survives a restart. Answers the order's ticks.
   */
  tickRunbookStep(id: string, itemId: string, step: string, ticked: boolean): RunbookTick[] {
    const orderId = canonicalOrderId(id);
    return this.withStore(() => {
      if (!this.store.storedOrder(orderId)) throw new NotFoundError('This laptop does not know that order.');
      this.store.tickRunbookStep(orderId, itemId, step, ticked, this.isoNow());
      return this.store.runbookTicks(orderId);
    });
  }

  /** One line per order announced: what kind of announcement, and whether a notification showed it. */
  private logAnnouncements(kind: string, orderIds: readonly string[], notified: boolean): void {
    // A terminal (watch, run) shows no notification: it prints the new orders.
    const shown = notified && this.ports.advice.surface === 'app';
    for (const orderId of orderIds) this.log.info('announcement', { kind, orderId, notified: shown });
  }

  /**
   * A first start's backlog, in the background: one walk of the orders listing (a page of orders
   * per request) rather than a request per order, stored a batch at a time with the place reached
   * (a crash goes on from there). What the walk did not bring is then fetched order by order, and
   * the orders are indexed for search.
   */
  private async walkBacklog(): Promise<void> {
    const from = this.store.ordersWalkFrom() ?? 0;
    const batch: Order[] = [];
    const save = (reached: number | undefined) => {
      const orderIds = this.store.saveListedOrders(batch.splice(0), reached, this.isoNow());
      this.emitChanged(orderIds, true);
    };
    try {
      for await (const page of this.ports.client.allOrders(from)) {
        batch.push(...page.items);
        this.store.setAside(page.unreadable, this.isoNow());
        // Stopped (a quit), what was read is kept: the next start goes on after it.
        if (batch.length >= BACKLOG_BATCH || this.stopped) save(from + page.end);
        if (this.stopped) return;
      }
      save(undefined);
      this.tellAside();
    } catch (error) {
      this.backlogWalkFailed = true;
      const { message, details } = explainFailure(error, this.ports.advice);
      this.emit({
        type: 'problem',
        message: `Not every order could be read yet; Seller Tray reads the rest as it goes. ${message}`,
        details,
      });
    } finally {
      this.backlogWalk = undefined;
      if (!this.stopped) {
        this.fetcher.round();
        this.searchBuild ??= this.buildSearchIndex();
      }
    }
  }

  /**
   * Indexes the first start's orders for search, a batch per transaction, letting polls and views
   * in between; a search says it may miss orders until this ends (InboxPage.searchIncomplete).
   */
  private async buildSearchIndex(): Promise<void> {
    try {
      while (!this.stopped && this.withStore(() => this.store.indexForSearchLater(SEARCH_INDEX_BATCH)) > 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The store grew from nothing: the planner learns its tables' shape for the inbox's queries.
      if (!this.stopped) this.withStore(() => this.store.optimize());
    } catch (error) {
      this.log.warn('search index not built', failureFields(error));
    } finally {
      this.searchBuild = undefined;
    }
  }

  /** Fetches an order and its licenses into the store, one request at a time. */
  private async fetchOrder(orderId: string): Promise<void> {
    try {
      const order = await this.ports.client.getOrder(orderId);
      const licenses = await this.ports.client.listLicenses(orderId);
      const changed = this.store.atomically(() => {
        this.store.setAside(licenses.unreadable, this.isoNow());
        return this.store.saveOrder(orderId, order, licenses.items, this.isoNow());
      });
      if (changed) this.updated.add(orderId);
      // Its automations' runs wait for the order itself.
      this.runAutomations(orderId);
    } catch (error) {
      const neverRead = this.store.storedOrder(orderId)?.document === undefined;
      if (
        error instanceof SellerApiError &&
        error.operation === 'getOrder' &&
        error.status === 404 &&
        neverRead
      ) {
        // Never readable here: another seller's order, which the marketplace answers 404 rather
        // than reveal (design notes §2). One read before stays, its failed refresh shown beside it.
        // Told once: an order already set aside (a view asking for it again) changes nothing.
        const setAside = this.store.setOrderAside(
          orderId,
          (event) =>
            anotherSellers(event, 'orderId', `its order ${orderId} is not found for this account (HTTP 404)`),
          this.isoNow(),
        );
        if (setAside) {
          this.tellAside();
          this.emitChanged([orderId], true);
        }
      } else if (
        this.store.markFetchFailed(
          orderId,
          explainFailure(error, this.ports.advice),
          // The order's own trouble, not the marketplace's or the network's (which may pass).
          !(error instanceof SellerApiError && (error.transient || error.credentialsRejected)),
        ) &&
        // Views show the failure beside the stored order; one never read shows it only to whoever
        // opened it, answered with it (told, a view would open it again: another fetch, at once).
        !neverRead
      ) {
        this.updated.add(orderId);
      }
      // Its views are told of the failure and read it again: not a reason to fetch it once more.
      this.triedToFetch(orderId);
      throw error;
    }
  }

  /**
   * Whether opening an order should refresh it: not when it was fetched, or an open or a failed fetch
   * tried to, within the poll interval. Records the try.
   */
  private openRefreshDue(orderId: string, fetchedAt: string | null): boolean {
    const fetched = fetchedAt === null ? Number.NaN : Date.parse(fetchedAt);
    const interval = this.pollIntervalMs();
    // A fetch that reads as ahead of the clock (set back since) is as old as the interval, not younger.
    if (this.recentTries().has(orderId) || waitLeftMs(fetched + interval, interval, this.now()) > 0)
      return false;
    this.triedToFetch(orderId);
    return true;
  }

  private triedToFetch(orderId: string): void {
    const tries = this.recentTries();
    tries.delete(orderId);
    tries.set(orderId, this.now());
  }

  /** fetchTries less those a poll interval old, read from the oldest to the first recent: it holds one interval's tries. */
  private recentTries(): Map<string, number> {
    const [now, interval] = [this.now(), this.pollIntervalMs()];
    for (const [id, at] of this.fetchTries) {
      if (waitLeftMs(at + interval, interval, now) > 0) break; // the rest are later
      this.fetchTries.delete(id);
    }
    return this.fetchTries;
  }

  /**
   * When Seller Tray fetches again an order whose wait after a failed fetch ends at `due` (the
   * store's): at the first poll from then, whose round fetches what is due. The poll under way
   * counts as now; the polls after the next are an interval apart (without their ±10%). None
   * when no poll comes by itself (stopped, paused, credentials rejected).
   */
  private fetchAgainAt(due: string | null): string | null {
    const next = this.poller.nextPollAt ?? (this.poller.state === 'polling' ? this.now() : undefined);
    if (due === null || next === undefined) return null;
    const interval = this.pollIntervalMs();
    const polls = Math.max(0, Math.ceil((Date.parse(due) - next) / interval));
    return new Date(next + polls * interval).toISOString();
  }

  private pollIntervalMs(): number {
    return this.ports.settings().pollIntervalSeconds * 1000;
  }

  /** What notifications say of orders, from the store; an order not fetched yet is still told. */
  private briefs(orderIds: readonly string[]): OrderBrief[] {
    return orderIds.map((id) => this.brief(id));
  }

  private emitUpdated(): void {
    if (this.updated.size === 0) return;
    const orderIds = [...this.updated];
    this.updated.clear();
    // Fetched documents and fetch failures: what a row shows, not where it stands.
    this.emitChanged(orderIds, false);
    this.emitStatus();
  }

  private pausedUntil(): number | null {
    const until = this.ports.settings().pausedUntil;
    const ms = until ? Date.parse(until) : Number.NaN;
    return Number.isFinite(ms) && ms > this.now() ? ms : null;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * A failed poll is told through the status (connection and problem), not as a passing
   * message: the header and its banner show it while it lasts and drop it when a poll works.
   */
  private onPollerState(state: PollerState, error?: unknown): void {
    if (error !== undefined) {
      this.noteFailure(error);
      this.log.warn('poll failed', { ...failureFields(error), next: state });
    }
    const connection: Connection | undefined =
      state === 'idle'
        ? 'ok'
        : state === 'backing-off'
          ? failureKind(error)
          : state === 'credentials-rejected'
            ? 'credentials-rejected'
            : state === 'paused'
              ? 'paused'
              : undefined;
    if (connection === undefined) return;
    this.connection = connection;
    this.emitStatus();
  }

  private noteFailure(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error);
    this.problem = explainFailure(error, this.ports.advice);
  }

  /** A failure Check now met, shown before the poll's retries end (a success later clears it). */
  private showFailure(error: unknown): void {
    if (this.poller.state !== 'polling') return;
    this.noteFailure(error);
    this.connection = failureKind(error);
    this.emitStatus();
  }

  private emitStatus(): void {
    this.attentionCounts = this.countAttention();
    this.emit({ type: 'state-changed', status: this.status() });
  }

  /** Tells the views which stored orders changed, and whether rows may have moved (see CoreEvent). */
  private emitChanged(orderIds: string[], moved: boolean): void {
    if (orderIds.length > 0) this.emit({ type: 'orders-updated', orderIds, moved });
  }

  private emit(event: CoreEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * The events of this account, and those another seller's `sellerId` names (`own`, from the
 * token): kept aside, never announced.
 */
function ownEvents(
  events: readonly MarketplaceEvent[],
  own: string | undefined,
): { events: MarketplaceEvent[]; foreign: UnreadableItem[] } {
  const foreign = (event: MarketplaceEvent) => {
    const seller = sellerOf(event.sellerId);
    return own !== undefined && seller !== undefined && seller !== own;
  };
  return {
    events: events.filter((event) => !foreign(event)),
    foreign: events
      .filter(foreign)
      .map((event) =>
        anotherSellers(
          event,
          'sellerId',
          `seller ${sellerOf(event.sellerId)}, while this account is seller ${own}`,
        ),
      ),
  };
}

/**
 * A seller id as digits, from a number or a text of digits; anything else names no seller, and
 * so does one beyond 2^53, on either side: the token's JSON loses such digits, so a marketplace
 * whose seller ids are that large cannot be told apart by them (an order's 404 still tells).
 */
function sellerOf(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\s*\d+\s*$/.test(text)) return undefined;
  const digits = text.trim().replace(/^0+(?=\d)/, '');
  return Number.isSafeInteger(Number(digits)) ? digits : undefined;
}

function waitedFor(minutes: number): string {
  return minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
}

/** Whether `work` ended within `ms`, on the clock's own timer (tests drive the poller's by hand: a quit is real time). */
async function endedWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const ended = await Promise.race([work.then(() => true), late]);
  clearTimeout(timer);
  return ended;
}
