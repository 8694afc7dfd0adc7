// An in-memory Bridge for the component tests: it answers each channel from plain data, as the
// main process does (an `Answer`: a handler that throws a `CodedError` answers with its error),
// records every call, and lets a test emit events or replace a channel's behaviour. The
// real bridge (preload, preview server) is exercised end to end by the browser tests.

import { type AccountId, accountRef } from '../../../main/core/account/account-ref';
import { AutomationEditor } from '../../../main/core/automation/automation-editing';
import { silentLog } from '../../../main/core/log';
import { DEFAULT_SETTINGS as APP_DEFAULT_SETTINGS } from '../../../main/core/settings';
import { summarizeInsights } from '../../../main/core/store/insights';
import type { AutomationRun, AutomationSetting, RunTrigger } from '../../../preload/automations';
import { CodedError } from '../../../preload/coded-error';
import {
  type AccountState,
  type Answer,
  type AppEvent,
  type AppState,
  type Bridge,
  type Channel,
  type OrderListItem,
  type OrderView,
  type RequestOf,
  type Responses,
  UNMANAGED_STATE,
  type UpdateStatus,
} from '../../../preload/contract';
import { backlogShown, INBOX_GROUPS, type InboxGroupName } from '../../../preload/inbox-sort';
import { describeMark } from '../../../preload/marked-by';
import type { MarketplaceEvent } from '../../../preload/marketplace';
import { type Attention, NO_ATTENTION, type OutboxItem, type Settings } from '../../../preload/model';
import { isUsualTransition } from '../../../preload/order-status';
import { statusLabel } from '../../../preload/status-words';
import { asCodedError } from '../../../renderer/bridge/call';
import { memorySecrets } from '../memory-secrets';
import { queuedRun } from '../queued-run';

/** What the fake sends the window: all the main process may send, the shell's events too. */
export type FakeEvent = AppEvent;

type Handler<C extends Channel> = (request: RequestOf<C>) => Responses[C] | Promise<Responses[C]>;
export type Handlers = { [C in Channel]?: Handler<C> };

/** The app's defaults, with an account configured. */
export const DEFAULT_SETTINGS: Settings = {
  ...APP_DEFAULT_SETTINGS,
  baseUrl: 'https://marketplace.example',
  clientId: 'seller-client',
};

export function appState(overrides: Partial<AppState> = {}): AppState {
  return {
    setup: 'configured',
    baseUrl: DEFAULT_SETTINGS.baseUrl,
    clientId: DEFAULT_SETTINGS.clientId,
    secretStored: true,
    actorName: 'Anna Virtanen',
    managed: UNMANAGED_STATE,
    connection: 'ok',
    lastSuccessfulPoll: '2026-11-21T10:00:00.000Z',
    lastError: null,
    problem: null,
    waitingCount: 0,
    pendingOutbox: 0,
    notificationsPausedUntil: null,
    health: 'healthy',
    attention: NO_ATTENTION,
    accounts: [],
    ...overrides,
  };
}

/** One account of the settings' list, served and well unless `overrides` say otherwise. */
export function accountState(label: string, overrides: Partial<AccountState> = {}): AccountState {
  return {
    id: `id-${label.toLowerCase()}`,
    label,
    baseUrl: `https://${label.toLowerCase()}.marketplace.example`,
    clientId: `${label.toLowerCase()}-client`,
    open: true,
    connection: 'ok',
    lastSuccessfulPoll: '2026-11-21T10:00:00.000Z',
    health: 'healthy',
    problem: null,
    pendingOutbox: 0,
    notificationsPausedUntil: null,
    ...overrides,
  };
}

const UP_TO_DATE_CHECK = {
  at: '2026-11-21T08:00:00.000Z',
  result: 'Seller Tray 0.1.0 is up to date.',
  failed: false,
};
/** An app that updates itself and found nothing newer at its last check. */
export const UP_TO_DATE: UpdateStatus = {
  version: '0.1.0',
  channel: 'latest',
  availability: 'updater',
  lastCheck: UP_TO_DATE_CHECK,
  checking: false,
  ready: null,
  restartWaitsFor: null,
};

