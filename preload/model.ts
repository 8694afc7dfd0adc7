// What the main process tells every other process about the app and its orders: the core's
// status and events, an order as the window shows it, the inbox's rows, the status outbox and the
// settings (each declared in settings-declaration.ts). Plain types only, declared once here; the main
// process's zod schemas for the stored forms (outbox items, settings) are checked by the compiler to
// read exactly these.
import type { AutomationRun } from './automations';
import type { License, MarketplaceEvent, Order } from './marketplace';
import type { Money } from './money';
import type { MarkableStatus } from './order-status';
import type { RunbookTick } from './runbooks';
import type { ChangeableKey, DeclaredSettings } from './settings-declaration';

/**
 * How a failed poll leaves the connection: the marketplace could not be reached (offline), it
 * answered with a server error or asked to slow down (server-problem), it refused the
 * credentials, or it answered in a way that cannot be used (failing).
 */
export type FailureKind = 'offline' | 'server-problem' | 'credentials-rejected' | 'failing';

/** How the app stands with the marketplace, as the header and the tray say it. */
export type Connection = 'starting' | 'ok' | 'paused' | FailureKind;

/**
 * Whether the marketplace is being read (main/core/liveness.ts): healthy, stale (no successful
 * poll for 3 intervals awake: the tray warns), down (stale for 15 minutes more: one notification).
 */
export type Health = 'healthy' | 'stale' | 'down';

/** A failure for people (main/core/failure-words.ts): what happened and what to do, and the detail. */
export interface Explained {
  /** What happened and what to do, in plain words. */
  message: string;
  /** The technical detail, one fact a line; may quote the server (shown as its text). */
  details: string[];
  /** When Seller Tray tries again by itself (ISO time), when it does (AnswerError's). */
  retryAt?: string | undefined;
}

export interface CoreStatus {
  connection: Connection;
  /** When a poll last read the marketplace (ISO), kept across restarts; null before the first. */
  lastSuccessfulPoll: string | null;
  health: Health;
  /** The last poll's failure, technically (for logs and the CLI); null once a poll works. */
  lastError: string | null;
  /** The same failure for people, shown while it lasts; null once a poll works. */
  problem: Explained | null;
  waitingCount: number;
  pendingOutbox: number;
  notificationsPausedUntil: string | null;
  /** How many things of each kind need attention (the Needs attention view); the tray counts them. */
  attention: AttentionCounts;
}

/** What needs attention, by kind (the Needs attention view lists them). */
export interface AttentionCounts {
  /** New orders not started after the reminder delay (they are waiting orders too). */
  notStarted: number;
  /** In progress without a final status after the settings' limit. */
  stalled: number;
  /** Statuses posted here that the marketplace's listing has not shown after a few polls. */
  unconfirmed: number;
  /** Statuses the marketplace refused. */
  failed: number;
  /** Items the marketplace sent that could not be read, since they were last looked at. */
  keptAside: number;
}

/** Nothing needs attention (no account yet). */
export const NO_ATTENTION: AttentionCounts = {
  notStarted: 0,
  stalled: 0,
  unconfirmed: 0,
  failed: 0,
  keptAside: 0,
};

/** What the tray counts: the waiting orders, and what needs attention beside them. */
export function trayCount(status: Pick<CoreStatus, 'waitingCount' | 'attention'>): number {
  const { stalled, unconfirmed, failed, keptAside } = status.attention;
  return status.waitingCount + stalled + unconfirmed + failed + keptAside;
}

/** All that needs attention, as the window's Needs attention count says. */
export function attentionTotal(counts: AttentionCounts): number {
  return counts.notStarted + counts.stalled + counts.unconfirmed + counts.failed + counts.keptAside;
}

/** A status marked here that needs attention, with what the inbox shows of its order. */
export interface AttentionMark {
  item: OutboxItem;
  buyer?: string;
  product?: string;
}

/** An item kept aside as unreadable, as the Needs attention view lists it (its text is the server's). */
export interface KeptAsideItem {
  id: number;
  kind: string;
  key: string;
  fieldPath: string;
  reason: string;
  seenAt: string;
}

