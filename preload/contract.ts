// The bridge contract between the renderer and the main process: every channel's name, the
// request it takes and the answer it gives, in one place. Plain types and values, importing
// nothing from main/: the preload and the window use it as it is. The main process checks every
// request with its schemas (main/core/bridge-requests.ts, held to these types by the compiler)
// and answers through one handler per channel (main/core/service.ts).
import type { AutomationRun, AutomationSetting, AutomationsView } from './automations';
import type { AnswerError } from './coded-error';
import type { InboxGroup, InboxSort } from './inbox-sort';
import type { Insights, InsightsRequest } from './insights';
import type {
  Attention,
  CoreEvent,
  CoreStatus,
  InboxRow,
  OrderDetail,
  OutboxItem,
  ResendOutcome,
  Settings,
  SettingsChange,
  UndoOutcome,
} from './model';
import type { MarkableStatus } from './order-status';
import type { RunbookTick } from './runbooks';
import type { SettingKey } from './settings-declaration';

/** Every channel, once: the preload exposes exactly these, the main process answers exactly these. */
export const CHANNELS = [
  'getState',
  'getSettings',
  'setSettings',
  'setSecret',
  'testConnection',
  'addAccount',
  'renameAccount',
  'removeAccount',
  'listOrders',
  'getOrder',
  'markStatus',
  'retryDelivery',
  'runAutomation',
  'getAutomations',
  'saveAutomation',
  'removeAutomation',
  'setAutomationSecret',
  'testAutomation',
  'undoMark',
  'getAttention',
  'getInsights',
  'resendStatus',
  'markAsideSeen',
  'snoozeOrder',
  'tickRunbookStep',
  'checkNow',
  'startDemo',
  'pauseNotifications',
  'diagnose',
  'getUpdateStatus',
  'checkForUpdates',
  'openLogFolder',
  'openInWindow',
  'exportStatuses',
] as const;
export type Channel = (typeof CHANNELS)[number];

/** Whether a name that came from another process is one of the channels. */
export function isChannel(name: string): name is Channel {
  return (CHANNELS as readonly string[]).includes(name);
}

/** The longest text each request field takes; the window's inputs say the same. */
export const LIMITS = {
  orderId: 100,
  /** An account's id (account-ref.ts: a 16-digit hash, or "demo"). */
  accountId: 64,
  /** Client ids are short tokens issued by the Seller Console; anything longer is a paste gone wrong. */
  clientId: 200,
  /** An account's label: short, as it shows beside each order ("EU", "US", "Test"). */
  accountLabel: 24,
  /** Generous for any issued secret, and far below what keychains accept. */
  secret: 4096,
  baseUrl: 2048,
  search: 200,
  /** A product's name as Insights groups by it (store/insights.ts keeps the first 200 characters). */
  productName: 200,
  description: 1000,
  detailedDescription: 4000,
  /** The most rows one listOrders answer carries. */
  page: 500,
} as const;

/** The rows of one inbox page the window asks for, and a listOrders without a limit gets. */
export const INBOX_PAGE_ROWS = 100;

/**
 * What the header and the tray show. The counts (waitingCount, pendingOutbox, attention) are every
 * served account's together; the rest of CoreStatus is the window's account's (`accounts` has each one's).
 */
export interface AppState extends CoreStatus {
  setup: 'unconfigured' | 'configured' | 'demo';
  baseUrl: string;
  clientId: string;
  /** Whether a secret for the client id is in the keychain (the secret itself never leaves it). */
  secretStored: boolean;
  /** The name this laptop writes into the statuses it posts: "Your name", or the computer account's. */
  actorName: string;
  /** What the organization's policies decide here. */
  managed: ManagedState;
  /** Every account of the settings' list, the window's (the one above) first. */
  accounts: AccountState[];
}

/** One account as the header and the tray show it beside the others (issue 23). */
export interface AccountState
  extends Pick<CoreStatus, 'connection' | 'lastSuccessfulPoll' | 'health' | 'problem'> {
  /** Its id, as inbox rows and order requests carry it. */
  id: string;
  label: string;
  baseUrl: string;
  clientId: string;
  /**
   * Served now: its secret is in the keychain (or it is the demo). Not served: it has none yet, or
   * its store could not be opened (`problem` says why).
   */
  open: boolean;
  pendingOutbox: number;
  /**
   * Until when its own pause holds its notifications (ISO time), null when it has none ahead. The
   * app's pause (AppState.notificationsPausedUntil) holds every account's besides.
   */
  notificationsPausedUntil: string | null;
}

