// The one API the shell and the renderer use (through the bridge contract in preload/). It
// owns the settings, the keychain secret and the core, rebuilds the core when the account
// changes, and validates every request at this boundary. The secret goes only to the origin it
// was stored for (secrets.ts), and every call only to the account's origin (originBound).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { z } from 'zod';
import {
  type Answer,
  type AnswerError,
  type AppState,
  type Channel,
  type ConnectionTest,
  type DiagnosisReport,
  isChannel,
  type LogFolder,
  type OrderPage,
  type Requests,
  type Responses,
  type UpdateStatus,
} from '../../preload/contract';
import { NO_ATTENTION } from '../../preload/model';
import { osAccountName } from './account-name';
import { SellerApiClient, type SellerApiClientOptions } from './api/client';
import { SellerApiError } from './api/errors';
import { checkBaseUrl, type Transport } from './api/transport';
import { APP_VERSION, updateChannel } from './app-identity';
import { type CheckedRequest, requests } from './bridge-requests';
import { diagnose, formatDiagnosis } from './diagnosis';
import { explainFailure } from './failure-words';
import { describeAside } from './kept-aside';
import { type Log, silentLog, withoutCredentials } from './log';
import { markActor, signedMark } from './mark';
import type { Timers } from './poller';
import {
  adoptUnboundSecret,
  KeychainUnavailableError,
  noSecretFor,
  SecretInputError,
  type SecretOwner,
  type SecretStore,
  secretOwner,
} from './secrets';
import { type CoreEvent, NotFoundError, SellerCore, TransitionError } from './seller-core';
import { apiOptions, parseSettingsPatch, type Settings, type SettingsStore } from './settings';

/** The folder the log file is written in, and how the platform shows a folder to the user. */
export interface LogFolderPort {
  path: string;
  /** Opens a folder in the file manager; absent where the user's screen cannot be reached (the browser preview). */
  open?: (path: string) => Promise<void>;
}

/** The built-in simulator, for demo mode; its credentials are public, so they skip the keychain. */
export interface DemoMarketplace {
  start(): Promise<{ baseUrl: string; clientId: string; clientSecret: string }>;
}

export interface ServicePorts {
  settings: SettingsStore;
  secrets: SecretStore;
  demo?: DemoMarketplace;
  /** The user data directory; each account keeps its state in a folder of its own there. */
  dataRoot: string;
  transport?: Transport;
  timers?: Timers;
  now?: () => number;
  /** Where the core and its client tell support what happened; silent by default. */
  log?: Log;
  logFolder?: LogFolderPort;
  /** Turns the tray popover into the full-size window; absent where there are no windows (the preview). */
  openInWindow?: () => void;
  /** The computer account's name, for statuses marked without "Your name" set; default account-name.ts. */
  accountName?: () => string;
  /** The locale notifications write amounts in (the Electron shell: the window's); the runtime's default when absent. */
  locale?: string | undefined;
}

/** Items kept aside that a diagnosis names one by one. */
const KEPT_ASIDE_SHOWN = 20;

export type ServiceEvent = CoreEvent | { type: 'app-state'; state: AppState };

/** The shell's updater (main/shell/updater.ts), as the window's About panel reaches it. */
export interface UpdatesPort {
  status(): UpdateStatus;
  /** Checks now; resolves once the check is done (a download goes on in the background). */
  check(): Promise<UpdateStatus>;
}

/** Until a shell attaches its updater (the browser preview never does): none. */
const NO_UPDATER: UpdatesPort = {
  status: () => ({
    version: APP_VERSION,
    channel: updateChannel(APP_VERSION),
    availability: 'unsupported',
    lastCheck: null,
    checking: false,
    ready: null,
    restartWaitsFor: null,
  }),
  check: async () => NO_UPDATER.status(),
};