/** One account's Needs attention (SellerCore.attention): each kind's total and its first rows (at most ATTENTION_SHOWN each). */
export interface AccountAttention {
  counts: AttentionCounts;
  notStarted: InboxRow[];
  stalled: InboxRow[];
  unconfirmed: AttentionMark[];
  failed: AttentionMark[];
  keptAside: KeptAsideItem[];
  /** The limits the lists were drawn with: the reminder delay (minutes, 0 = off) and the in-progress limit (days, 0 = off). */
  reminderAfterMinutes: number;
  stalledAfterDays: number;
  /** The escalation delay (minutes, 0 = off): a new order not started is announced again, urgent, then. */
  escalateAfterMinutes: number;
  /** The orders of notStarted whose urgent announcement is snoozed on this laptop, and until when (ISO). */
  snoozed: Record<string, string>;
}

/** An item of the Needs attention view, with the account it is of (its id): its actions go to that account. */
export type OfAccount<T> = T & { account: string };

/** A new order not started, or one stalled, in the Needs attention view. */
export type AttentionOrder = OfAccount<InboxRow> & {
  /** Until when its urgent announcement is snoozed on this laptop (ISO), if it is. */
  snoozedUntil?: string;
};

/**
 * The Needs attention view over every served account (main/core/attention-across.ts): each kind's
 * total summed, its first rows merged in one account's order (at most ATTENTION_SHOWN of each
 * kind), each row naming its account. The limits are the settings' (the same for every account).
 */
export interface Attention
  extends Pick<
    AccountAttention,
    'counts' | 'reminderAfterMinutes' | 'stalledAfterDays' | 'escalateAfterMinutes'
  > {
  notStarted: AttentionOrder[];
  stalled: AttentionOrder[];
  unconfirmed: OfAccount<AttentionMark>[];
  failed: OfAccount<AttentionMark>[];
  keptAside: OfAccount<KeptAsideItem>[];
}

/** The most rows of each kind the Needs attention view is sent. */
export const ATTENTION_SHOWN = 50;

/** What "Send again" for a status the marketplace did not show came to. */
export type ResendOutcome =
  /** It was found after all (the check read it): nothing was sent. */
  | 'found'
  /** It was absent: posted again as a new status, through the outbox. */
  | 'sent-again';

/** A notification to raise: its text is already plain and capped (marketplace-text.ts). */
export interface NotificationRequest {
  /**
   * connection: the marketplace has not been read for a while, or is read again (liveness.ts);
   * urgent: a new order nobody started within the escalation delay; automation-failed: a run of
   * an automation failed (told once).
   */
  kind: 'order' | 'summary' | 'reminder' | 'urgent' | 'connection' | 'automation-failed';
  title: string;
  body: string;
  /** The order a click opens; a summary opens the inbox. */
  orderId?: string;
  /** The account the notification is about (its id, set by the service): a click opens its order. */
  account?: string;
}

export type CoreEvent =
  | { type: 'state-changed'; status: CoreStatus }
  | { type: 'notification'; request: NotificationRequest }
  /** New orders, whether notified or not (paused, notifications off): for the CLI's watch. */
  | { type: 'orders-arrived'; orderIds: string[] }
  /**
   * Stored orders changed: views showing them read them again. `moved`: rows may have moved in the
   * inbox and its counts changed (a status, an order new or gone); otherwise only these rows
   * changed, each in its place (its document fetched, a fetch failure, opened).
   */
  | { type: 'orders-updated'; orderIds: string[]; moved: boolean }
  /** Something the user should know; `details` say more, one click away. */
  | { type: 'problem'; message: string; details?: string[] };

/** A status the user marked, kept until the marketplace confirmed it (main/core/outbox.ts). */
export interface OutboxItem {
  /** Also the X-Request-ID of every post of this item. */
  requestId: string;
  orderId: string;
  statusCode: MarkableStatus;
  description: string;
  detailedDescription?: string | undefined;
  createdAt: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  /** Why the last post failed (pending: it is tried again; failed: the user may send it again). */
  problem?: Explained | undefined;
  /** The stored event, once the server confirmed it. */
  eventId?: string | undefined;
  /** When the marketplace accepted the post (ISO time). */
  sentAt?: string | undefined;
  /**
   * The HTTP status of the marketplace's answer to its last post: a 2xx took it, a 4xx refused it.
   * Absent while none came (a network failure), and when the status was found by reading back.
   */
  httpStatus?: number | undefined;
  /** Held until this moment (ISO time), so it can be undone; absent: sent at once (preload/hold.ts). */
  notBefore?: string | undefined;
  /** A post of it may have reached the marketplace unconfirmed (its answer was lost): read back before posting again. */
  mayBePosted?: boolean | undefined;
  /** Sent: how many successful polls this laptop had made then (it is unconfirmed a few polls later). */
  sentAtPoll?: number | undefined;
  /** When a listing read by a poll showed it (ISO time): confirmed. */
  readBackAt?: string | undefined;
  /** The step of the order it was marked after, which its post names (preload/post-reference.ts). */
  after?: string | undefined;
}