/** What an organization's policies (main/core/policy/) decide for this laptop, as the window shows it. */
export interface ManagedState {
  /** The settings a policy locks: shown with a lock and "Managed by your organization", refused if changed. */
  locked: SettingKey[];
  /** Whether "Try the demo" is offered. */
  demoAllowed: boolean;
  /** Whether automations may run on this computer (policy automationsAllowed): Run again is offered. */
  automationsAllowed: boolean;
  /** The shortest check interval the organization allows; null when it sets none. */
  pollIntervalMinimumSeconds: number | null;
  /**
   * The language and region the organization has the app write in (policy `locale`, such as
   * en-GB): the window's dates, numbers and amounts, as the notifications'; null: the window's own.
   */
  locale: string | null;
}

/** A laptop no organization manages. */
export const UNMANAGED_STATE: ManagedState = Object.freeze({
  locked: [],
  demoAllowed: true,
  automationsAllowed: true,
  pollIntervalMinimumSeconds: null,
  locale: null,
});

/** The inbox's filters: all orders, or those of one status (New is ProvisioningStarted). */
export const INBOX_FILTERS = [
  'all',
  'ProvisioningStarted',
  'ProvisioningInProgress',
  'ProvisioningCompleted',
  'ProvisioningFailed',
] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

/** An inbox row; buyer, product and total once the order has been fetched, absent until then. */
export type OrderListItem = InboxRow & {
  /** The account the order belongs to (its id): a mark of it is posted by that account only. */
  account: string;
};

/** One page of the inbox, and how many orders the whole list has. */
export interface OrderPage {
  orders: OrderListItem[];
  offset: number;
  /** The rows of the whole list (a folded backlog's are not in it), and how many orders wait for action. */
  total: number;
  waiting: number;
  /** The list's groups, top to bottom (preload/inbox-sort.ts), each with its place and size. */
  groups: InboxGroup[];
  /** The unopened arrivals that match, with their place in the whole list (at most 50). */
  unopened: { orderId: string; index: number }[];
  /** When the groups next change by the clock alone (an arrival an hour old, an order stalling; ISO), or null. */
  regroupsAt: string | null;
  /** A search while the first start's orders are still being indexed for search: it may miss some. */
  searchIncomplete?: true;
}

export type OrderView = OrderDetail;

/** What Check now found: the state after it, and how many new orders it brought. */
export interface CheckResult {
  state: AppState;
  newOrders: number;
}

export type ConnectionTest =
  | { ok: true; sellerId: number | null; stage: string | null }
  | {
      ok: false;
      reason: 'invalid-url' | 'unreachable' | 'tls' | 'credentials' | 'wrong-address' | 'refused' | 'server';
      message: string;
    };

/** What "Diagnose connection" found, as text to read and paste into a support ticket. */
export interface DiagnosisReport {
  report: string;
  /** An operation failed: the app cannot fully work with this marketplace. */
  failed: boolean;
}

/** What this copy of the app can do about updates (main/shell/updater.ts; About says it in words). */
export const UPDATE_AVAILABILITIES = [
  /** It updates itself from the feed its build names. */
  'updater',
  /** Built without an update feed. */
  'no-feed',
  /** A deb (rpm) install: its package manager updates it. */
  'package-manager',
  /** Installed for every user, or updates turned off by a policy: the organization deploys them. */
  'managed',
  /** `npm start`. */
  'development',
  /** Anything else: an unpacked folder, the browser preview. */
  'unsupported',
] as const;

/** The About panel: the version, its channel, and where updates stand. */
export interface UpdateStatus {
  version: string;
  /** The update channel: `latest`, or a pre-release's (`beta`, `alpha`). */
  channel: string;
  availability: (typeof UPDATE_AVAILABILITIES)[number];
  /** The last check: when, and what came of it in words; null before the first. */
  lastCheck: { at: string; result: string; failed: boolean } | null;
  checking: boolean;
  /** A downloaded version that a restart installs; null when none. */
  ready: string | null;
  /** A restart was asked for and waits for this many statuses to be sent; null when none waits. */
  restartWaitsFor: number | null;
}

/** Where the log file is, and whether its folder was opened (the browser preview cannot: it shows the path). */
export interface LogFolder {
  path: string;
  opened: boolean;
}