/** What looking up a linked order found (see `lookUpOrder`). */
export type OrderLookup =
  | { found: true }
  | { found: false; reason: 'not-configured' | 'not-in-account' | 'unreachable'; detail: string };

/** What a channel does with its checked request. */
export type Handler<C extends Channel> = (request: CheckedRequest<C>) => Promise<Responses[C]>;
/** One handler per channel, no more, no fewer. */
export type Handlers = { [C in Channel]: Handler<C> };

/** A request refused at the boundary, or an operation that cannot be done; the message is for the user. */
export class ServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The settings a refused change got wrong, each with its message. */
    readonly fields?: { field: string; message: string }[],
  ) {
    super(message);
  }
}

export class SellerTrayService {
  private readonly listeners = new Set<(event: ServiceEvent) => void>();
  private core: SellerCore | undefined;
  /** The account the core reads, as its client reaches it (the secret read from the keychain at use). */
  private account: SellerApiClientOptions | undefined;
  /** Unsubscribes from the current core: a replaced core's events never reach the app. */
  private detachCore: (() => void) | undefined;
  private secretStored = false;
  private demoSecret: string | undefined;
  private readonly unheard: ServiceEvent[] = [];
  private updates: UpdatesPort = NO_UPDATER;
  private accountName: string | undefined;

  private readonly log: Log;

  private constructor(
    private readonly ports: ServicePorts,
    private settings: Settings,
  ) {
    this.log = ports.log ?? silentLog;
  }

  /** Loads the settings and, when an account is configured, starts its core. */
  static async open(ports: ServicePorts): Promise<SellerTrayService> {
    const { settings, problem } = ports.settings.load();
    const service = new SellerTrayService(ports, settings);
    await service.adoptUnboundSecret();
    await service.connect();
    if (problem) service.emit({ type: 'problem', message: problem });
    return service;
  }

  onEvent(listener: (event: ServiceEvent) => void): () => void {
    this.listeners.add(listener);
    // Problems found while opening (before anyone listened) reach the first listener.
    for (const event of this.unheard.splice(0)) listener(event);
    return () => this.listeners.delete(listener);
  }

  /** Stops the core; resolves once its store is closed (bounded: see SellerCore.close). */
  close(): Promise<void> {
    return this.dropCore();
  }

  private dropCore(): Promise<void> {
    this.account = undefined;
    this.detachCore?.();
    this.detachCore = undefined;
    const closed = this.core?.close() ?? Promise.resolve();
    this.core = undefined;
    return closed;
  }

  /** One request from this process (the shell's tray, notifier, lifecycle): typed, and checked like any other. */
  handle<C extends Channel>(channel: C, request: Requests[C]): Promise<Answer<Responses[C]>> {
    return this.handleMessage(channel, request) as Promise<Answer<Responses[C]>>;
  }

  /** One bridge message as it came from another process: the channel and the request checked, performed, answered. */
  async handleMessage(channel: string, payload: unknown): Promise<Answer<unknown>> {
    try {
      if (!isChannel(channel))
        throw new ServiceError('unknown-channel', `There is no operation "${channel}".`);
      return { ok: true, value: await this.perform(channel, payload) };
    } catch (error) {
      return { ok: false, error: toAnswerError(error) };
    }
  }

  private perform<C extends Channel>(channel: C, payload: unknown): Promise<Responses[C]> {
    // TypeScript cannot narrow the table by a generic key; `requests` is checked against the contract.
    const schema = requests[channel] as unknown as z.ZodType<CheckedRequest<C>>;
    const input = schema.safeParse(payload);
    if (!input.success) throw new ServiceError('invalid-input', describeInvalid(input.error));
    const handler: Handler<C> = this.handlers[channel];
    return handler(input.data);
  }