/**
 * A status marked here that has left the outbox, kept a while so that every view can say what
 * became of it: undone before it was sent, or confirmed (the marketplace's history lists it).
 */
export interface SettledMark {
  requestId: string;
  orderId: string;
  statusCode: MarkableStatus;
  createdAt: string;
  outcome: 'undone' | 'confirmed';
  /** When it was undone or read back (ISO time). */
  settledAt: string;
}

/** What undoing a marked status came to (main/core/outbox.ts). */
export type UndoOutcome =
  /** It was still held: it is gone, and the marketplace never hears of it. */
  | 'undone'
  /** Its grace period had ended: it is sent, or on its way. */
  | 'already-sent'
  /** No such status (undone already, or confirmed and forgotten). */
  | 'unknown';

/** An order as the window shows it. */
export interface OrderDetail {
  order: Order;
  /** Null while they have not been read from the marketplace (it did not answer yet). */
  licenses: License[] | null;
  history: MarketplaceEvent[];
  outbox: OutboxItem[];
  /** This order's marks that left the outbox lately (undone or confirmed), oldest first. */
  settled: SettledMark[];
  /** While it waits, since when for this laptop: as its inbox row's (InboxRow.waitingSince). */
  waitingSince?: string;
  /**
   * The request ids of its statuses sent from here that the marketplace's listing did not show
   * after a few polls (Needs attention lists them too); absent: none.
   */
  unconfirmed?: string[];
  status: string | undefined;
  /** When the order shown was fetched from the marketplace. */
  fetchedAt: string | null;
  /** Why the last refresh failed, when it did (what happened and what to do): the order shown is then the stored one. */
  refreshProblem: Explained | null;
  /** When Seller Tray reads it again by itself after that failure (ISO time); null when it does not wait to. */
  refreshAgainAt: string | null;
  /**
   * The status went back (another laptop marked it In progress after it was Completed), in words:
   * "Marked In progress by Anna Virtanen after it was Completed"; absent otherwise.
   */
  statusReversal?: string;
  /** What this laptop's automations did for the order (docs/automations.md), oldest first. */
  automationRuns: AutomationRun[];
  /** The runbook steps ticked on the order on this laptop (preload/runbooks.ts). */
  runbookTicks: RunbookTick[];
}

/** An inbox row; buyer, product and total once the order has been fetched, absent until then. */
export interface InboxRow {
  orderId: string;
  status: string | undefined;
  /** The purchase event's type (ServicePurchased, Trial, UpgradeToPurchase, or one not known). */
  purchaseType: string | undefined;
  since: string | undefined;
  /**
   * While it waits, when its wait started for this laptop (the store's WAITS_SINCE: its arrival
   * here, for the marketplace's clock may be hours off this laptop's): what "Waiting 5 min", "late"
   * and Needs attention's not started count from.
   */
  waitingSince?: string;
  /** When the order got its current status (the latest event, or the user's unconfirmed mark). */
  statusSince: string | undefined;
  waiting: boolean;
  /** It arrived on this laptop (not in a first start's backlog) and has not been opened here. */
  unopened: boolean;
  /** It waits since the first sync (there before Seller Tray first ran): not an alarm. */
  backlog: boolean;
  /**
   * Its latest mark's state; 'retrying' is one still pending after a post that failed (offline, a
   * server error), which Seller Tray tries again: "not sent yet", as the order page says.
   */
  delivery: OutboxItem['state'] | 'retrying' | null;
  buyer?: string;
  product?: string;
  /** The order's total as a number and currency: the window writes it as the order page does. */
  total?: Money;
}

/** The user's settings: each declared once, with its limits, in settings-declaration.ts. */
export type Settings = DeclaredSettings;
export type { ApiSection } from './settings-declaration';

/** A change the window or the CLI may ask for: any setting but the file-only ones (`api`). */
export type SettingsChange = Partial<Pick<Settings, ChangeableKey>>;