/** What each channel takes, as the window sends it (optional fields take their defaults). */
export interface Requests {
  getState: undefined;
  getSettings: undefined;
  /** A partial settings update; the main process checks each field. */
  setSettings: SettingsChange;
  /** Write-only: the secret goes to the keychain and is never read back. */
  setSecret: { secret: string };
  testConnection: {
    baseUrl: string;
    clientId: string;
    /** Omitted: the secret stored in the keychain is used. */
    secret?: string | undefined;
  };
  /**
   * Adds an account at the end of the list, its secret checked with the marketplace first; a label
   * already listed is reconnected (its new secret checked, then stored; the address may be left out).
   */
  addAccount: { label: string; baseUrl?: string | undefined; clientId?: string | undefined; secret: string };
  /** `account`: its id (AccountState.id). */
  renameAccount: { account: string; label: string };
  /** Deletes its keychain entry and data; refused while it has statuses to deliver, unless discarded. */
  removeAccount: { account: string; discardUndelivered?: boolean | undefined };
  listOrders: {
    filter?: InboxFilter | undefined;
    search?: string | undefined;
    /** Waiting orders first either way; then the longest waiting (default), or the newest, first. */
    sort?: InboxSort | undefined;
    /** The first sync's waiting orders in the list or folded away; by their number when not said. */
    backlog?: 'shown' | 'hidden' | undefined;
    /** One account's orders only (its id, AccountState.id); every served account's when not said. */
    account?: string | undefined;
    offset?: number | undefined;
    limit?: number | undefined;
  };
  /**
   * `account`: the row's, where the window has it (an order id may be in two marketplaces).
   * `reread`: the view reads again the order it shows (told of a change): the store's only, no
   * refresh from the marketplace, which only opening the order may ask for.
   */
  getOrder: { orderId: string; account?: string | undefined; reread?: boolean | undefined };
  /** A failure needs a description and a detailed description of the reason. */
  markStatus: {
    orderId: string;
    /** The row's account: the status is posted by that account only. */
    account?: string | undefined;
    statusCode: MarkableStatus;
    description?: string | undefined;
    detailedDescription?: string | undefined;
    /** The user confirmed an unusual transition. */
    override?: boolean | undefined;
  };
  /** `account`: the item's, where the window has it (Needs attention). */
  retryDelivery: { requestId: string; account?: string | undefined };
  /** The order page's "Run again": a new run of the automation for the order (docs/automations.md). */
  runAutomation: { orderId: string; automation: string; account?: string | undefined };
  /** Settings → Automations (docs/automations.md). */
  getAutomations: undefined;
  /** Adds the automation, or puts it in place of the one named `replaces` (whose name it keeps). */
  saveAutomation: { automation: AutomationSetting; replaces?: string | undefined };
  /** Removes it and its secret from the keychain; its runs stay in the orders' history. */
  removeAutomation: { automation: string };
  /** A webhook's signing secret, or a Slack or Teams incoming-webhook address, into the keychain. */
  setAutomationSecret: { automation: string; secret: string };
  /** Runs it once now for the order (event order.test), as `seller-tray automations test` does; marks nothing. */
  testAutomation: { automation: string; orderId: string; account?: string | undefined };
  /** Takes back a marked status still in its grace period (the settings' undoSeconds). */
  undoMark: { requestId: string };
  /** The Needs attention view, from the store (no marketplace call). */
  getAttention: undefined;
  /** The Insights view's figures for a period, from the stores (no marketplace call). */
  getInsights: InsightsRequest;
  /** Sends again a status the marketplace's listing did not show, after checking it is really absent. */
  resendStatus: { requestId: string; account?: string | undefined };
  /** The items kept aside up to this id (of `account`, the window's when not said) were looked at: they leave Needs attention. */
  markAsideSeen: { upToId: number; account?: string | undefined };
  /** Puts off a new order's urgent announcement on this laptop until then (ISO time). */
  snoozeOrder: { orderId: string; until: string; account?: string | undefined };
  /** Ticks a step of a product's runbook on an order, on this laptop (or takes the tick back). */
  tickRunbookStep: {
    orderId: string;
    account?: string | undefined;
    itemId: string;
    step: string;
    ticked: boolean;
  };
  checkNow: undefined;
  /** Runs the built-in simulator and connects to it: a working app without credentials. */
  startDemo: undefined;
  /**
   * Until when notifications are paused (ISO time), or null to resume: the app's, or with
   * `account` (its id) that account's alone, the others' notifications going on.
   */
  pauseNotifications: { until: string | null; account?: string | undefined };
  /** Tries each operation the app reads with; the report is for a support ticket. */
  diagnose: undefined;
  getUpdateStatus: undefined;
  /** Checks the update feed now (and downloads a newer version in the background). */
  checkForUpdates: undefined;
  /** Shows the folder of the log file in the file manager, for a support ticket. */
  openLogFolder: undefined;
  /** The tray popover's "Open in a window": the full-size window (the desktop app only). */
  openInWindow: undefined;
  /** Proof of delivery: every status marked here (all accounts), as CSV, saved where the user picks; from a day (YYYY-MM-DD, UTC) on when given. */
  exportStatuses: { since?: string | undefined };
}