  /** What each channel does: the compiler requires one handler per channel of the contract. */
  private readonly handlers: Handlers = {
    getState: async () => this.state(),
    getSettings: async () => this.currentSettings(),
    setSettings: (patch) => this.updateSettings(patch),
    setSecret: ({ secret }) => this.storeSecret(secret),
    testConnection: (request) => this.testConnection(request),
    listOrders: async (query) => this.listOrders(query),
    getOrder: ({ orderId }) => this.requireCore().order(orderId),
    markStatus: async (mark) => this.requireCore().markStatus(signedMark(mark, this.actorName())),
    undoMark: async ({ requestId }) => ({ outcome: this.requireCore().undoMark(requestId) }),
    getAttention: async () => this.requireCore().attention(),
    resendStatus: async ({ requestId }) => this.requireCore().resendStatus(requestId),
    snoozeOrder: async ({ orderId, until }) => {
      this.requireCore().snooze(orderId, until);
      return { snoozedUntil: until };
    },
    markAsideSeen: async ({ upToId }) => {
      this.requireCore().markAsideSeen(upToId);
      return this.state();
    },
    retryDelivery: async ({ requestId }) => {
      const item = this.requireCore().retryDelivery(requestId);
      if (!item) throw new ServiceError('not-found', 'There is no failed status to send again with that id.');
      return item;
    },
    checkNow: async () => {
      const newOrders = (await this.core?.checkNow()) ?? 0;
      return { state: this.state(), newOrders };
    },
    diagnose: () => this.diagnose(),
    startDemo: async () => {
      await this.startDemo();
      return this.state();
    },
    pauseNotifications: async ({ until }) => {
      this.saveSettings({ ...this.settings, pausedUntil: until });
      return this.state();
    },
    getUpdateStatus: async () => this.updates.status(),
    checkForUpdates: () => this.updates.check(),
    openLogFolder: () => this.openLogFolder(),
    openInWindow: async () => {
      if (!this.ports.openInWindow)
        throw new ServiceError('no-window', 'Only the desktop app opens windows.');
      this.ports.openInWindow();
      return { opened: true };
    },
  };

  /** The shell's updater answers the About panel from now on. */
  attachUpdates(updates: UpdatesPort): void {
    this.updates = updates;
  }

  /**
   * Whether an order a link names is this account's, for the shell: the store first, then the
   * marketplace once (which fetches it into the store). Only the marketplace's "not found" says it
   * is not; any other failure says it could not be told.
   */
  async lookUpOrder(orderId: string): Promise<OrderLookup> {
    const core = this.core;
    if (!core) return { found: false, reason: 'not-configured', detail: 'no marketplace account is set up' };
    if (core.hasOrder(orderId)) return { found: true };
    try {
      await core.order(orderId);
      return { found: true };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const notFound = error instanceof SellerApiError && error.status === 404;
      return { found: false, reason: notFound ? 'not-in-account' : 'unreachable', detail };
    }
  }

  /** The settings in force, for the shell's own use (the renderer asks through getSettings). */
  currentSettings(): Settings {
    return this.settings;
  }

  /** Who this laptop's marks are by: "Your name", else the computer account's name (read once). */
  private actorName(): string {
    return markActor(this.settings.actorName, () => {
      this.accountName ??= (this.ports.accountName ?? osAccountName)();
      return this.accountName;
    });
  }

  state(): AppState {
    const status = this.core?.status();
    return {
      setup: this.core ? (this.settings.demoMode ? 'demo' : 'configured') : 'unconfigured',
      baseUrl: this.settings.baseUrl,
      clientId: this.settings.clientId,
      secretStored: this.secretStored,
      actorName: this.actorName(),
      connection: status?.connection ?? 'starting',
      lastSuccessfulPoll: status?.lastSuccessfulPoll ?? null,
      health: status?.health ?? 'healthy',
      lastError: status?.lastError ?? null,
      problem: status?.problem ?? null,
      waitingCount: status?.waitingCount ?? 0,
      pendingOutbox: status?.pendingOutbox ?? 0,
      notificationsPausedUntil: status?.notificationsPausedUntil ?? null,
      attention: status?.attention ?? NO_ATTENTION,
    };
  }

