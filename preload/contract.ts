// The bridge contract between the renderer and the main process: every channel's name,
// the schema its request must pass, and the type of its answer, in one place. The main
// process validates every request with these schemas; the renderer is typed by them; the
// preload exposes exactly these channels and nothing else.
import { z } from 'zod';
import { MARKABLE_STATUSES } from '../main/core/order-status';
import type { OutboxItem } from '../main/core/outbox';
import type { CoreEvent, CoreStatus, OrderDetail } from '../main/core/seller-core';
import type { Settings } from '../main/core/settings';
import type { InboxRow } from '../main/core/store/account-store';
import { INBOX_SORTS } from './inbox-sort';

const OrderId = z.string().trim().min(1, 'an order id is required').max(100);

export const SetupStatus = z.enum(['unconfigured', 'configured', 'demo']);

/** What the header and the tray show. */
export interface AppState extends CoreStatus {
  setup: z.infer<typeof SetupStatus>;
  baseUrl: string;
  clientId: string;
  /** Whether a secret for the client id is in the keychain (the secret itself never leaves it). */
  secretStored: boolean;
}

/** An inbox row; buyer, product and total once the order has been fetched, absent until then. */
export type OrderListItem = InboxRow;

/** One page of the inbox, and how many orders the whole list has. */
export interface OrderPage {
  orders: OrderListItem[];
  offset: number;
  /** All orders that match the query, and how many of them wait for action. */
  total: number;
  waiting: number;
  /** The unopened arrivals that match, with their place in the whole list (at most 50). */
  unopened: { orderId: string; index: number }[];
}

/** The most rows one listOrders answer carries. */
export const MAX_PAGE = 500;

export type OrderView = OrderDetail;

/** What Check now found: the state after it, and how many new orders it brought. */
export interface CheckResult {
  state: AppState;
  newOrders: number;
}

export type ConnectionTest =
  | { ok: true; sellerId: number | null; stage: string | null }
  | { ok: false; reason: 'invalid-url' | 'unreachable' | 'tls' | 'credentials' | 'server'; message: string };

export const requests = {
  getState: z.undefined(),
  getSettings: z.undefined(),
  /** A partial settings update; the settings module validates each field. */
  setSettings: z.record(z.string(), z.unknown()),
  /** Write-only: the secret goes to the keychain and is never read back. */
  setSecret: z.strictObject({ secret: z.string().min(1, 'the client secret is empty').max(4096) }),
  testConnection: z.strictObject({
    baseUrl: z.string().max(2048),
    clientId: z.string().trim().min(1, 'the client id is empty').max(200),
    /** Omitted: the secret stored in the keychain is used. */
    secret: z.string().min(1).max(4096).optional(),
  }),
  listOrders: z.strictObject({
    filter: z.enum(['all', 'waiting', ...MARKABLE_STATUSES, 'ProvisioningStarted']).default('all'),
    search: z.string().max(200).default(''),
    /** Waiting orders first either way; then the longest waiting, or the newest, first. */
    sort: z.enum(INBOX_SORTS).default('longest-waiting'),
    offset: z.int().min(0).default(0),
    limit: z.int().min(1).max(MAX_PAGE).default(100),
  }),
  getOrder: z.strictObject({ orderId: OrderId }),
  markStatus: z
    .strictObject({
      orderId: OrderId,
      statusCode: z.enum(MARKABLE_STATUSES),
      description: z.string().trim().max(1000).default(''),
      detailedDescription: z.string().trim().max(4000).optional(),
      override: z.boolean().default(false),
    })
    .refine(
      (r) => r.statusCode !== 'ProvisioningFailed' || (r.description !== '' && !!r.detailedDescription),
      {
        message: 'a failure needs a description and a detailed description of the reason',
        path: ['detailedDescription'],
      },
    ),
  retryDelivery: z.strictObject({ requestId: z.guid() }),
  checkNow: z.undefined(),
  /** Runs the built-in simulator and connects to it: a working app without credentials. */
  startDemo: z.undefined(),
  /** Until when notifications are paused (ISO time), or null to resume. */
  pauseNotifications: z.strictObject({ until: z.iso.datetime({ offset: true }).nullable() }),
  /** Tries each operation the app reads with; the report is for a support ticket. */
  diagnose: z.undefined(),
} as const;

export type Channel = keyof typeof requests;
export type RequestOf<C extends Channel> = z.input<(typeof requests)[C]>;

export interface Responses {
  getState: AppState;
  getSettings: Settings;
  setSettings: Settings;
  setSecret: AppState;
  testConnection: ConnectionTest;
  listOrders: OrderPage;
  getOrder: OrderView;
  markStatus: OutboxItem;
  retryDelivery: OutboxItem;
  checkNow: CheckResult;
  startDemo: AppState;
  pauseNotifications: AppState;
  diagnose: DiagnosisReport;
}

/** What "Diagnose connection" found, as text to read and paste into a support ticket. */
export interface DiagnosisReport {
  report: string;
  /** An operation failed: the app cannot fully work with this marketplace. */
  failed: boolean;
}

/** The one object the preload exposes: a method per channel, and the event stream. */
export type Bridge = {
  [C in Channel]: (request: RequestOf<C>) => Promise<Responses[C]>;
} & {
  onEvent(
    listener: (event: CoreEvent | { type: 'app-state'; state: AppState } | ShellEvent) => void,
  ): () => void;
};

/** What the Electron shell tells the window: where to go after a notification or tray click. */
export type ShellEvent =
  | { type: 'open-order'; orderId: string }
  | { type: 'open-inbox' }
  | { type: 'open-settings' };

/** The IPC channel names, prefixed so they cannot collide with Electron's own. */
export const ipcChannel = (channel: Channel): string => `seller-tray:${channel}`;
export const EVENT_CHANNEL = 'seller-tray:event';

/**
 * A refusal: `message` says in plain words what happened and what to do; `details` hold the
 * technical facts (operation, HTTP status, request id) for a "Details" disclosure; `fields`
 * name the settings a refused change got wrong, each with its own message.
 */
export interface AnswerError {
  code: string;
  message: string;
  details?: string[];
  fields?: { field: string; message: string }[];
}

/** What every channel answers: the value, or an error a person can act on. */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: AnswerError };