export interface FakeBridgeOptions {
  state?: Partial<AppState>;
  settings?: Partial<Settings>;
  orders?: OrderListItem[];
  views?: OrderView[];
  /** What the Needs attention view is answered; nothing by default. */
  attention?: Attention;
  handlers?: Handlers;
  /** The organization manages the automations (Settings → Automations is read only). */
  automationsManaged?: boolean;
  /** The person's answer in the shell's dialog allowing a command automation (default: allowed). */
  allowCommand?: (automation: AutomationSetting) => boolean;
}

/** Nothing needs attention, with the default limits. */
export const NOTHING_TO_ATTEND: Attention = {
  counts: NO_ATTENTION,
  notStarted: [],
  stalled: [],
  unconfirmed: [],
  failed: [],
  keptAside: [],
  reminderAfterMinutes: APP_DEFAULT_SETTINGS.reminderAfterMinutes,
  stalledAfterDays: APP_DEFAULT_SETTINGS.staleInProgressDays,
  escalateAfterMinutes: APP_DEFAULT_SETTINGS.escalateAfterMinutes,
};

export interface FakeBridge extends Bridge {
  /** Every call, in order: the channel and the request as sent. */
  readonly calls: { channel: Channel; request: unknown }[];
  callsOf<C extends Channel>(channel: C): RequestOf<C>[];
  state: AppState;
  settings: Settings;
  orders: OrderListItem[];
  readonly views: Map<string, OrderView>;
  /** The keychain's entries the automations' editor wrote: `<entry's client id>@<origin>` → secret. */
  readonly keychain: Map<string, string>;
  /** Replaces a channel's behaviour (throw a `CodedError` to fail it). */
  handle<C extends Channel>(channel: C, handler: Handler<C>): void;
  emit(event: FakeEvent): void;
  readonly listenerCount: number;
}

/** Which group of the inbox a fake row is in (the store's groups by time are tested with the store). */
function fakeGroupOf(order: OrderListItem): InboxGroupName {
  if (order.backlog) return 'backlog';
  return order.waiting ? 'waiting' : 'rest';
}