export type RequestOf<C extends Channel> = Requests[C];

export interface Responses {
  getState: AppState;
  getSettings: Settings;
  setSettings: Settings;
  setSecret: AppState;
  testConnection: ConnectionTest;
  addAccount: AppState;
  renameAccount: AppState;
  removeAccount: AppState;
  listOrders: OrderPage;
  getOrder: OrderView;
  markStatus: OutboxItem;
  retryDelivery: OutboxItem;
  runAutomation: AutomationRun;
  getAutomations: AutomationsView;
  saveAutomation: AutomationsView;
  removeAutomation: AutomationsView;
  setAutomationSecret: AutomationsView;
  testAutomation: AutomationRun;
  undoMark: { outcome: UndoOutcome };
  getAttention: Attention;
  getInsights: Insights;
  resendStatus: { outcome: ResendOutcome; item: OutboxItem };
  markAsideSeen: AppState;
  snoozeOrder: { snoozedUntil: string };
  /** The order's ticks after the change. */
  tickRunbookStep: { ticks: RunbookTick[] };
  checkNow: CheckResult;
  startDemo: AppState;
  pauseNotifications: AppState;
  diagnose: DiagnosisReport;
  getUpdateStatus: UpdateStatus;
  checkForUpdates: UpdateStatus;
  openLogFolder: LogFolder;
  openInWindow: { opened: true };
  exportStatuses: StatusExport;
}

/** What an export of the statuses came to: how many rows, and the file, or null when the user cancelled the dialog. */
export interface StatusExport {
  rows: number;
  path: string | null;
}

/**
 * What the service tells the app: the core's events, its status not as it is ('state-changed')
 * but within the whole app state the header and the tray show ('app-state').
 */
export type ServiceEvent =
  | Exclude<CoreEvent, { type: 'state-changed' }>
  | { type: 'app-state'; state: AppState };

/** What the main process sends the window, unasked. */
export type AppEvent = ServiceEvent | ShellEvent | { type: 'update-status'; status: UpdateStatus };

/**
 * The one object the preload exposes: a method per channel, each resolving to the main process's
 * `Answer` as it was sent (a failure of the way there, too, is an `Answer`: it never rejects), and
 * the event stream. The window unwraps answers in one place (renderer/bridge/call.ts).
 */
export type Bridge = {
  [C in Channel]: (request: RequestOf<C>) => Promise<Answer<Responses[C]>>;
} & {
  onEvent(listener: (event: AppEvent) => void): () => void;
};

/** What the Electron shell tells the window: where to go after a notification or tray click (Settings, Help). */
export type ShellEvent =
  /** An order of that account (its id): the same id may be another account's order too. */
  | { type: 'open-order'; orderId: string; account?: string | undefined }
  | { type: 'open-inbox' }
  | { type: 'open-attention' }
  | { type: 'open-insights' }
  | { type: 'open-settings' }
  | { type: 'open-help' }
  /** How the window is shown now: the popover at the tray icon, or the full-size window. */
  | { type: 'window-mode'; mode: 'popover' | 'window' };

/** The IPC channel names, prefixed so they cannot collide with Electron's own. */
export const ipcChannel = (channel: Channel): string => `seller-tray:${channel}`;
export const EVENT_CHANNEL = 'seller-tray:event';

export type { AnswerError } from './coded-error';

/** What every channel answers: the value, or an error a person can act on (a `CodedError`'s data). */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: AnswerError };

/** The answer of a call that failed on its way (no process answered it). */
export function failedAnswer(code: string, message: string): Answer<never> {
  return { ok: false, error: { code, message } };
}