  private async updateSettings(input: Partial<Settings>): Promise<Settings> {
    const patch = parseSettingsPatch(input);
    if (!patch.ok) {
      const fields = patch.errors.flatMap(({ field, message }) =>
        field === null ? [] : [{ field, message }],
      );
      throw new ServiceError('invalid-input', patch.message, fields);
    }
    const before = this.settings;
    const accountChanged =
      (patch.patch.baseUrl !== undefined && patch.patch.baseUrl !== before.baseUrl) ||
      (patch.patch.clientId !== undefined && patch.patch.clientId !== before.clientId);
    // Leaving the demo is one step: its account goes with it, and the app asks for a real one.
    const leavingDemo = before.demoMode && patch.patch.demoMode === false;
    const demoAccount = leavingDemo && !accountChanged ? { baseUrl: '', clientId: '' } : {};
    // Pointing the app at another marketplace ends the demo.
    this.saveSettings({
      ...before,
      ...patch.patch,
      ...(accountChanged ? { demoMode: false } : {}),
      ...demoAccount,
    });
    if (leavingDemo) this.demoSecret = undefined;
    if (accountChanged || leavingDemo) await this.connect();
    return this.settings;
  }

  private saveSettings(settings: Settings): void {
    this.ports.settings.save(settings);
    this.settings = settings;
    this.emit({ type: 'app-state', state: this.state() });
  }

  private async storeSecret(secret: string): Promise<AppState> {
    const { baseUrl, clientId } = this.settings;
    if (!baseUrl || !clientId) {
      throw new ServiceError(
        'invalid-input',
        'Set the base URL and the client id before the secret: the secret is kept for that marketplace and client id only.',
      );
    }
    await this.ports.secrets.set(secretOwner(baseUrl, clientId), secret);
    await this.connect();
    return this.state();
  }

  private async startDemo(): Promise<void> {
    if (!this.ports.demo)
      throw new ServiceError('demo-unavailable', 'This build has no built-in demo marketplace.');
    const demo = await this.ports.demo.start();
    this.demoSecret = demo.clientSecret;
    this.saveSettings({ ...this.settings, demoMode: true, baseUrl: demo.baseUrl, clientId: demo.clientId });
    await this.connect();
  }