export function createFakeBridge(options: FakeBridgeOptions = {}): FakeBridge {
  const calls: { channel: Channel; request: unknown }[] = [];
  const listeners = new Set<(event: FakeEvent) => void>();
  const handlers: Handlers = { ...options.handlers };
  const views = new Map((options.views ?? []).map((view) => [view.order.orderId ?? '', view]));
  let requestCounter = 0;
  /** An order's status before each mark, for undoing it. */
  const statusBefore = new Map<string, string | undefined>();
  /** Marks of orders that have only an inbox row (no order page), by request id. */
  const rowMarks = new Map<string, OutboxItem>();
  const setRowStatus = (orderId: string, status: string | undefined) => {
    fake.orders = fake.orders.map((o) =>
      o.orderId === orderId ? { ...o, status, waiting: status === 'ProvisioningStarted' } : o,
    );
  };

  const fake = {
    calls,
    state: appState(options.state),
    settings: { ...DEFAULT_SETTINGS, ...options.settings },
    orders: options.orders ?? [],
    views,
    keychain: new Map<string, string>(),
  };

  // The real editor (its checks are the settings file's) over the fake's settings and a keychain in memory.
  const automations = new AutomationEditor({
    automations: () => fake.settings.automations,
    save: (list) => {
      fake.settings = { ...fake.settings, automations: list };
    },
    accounts: () =>
      fake.state.accounts.length > 0
        ? fake.state.accounts.map((a) => ({ ...accountRef(a), id: a.id as AccountId }))
        : [accountRef(fake.settings)],
    secrets: memorySecrets(fake.keychain),
    managed: () => options.automationsManaged ?? false,
    // The shell's dialog, answered as the test says; allowed unless it says otherwise.
    confirmCommand: async (automation) => options.allowCommand?.(automation) ?? true,
    log: silentLog,
  });

  /** A run as just queued, under a new delivery id. */
  const fakeRun = (orderId: string, automation: string, trigger: RunTrigger): AutomationRun => {
    requestCounter += 1;
    return queuedRun({
      deliveryId: `00000000-0000-4000-9000-${String(requestCounter).padStart(12, '0')}`,
      orderId,
      automation,
      trigger,
      queuedAt: new Date().toISOString(),
    });
  };

  const defaults: { [C in Channel]: Handler<C> } = {
    getState: () => fake.state,
    getSettings: () => fake.settings,
    getAutomations: () => automations.view(),
    saveAutomation: ({ automation, replaces }) => automations.save(automation, replaces),
    removeAutomation: ({ automation }) => automations.remove(automation),
    setAutomationSecret: ({ automation, secret }) => automations.setSecret(automation, secret),
    testAutomation: ({ automation, orderId }) => ({
      ...fakeRun(orderId, automation, 'test'),
      state: 'succeeded',
      exitCode: 0,
      output: 'tenant ready',
    }),
    setSettings: (patch) => {
      fake.settings = { ...fake.settings, ...(patch as Partial<Settings>) };
      return fake.settings;
    },
    setSecret: () => {
      fake.state = {
        ...fake.state,
        secretStored: true,
        setup: fake.settings.baseUrl && fake.settings.clientId ? 'configured' : fake.state.setup,
      };
      return fake.state;
    },
    testConnection: () => ({ ok: true, sellerId: 42, stage: null }),
    // The window has no account list yet (issue 23): its state as it stands.
    addAccount: () => fake.state,
    renameAccount: () => fake.state,
    removeAccount: () => fake.state,
    diagnose: () => ({ report: 'ping           ok        HTTP 200 3 ms\n', failed: false }),
    openLogFolder: () => ({ path: '/home/seller/.config/Seller Tray/logs', opened: true }),
    openInWindow: () => ({ opened: true }),
    exportStatuses: () => ({ rows: 3, path: '/home/seller/Documents/seller-tray-statuses-2026-11-26.csv' }),
    listOrders: (request) => {
      const filter = request.filter ?? 'all';
      const search = (request.search ?? '').trim().toLowerCase();
      const matching = fake.orders
        .filter((o) => request.account === undefined || o.account === request.account)
        .filter((o) => filter === 'all' || o.status === filter)
        .filter(
          (o) =>
            search === '' || [o.orderId, o.buyer, o.product].some((t) => t?.toLowerCase().includes(search)),
        );
      // The orders are given in list order, each group's together (fakeGroupOf); a folded backlog leaves the list.
      const holds = (name: InboxGroupName) => matching.filter((o) => fakeGroupOf(o) === name).length;
      const folded = !backlogShown(request.backlog ?? 'by-size', holds('backlog'));
      const listed = folded ? matching.filter((o) => !o.backlog) : matching;
      let start = 0;
      const groups = INBOX_GROUPS.map((name) => {
        const size = folded && name === 'backlog' ? 0 : holds(name);
        start += size;
        return { name, start: start - size, size, holds: holds(name) };
      });
      const offset = request.offset ?? 0;
      return {
        orders: listed.slice(offset, offset + (request.limit ?? 100)),
        offset,
        total: listed.length,
        waiting: matching.filter((o) => o.waiting).length,
        groups,
        unopened: listed.flatMap((o, index) => (o.unopened ? [{ orderId: o.orderId, index }] : [])),
        regroupsAt: null,
      };
    },
    getOrder: ({ orderId }) => {
      fake.orders = fake.orders.map((o) => (o.orderId === orderId ? { ...o, unopened: false } : o));
      const view = views.get(orderId);
      if (!view) throw new CodedError('api-not-found', `Order ${orderId} was not found.`);
      return structuredClone(view);
    },
    markStatus: (request) => {
      const view = views.get(request.orderId);
      const status = view ? view.status : fake.orders.find((o) => o.orderId === request.orderId)?.status;
      if (!request.override && !isUsualTransition(status, request.statusCode)) {
        throw new CodedError(
          'unusual-transition',
          `Marking an order ${statusLabel(request.statusCode)} while it is ${statusLabel(status)} is unusual; confirm to do it anyway.`,
        );
      }
      requestCounter += 1;
      const now = Date.now();
      const item: OutboxItem = {
        requestId: `00000000-0000-4000-8000-${String(requestCounter).padStart(12, '0')}`,
        orderId: request.orderId,
        statusCode: request.statusCode,
        description: describeMark(request.statusCode, fake.state.actorName, request.description),
        ...(request.detailedDescription === undefined
          ? {}
          : { detailedDescription: request.detailedDescription }),
        createdAt: new Date(now).toISOString(),
        state: 'pending',
        attempts: 0,
        ...(fake.settings.undoSeconds > 0
          ? { notBefore: new Date(now + fake.settings.undoSeconds * 1000).toISOString() }
          : {}),
      };
      statusBefore.set(item.requestId, status);
      if (view) {
        view.outbox.push(item);
        view.status = request.statusCode;
      } else {
        // An inbox row without an order page: its row shows the mark, held as the outbox holds it.
        rowMarks.set(item.requestId, item);
        setRowStatus(request.orderId, request.statusCode);
      }
      return item;
    },
    getAttention: () => structuredClone(options.attention ?? NOTHING_TO_ATTEND),
    // No orders in any period (a test passes its own handler for figures).
    getInsights: ({ account, ...request }) =>
      summarizeInsights(
        [],
        request,
        APP_DEFAULT_SETTINGS.reminderAfterMinutes,
        account === 'all' ? [] : [account],
      ),
    resendStatus: ({ requestId }) => {
      const found = options.attention?.unconfirmed.find((mark) => mark.item.requestId === requestId);
      if (!found)
        throw new CodedError('not-found', 'There is no unconfirmed status to send again with that id.');
      return {
        outcome: 'sent-again',
        item: { ...found.item, state: 'pending', requestId: crypto.randomUUID() },
      };
    },
    markAsideSeen: () => fake.state,
    snoozeOrder: ({ until }) => ({ snoozedUntil: until }),
    tickRunbookStep: ({ orderId, itemId, step, ticked }) => {
      const view = views.get(orderId);
      if (!view) throw new CodedError('not-found', 'This laptop does not know that order.');
      const others = view.runbookTicks.filter((t) => t.itemId !== itemId.toLowerCase() || t.step !== step);
      const ticks = ticked
        ? [...others, { itemId: itemId.toLowerCase(), step, tickedAt: new Date().toISOString() }]
        : others;
      views.set(orderId, { ...view, runbookTicks: ticks });
      return { ticks };
    },
    undoMark: ({ requestId }) => {
      for (const view of views.values()) {
        const item = view.outbox.find((i) => i.requestId === requestId);
        if (!item) continue;
        if (item.state !== 'pending' || Date.parse(item.notBefore ?? '') <= Date.now()) {
          return { outcome: 'already-sent' };
        }
        view.outbox = view.outbox.filter((i) => i !== item);
        const { orderId, statusCode, createdAt } = item;
        const settledAt = new Date().toISOString();
        view.settled = [
          ...view.settled,
          { requestId, orderId, statusCode, createdAt, outcome: 'undone', settledAt },
        ];
        view.status = statusBefore.get(requestId);
        // As the service does: the views showing the order read it again.
        queueMicrotask(() => result.emit({ type: 'orders-updated', orderIds: [item.orderId], moved: true }));
        return { outcome: 'undone' };
      }
      const rowMark = rowMarks.get(requestId);
      if (rowMark) {
        if (Date.parse(rowMark.notBefore ?? '') <= Date.now()) return { outcome: 'already-sent' };
        rowMarks.delete(requestId);
        setRowStatus(rowMark.orderId, statusBefore.get(requestId));
        return { outcome: 'undone' };
      }
      return { outcome: 'unknown' };
    },
    runAutomation: ({ orderId, automation }) => {
      const view = views.get(orderId);
      if (!view) throw new CodedError('not-found', `Order ${orderId} was not found.`);
      const run = fakeRun(orderId, automation, 'again');
      view.automationRuns.push(run);
      return run;
    },
    retryDelivery: ({ requestId }) => {
      for (const view of views.values()) {
        const item = view.outbox.find((i) => i.requestId === requestId && i.state === 'failed');
        if (item) {
          item.state = 'pending';
          delete item.problem;
          return item;
        }
      }
      throw new CodedError('not-found', 'There is no failed status to send again with that id.');
    },
    checkNow: () => {
      fake.state = { ...fake.state, lastSuccessfulPoll: new Date().toISOString() };
      return { state: fake.state, newOrders: 0 };
    },
    startDemo: () => {
      fake.settings = { ...fake.settings, demoMode: true };
      fake.state = { ...fake.state, setup: 'demo', secretStored: false };
      return fake.state;
    },
    pauseNotifications: ({ until, account }) => {
      if (account !== undefined) {
        const accounts = fake.state.accounts.map((a) =>
          a.id === account ? { ...a, notificationsPausedUntil: until } : a,
        );
        fake.state = { ...fake.state, accounts };
        return fake.state;
      }
      fake.settings = { ...fake.settings, pausedUntil: until };
      fake.state = { ...fake.state, notificationsPausedUntil: until };
      return fake.state;
    },
    getUpdateStatus: () => UP_TO_DATE,
    checkForUpdates: () => ({
      ...UP_TO_DATE,
      lastCheck: { ...UP_TO_DATE_CHECK, at: new Date().toISOString() },
    }),
  };

  function method<C extends Channel>(channel: C) {
    return async (request: RequestOf<C>): Promise<Answer<Responses[C]>> => {
      calls.push({ channel, request });
      const handler = (handlers[channel] ?? defaults[channel]) as Handler<C>;
      try {
        return { ok: true, value: await handler(request) };
      } catch (error) {
        // As the service answers (main/core/service.ts): a coded refusal keeps its code; anything else is internal.
        return { ok: false, error: asCodedError(error).toAnswerError() };
      }
    };
  }

  const channels = Object.keys(defaults) as Channel[];
  const bridge = Object.fromEntries(channels.map((channel) => [channel, method(channel)])) as Omit<
    Bridge,
    'onEvent'
  >;

  const result = Object.assign(fake, bridge, {
    callsOf<C extends Channel>(channel: C): RequestOf<C>[] {
      return calls.filter((c) => c.channel === channel).map((c) => c.request as RequestOf<C>);
    },
    handle<C extends Channel>(channel: C, handler: Handler<C>): void {
      (handlers as Record<Channel, unknown>)[channel] = handler;
    },
    emit(event: FakeEvent): void {
      for (const listener of [...listeners]) listener(event);
    },
    onEvent(listener: (event: FakeEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  // A getter (Object.assign would copy its value once).
  return Object.defineProperty(result, 'listenerCount', { get: () => listeners.size }) as FakeBridge;
}

/** A history event of an order, as the marketplace lists it. */
export function historyEvent(orderId: string, overrides: Partial<MarketplaceEvent> = {}): MarketplaceEvent {
  return {
    eventId: '11111111-1111-4111-8111-111111111111',
    eventTypeCode: 'ServicePurchased',
    statusCode: 'ProvisioningStarted',
    eventTime: '2026-11-20T09:30:00.000Z',
    description: 'Service purchased',
    additionalProperties: [{ name: 'orderId', value: orderId }],
    ...overrides,
  };
}