  /** Ping, then a token: each outcome with a message the user can act on. */
  private async testConnection(input: CheckedRequest<'testConnection'>): Promise<ConnectionTest> {
    const base = checkBaseUrl(input.baseUrl);
    if (!base.ok)
      return { ok: false, reason: 'invalid-url', message: `The base URL is not usable: ${base.problem}.` };
    // Without a secret in the request, only one stored for this very origin may go there.
    const owner = secretOwner(base.url, input.clientId);
    const secret = input.secret ?? (await this.ports.secrets.get(owner));
    if (secret === undefined) {
      return { ok: false, reason: 'credentials', message: `${noSecretFor(owner)} Enter it to test.` };
    }
    const client = new SellerApiClient(
      this.clientOptions(base.url, input.clientId, async () => secret, { maxAttempts: 1 }),
    );
    try {
      const ping = await client.ping();
      const { sellerId } = await client.authenticate();
      return { ok: true, sellerId, stage: ping.stage ?? null };
    } catch (error) {
      if (!(error instanceof SellerApiError)) throw error;
      if (error.credentialsRejected) {
        return {
          ok: false,
          reason: 'credentials',
          message: 'The marketplace rejected the client id or secret.',
        };
      }
      if (error.kind === 'tls')
        return {
          ok: false,
          reason: 'tls',
          message: `The server's certificate was refused. ${error.message}`,
        };
      // config: the request was refused before it left (a redirect, another origin).
      if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'config') {
        return {
          ok: false,
          reason: 'unreachable',
          message: `The marketplace could not be reached. ${error.message}`,
        };
      }
      return { ok: false, reason: answeredReason(error), message: error.message };
    }
  }

  /** One page of orders by status and by a search in id, buyer, products, account id and e-mails. */
  private listOrders(query: CheckedRequest<'listOrders'>): OrderPage {
    const { rows, ...counts } = this.requireCore().orders({
      ...query,
      // The window's backlog folds away when large, but a search shows every order it finds.
      backlog: query.backlog ?? (query.search.trim() === '' ? 'by-size' : 'shown'),
      now: new Date(this.ports.now?.() ?? Date.now()).toISOString(),
      stalledAfterDays: this.settings.staleInProgressDays,
    });
    return { orders: rows, offset: query.offset, ...counts };
  }

  /** (Re)builds the core for the configured account; without one, there is none. */
  private async connect(): Promise<void> {
    void this.dropCore();
    if (this.settings.demoMode && this.demoSecret === undefined && this.ports.demo) {
      // The demo marketplace runs again, on a port of its own; its account carries on.
      const demo = await this.ports.demo.start();
      this.demoSecret = demo.clientSecret;
      this.saveSettings({ ...this.settings, baseUrl: demo.baseUrl, clientId: demo.clientId });
    }
    const { baseUrl, clientId, demoMode } = this.settings;
    const demoSecret = demoMode ? this.demoSecret : undefined;
    const owner = baseUrl && clientId ? secretOwner(baseUrl, clientId) : undefined;
    this.secretStored =
      demoSecret === undefined && owner !== undefined && (await this.secretInKeychain(owner));
    if (!owner || (!this.secretStored && demoSecret === undefined)) {
      this.emit({ type: 'app-state', state: this.state() });
      return;
    }
    const clientSecret = async () => {
      const secret = demoSecret ?? (await this.ports.secrets.get(owner));
      if (secret === undefined) {
        throw new ServiceError('no-secret', 'The client secret is no longer in the keychain.');
      }
      return secret;
    };
    this.account = this.clientOptions(baseUrl, clientId, clientSecret);
    const client = new SellerApiClient(this.account);
    const core = await SellerCore.open({
      client,
      // The demo's address changes from run to run; its history should not.
      dataDir:
        demoSecret === undefined
          ? accountDir(this.ports.dataRoot, baseUrl, clientId)
          : join(this.ports.dataRoot, 'accounts', 'demo'),
      settings: () => this.settings,
      ...(this.ports.timers ? { timers: this.ports.timers } : {}),
      ...(this.ports.now ? { now: this.ports.now } : {}),
      log: this.log,
      locale: this.ports.locale,
    });
    this.log.info('account connected', { baseUrl, clientId, demo: demoSecret !== undefined });
    this.detachCore = core.on((event) =>
      this.emit(event.type === 'state-changed' ? { type: 'app-state', state: this.state() } : event),
    );
    this.core = core;
    void core.start();
  }

  /** The account's connection, operation by operation, and what this laptop kept aside. */
  private async diagnose(): Promise<DiagnosisReport> {
    const core = this.requireCore();
    if (!this.account)
      throw new ServiceError('not-configured', 'Seller Tray is not connected to a marketplace yet.');
    const diagnosis = {
      ...(await diagnose(this.account, undefined, core.tokenLifetime())),
      lastSuccessfulPoll: core.status().lastSuccessfulPoll,
    };
    const { items, total } = core.keptAside(KEPT_ASIDE_SHOWN);
    const aside =
      total === 0
        ? 'Nothing the marketplace sent was kept aside on this laptop.\n'
        : [
            `Kept aside on this laptop: ${total} item(s) the marketplace sent that could not be read or are another seller's${total > items.length ? `; the latest ${items.length}` : ''}:`,
            ...describeAside(items).details.map((line) => `    ${line}`),
            '',
          ].join('\n');
    return {
      // The items kept aside hold the server's words too.
      report: `${formatDiagnosis(diagnosis, APP_VERSION)}\n${withoutCredentials(aside)}`,
      failed: diagnosis.steps.some((s) => s.outcome === 'failed'),
    };
  }

  /** Shows the log's folder where the platform can; always says where it is. */
  private async openLogFolder(): Promise<LogFolder> {
    const folder = this.ports.logFolder;
    if (!folder) throw new ServiceError('no-log', 'This build of Seller Tray writes no log file.');
    if (!folder.open) return { path: folder.path, opened: false };
    try {
      await folder.open(folder.path);
    } catch (error) {
      throw new ServiceError(
        'open-failed',
        `The log folder could not be opened (${(error as Error).message}). It is ${folder.path}`,
      );
    }
    return { path: folder.path, opened: true };
  }

  /** Whether the keychain holds a secret; a missing keychain is told to the user, not thrown. */
  private async secretInKeychain(owner: SecretOwner): Promise<boolean> {
    try {
      return (await this.ports.secrets.get(owner)) !== undefined;
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      this.emit({ type: 'problem', ...explainFailure(error) });
      return false;
    }
  }

  /** Seller Tray 0.1's secret, adopted for the account the settings name before anything can change it. */
  private async adoptUnboundSecret(): Promise<void> {
    try {
      await adoptUnboundSecret(this.ports.secrets, this.settings);
    } catch (error) {
      // connect() tells the user about a missing keychain; the move is tried again next start.
      if (!(error instanceof KeychainUnavailableError)) throw error;
    }
  }

  /** How a client reaches the marketplace: the account, the settings' routes, the shell's transport. */
  private clientOptions(
    baseUrl: string,
    clientId: string,
    clientSecret: () => Promise<string>,
    retry?: { maxAttempts: number },
  ): SellerApiClientOptions {
    return {
      baseUrl,
      credentials: { clientId, clientSecret },
      ...apiOptions(this.settings.api),
      ...(this.ports.transport ? { transport: this.ports.transport } : {}),
      ...(retry ? { retry } : {}),
      log: this.log,
    };
  }

  private requireCore(): SellerCore {
    if (!this.core)
      throw new ServiceError('not-configured', 'Seller Tray is not connected to a marketplace yet.');
    return this.core;
  }

  private emit(event: ServiceEvent): void {
    if (this.listeners.size === 0 && event.type === 'problem') this.unheard.push(event);
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * Each account (base URL and client id) keeps its cursor, history and outbox apart, so
 * switching to another seller neither mixes histories nor notifies the old one's orders.
 */
export function accountDir(dataRoot: string, baseUrl: string, clientId: string): string {
  const key = createHash('sha256').update(`${baseUrl}\n${clientId}`).digest('hex').slice(0, 16);
  return join(dataRoot, 'accounts', key);
}

function describeInvalid(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

function toAnswerError(error: unknown): AnswerError {
  if (error instanceof ServiceError) {
    return { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) };
  }
  if (error instanceof TransitionError) return { code: 'unusual-transition', message: error.message };
  if (error instanceof NotFoundError) return { code: 'not-found', message: error.message };
  if (error instanceof KeychainUnavailableError)
    return { code: 'keychain-unavailable', ...explainFailure(error) };
  if (error instanceof SecretInputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof SellerApiError) return { code: `api-${error.kind}`, ...explainFailure(error) };
  return { code: 'internal', ...explainFailure(error) };
}

/**
 * Why the marketplace's answer failed a connection test: no such operation at that address (a
 * wrong path in the base URL: not something to wait out), trouble of its own (wait), or a refusal.
 */
function answeredReason(error: SellerApiError): 'wrong-address' | 'refused' | 'server' {
  const status = error.status ?? 0;
  if (error.kind === 'schema' || status === 404 || status === 405 || status === 410) return 'wrong-address';
  return status === 429 || status >= 500 ? 'server' : 'refused';
}
