// The one API the shell and the renderer use (through the bridge contract in preload/). It
// owns the handler table, the settings, the keychain secret and the demo, holds a session per
// account (account/session.ts), reopens it when the account changes (also when another process,
// the CLI, changes the settings file), and validates every request at this boundary. The secret goes only to the origin it was stored for (secrets.ts).
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { CodedError } from '../../preload/coded-error';
import {
  type AccountState,
  type Answer,
  type AnswerError,
  type AppState,
  type Channel,
  type DiagnosisReport,
  isChannel,
  type LogFolder,
  type OrderPage,
  type Requests,
  type Responses,
  type ServiceEvent,
  type StatusExport,
  type UpdateStatus,
} from '../../preload/contract';
import type { Insights } from '../../preload/insights';
import { escapedControls } from '../../preload/marketplace-text';
import type { Attention, CoreStatus, Explained } from '../../preload/model';
import { laterPause, pausedUntil } from '../../preload/pause';
import type { AccountEntry } from '../../preload/settings-declaration';
import {
  AccountListError,
  type AccountListPorts,
  addAccount,
  removeAccount,
  renameAccount,
  withAccountPause,
} from './account/account-list';
import {
  type AccountId,
  type AccountRef,
  accountName,
  accountRef,
  keychainEntry,
} from './account/account-ref';
import { testConnection } from './account/connection-test';
import { interruptedRemovals, interruptedRemovalWords, settleRemovals } from './account/removal-notes';
import { reopenWaitMs } from './account/reopen-wait';
import { AccountSession, type OrderLookup } from './account/session';
import { osAccountName } from './account-name';
import {
  type Advice,
  type AppSurface,
  adviceFor,
  capitalized,
  lockedByPolicy,
  REMOVE_AGAIN_IN_APP,
} from './advice';
import { SellerApiError } from './api/errors';
import type { Transport } from './api/transport';
import { APP_VERSION, updateChannel } from './app-identity';
import { attentionAcross, sumAttentionCounts } from './attention-across';
import { AutomationEditor, type ConfirmCommandPort } from './automation/automation-editing';
import { type Post, transportPost } from './automation/delivery';
import { automationPortsFor } from './automation/ports';
import { type CheckedRequest, requests } from './bridge-requests';
import { explainFailure } from './failure-words';
import { InboxAcross } from './inbox-across';
import { failureFields, type Log, silentLog } from './log';
import { markActor, signedMark } from './mark';
import {
  automationsForbidden,
  automationsManaged,
  demoAllowed,
  lockedSettings,
  type Policies,
  policyReport,
} from './policy/layers';
import { ManagedSettingsStore } from './policy/managed-settings';
import { type PolicyPort, UNMANAGED } from './policy/watcher';
import type { Timers } from './poller';
import {
  adoptUnboundSecret,
  KeychainUnavailableError,
  SecretInputError,
  type SecretOwner,
  type SecretStore,
} from './secrets';
import { OrderReadLater, type SellerCore } from './seller-core';
import {
  defaultAccountLabel,
  parseSettingsPatch,
  reconcileAccounts,
  type Settings,
  type SettingsStore,
} from './settings';
import { proofCsv, proofRows } from './status-records';
import { summarizeInsights } from './store/insights';

export type { OrderLookup } from './account/session';

/** The folder the log file is written in, and how the platform shows a folder to the user. */
export interface LogFolderPort {
  path: string;
  /** Why no log is written there (the folder is another user's): told once, at the start. */
  problem?: string | undefined;
  /** Opens a folder in the file manager; absent where the user's screen cannot be reached (the browser preview). */
  open?: (path: string) => Promise<void>;
}

/**
 * Asks where to save a file (`suggestedName` offered) and writes `content` there; answers the path,
 * or null when the user cancelled.
 */
export type SaveFilePort = (suggestedName: string, content: string) => Promise<string | null>;

/** The built-in simulator, for demo mode; its credentials are public, so they skip the keychain. */
export interface DemoMarketplace {
  /** `problem`: what its start found (its file damaged and kept aside), for the user, once. */
  start(): Promise<{ baseUrl: string; clientId: string; clientSecret: string; problem?: string }>;
}

export interface ServicePorts {
  settings: SettingsStore;
  secrets: SecretStore;
  demo?: DemoMarketplace;
  /** The user data directory; each account keeps its state in a folder of its own there. */
  dataRoot: string;
  transport?: Transport;
  /** Automations' deliveries, where the platform sends them its own way (plain Node); else through `transport`. */
  post?: Post;
  timers?: Timers;
  now?: () => number;
  /** Where the core and its client tell support what happened; silent by default. */
  log?: Log;
  logFolder?: LogFolderPort;
  /** Turns the tray popover into the full-size window; absent where there are no windows (the preview). */
  openInWindow?: () => void;
  /** Saves a file the user names (the shell's save dialog); absent where there is none. */
  saveFile?: SaveFilePort;
  /** Asks, in the shell's own dialog, to allow a command automation; absent: the window may not set one. */
  confirmCommand?: ConfirmCommandPort;
  /** The computer account's name, for statuses marked without "Your name" set; default account-name.ts. */
  accountName?: () => string;
  /** The locale notifications write amounts in (the Electron shell: the window's); the runtime's default when absent. */
  locale?: string | undefined;
  /** The organization's policies (main/core/policy/), over the user's settings; none when absent. */
  policies?: PolicyPort;
  /**
   * Tells of changes to the settings file (file-watch.ts), so accounts the CLI adds, renames or
   * removes are served without a restart; returns the stop function. None watched when absent.
   */
  settingsChanges?: (changed: () => void) => () => void;
}

export type { ServiceEvent } from '../../preload/contract';

/** The shell's updater (main/shell/updater.ts), as the window's About panel reaches it. */
export interface UpdatesPort {
  status(): UpdateStatus;
  /** Checks now; resolves once the check is done (a download goes on in the background). */
  check(): Promise<UpdateStatus>;
}

/** What is kept when told before the opener listens (listening): what the user must hear. */
const UNHEARD_KEPT: ReadonlySet<ServiceEvent['type']> = new Set([
  'problem',
  'notification',
  'orders-arrived',
]);

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

/** What a channel does with its checked request. */
export type Handler<C extends Channel> = (request: CheckedRequest<C>) => Promise<Responses[C]>;
/** One handler per channel, no more, no fewer. */
export type Handlers = { [C in Channel]: Handler<C> };

export class SellerTrayService {
  private readonly listeners = new Set<(event: ServiceEvent) => void>();
  /** The open accounts, each with its session, polling on its own schedule and backoff. */
  private readonly sessions = new Map<AccountId, AccountSession>();
  /**
   * The settings' first account (the first whose store could be opened): the one the window, the
   * tray and the diagnosis show.
   */
  private windowAccount: AccountId | undefined;
  /** Unsubscribes from each session: a replaced session's events never reach the app. */
  private readonly detach = new Map<AccountId, () => void>();
  /** The settings' accounts as refs, for these settings (accountRefs). */
  private refs: { settings: Settings; demo: boolean; refs: readonly AccountRef[] } | undefined;
  /** The inbox across the sessions' stores, its pages remembered until a store changes. */
  private readonly inbox = new InboxAcross();
  private secretStored = false;
  private demoSecret: string | undefined;
  /**
   * What was told while the opener wires its listeners (problems found; the announcements the
   * accounts' starts raised, left queued by a crash or held while paused, marked raised once
   * told): each listener subscribed until it says it listens (`listening`) hears it all, however
   * many awaits its wiring takes. None once it has.
   */
  private unheard: ServiceEvent[] | undefined = [];
  private updates: UpdatesPort = NO_UPDATER;
  private accountName: string | undefined;

  private readonly log: Log;
  private readonly policies: PolicyPort;
  /** The service serves the app: its advice names the app's places, unless a policy locks them (advice.ts). */
  private readonly surface: AppSurface = {
    surface: 'app',
    locked: () => lockedByPolicy(this.policies.current()),
  };
  /** Advice about no one account. */
  private readonly advice: Advice = adviceFor(this.surface);
  private readonly unwatchPolicies: () => void;
  /** Settings → Automations: each change saved as every setting is, secrets into the keychain. */
  private readonly automations: AutomationEditor;
  private readonly unwatchSettings: () => void;
  /** The settings file's changes, taken one after another. */
  private fileChanges: Promise<void> = Promise.resolve();
  /**
   * The sessions brought in line with the settings, one run at a time: two runs overlapping at
   * the keychain's answers each opened what the other had not yet, an account twice or under a
   * label already changed.
   */
  private connecting: Promise<void> = Promise.resolve();
  /** The account's store being opened by connect (openSession): close() waits for it. */
  private opening: Promise<void> = Promise.resolve();
  /** The interrupted removals being finished after the start (finishInterruptedRemovals). */
  private finishing: Promise<void> = Promise.resolve();
  /**
   * The accounts Settings is removing: never opened again meanwhile (connect), or the removal,
   * waiting its turn, would find its store open in this very process and be refused as in-use.
   */
  private readonly removing = new Set<AccountId>();
  /**
   * The accounts whose store could not be opened (a newer version's database, a folder that cannot
   * be written), and why: the others are served all the same, and each connect (a settings change,
   * Check now) tries again.
   */
  private readonly unopened = new Map<AccountId, Explained>();
  /** Connects in a row that left an account unopened, and the timer of the next (scheduleReopen). */
  private reopenTries = 0;
  private reopenTimer: unknown;
  private readonly timers: Timers;
  private closed = false;

  private constructor(
    private readonly ports: ServicePorts & { settings: ManagedSettingsStore },
    private settings: Settings,
  ) {
    this.log = ports.log ?? silentLog;
    this.timers = ports.timers ?? { setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
    this.policies = ports.policies ?? UNMANAGED;
    this.unwatchPolicies = this.policies.onChange(() =>
      this.policiesChanged().catch((error: unknown) =>
        this.log.error('policy change not applied', { error: String(error) }),
      ),
    );
    this.automations = new AutomationEditor({
      automations: () => this.settings.automations,
      save: (automations) => this.saveSettings({ ...this.settings, automations }),
      accounts: () => this.accountRefs(),
      secrets: ports.secrets,
      managed: () => automationsManaged(this.policies.current()),
      ...(ports.confirmCommand ? { confirmCommand: ports.confirmCommand } : {}),
      log: this.log,
    });
    this.unwatchSettings =
      ports.settingsChanges?.(() => {
        this.fileChanges = this.fileChanges
          .then(() => this.settingsFileChanged())
          .catch((error: unknown) =>
            this.log.error('settings file change not applied', { error: String(error) }),
          );
      }) ?? (() => {});
  }

  /** Loads the settings (under the policies) and, when an account is configured, starts its core. */
  static async open(ports: ServicePorts): Promise<SellerTrayService> {
    const store = new ManagedSettingsStore(ports.settings, ports.policies ?? UNMANAGED);
    const { settings, problem } = store.load();
    const service = new SellerTrayService({ ...ports, settings: store }, settings);
    // What a removal killed midway left (removal-notes.ts), ended before any account opens.
    settleRemovals(ports.dataRoot, settings.accounts, service.log);
    if (ports.logFolder?.problem) service.emit({ type: 'problem', message: ports.logFolder.problem });
    await service.adoptUnboundSecret();
    await service.connect();
    if (problem) service.emit({ type: 'problem', message: problem });
    // After the start, never holding it up: one may wait 10 s for another process to let go of it.
    service.finishing = service
      .finishInterruptedRemovals()
      .catch((error: unknown) =>
        service.log.error('interrupted removals not finished', { error: String(error) }),
      );
    return service;
  }

  /**
   * Removals a kill or a failure interrupted (removal-notes.ts) are finished at each start, in the
   * background, as `accounts remove --id` would: the app ships without the CLI, and an account no
   * longer listed cannot be reached from Settings. One with statuses still to deliver (or still
   * open in another process) is put back and listed again. What cannot be finished now is told
   * as a problem, and tried again at the next start.
   */
  private async finishInterruptedRemovals(): Promise<void> {
    const notes = interruptedRemovals(this.ports.dataRoot, this.settings.accounts);
    for (const { entry } of notes) {
      // Closing: the rest is finished at the next start, as their notes say.
      if (this.closed) return;
      const { id } = accountRef(entry);
      try {
        // Only while still noted and unlisted: `accounts add --id` may have brought it back meanwhile.
        await removeAccount({ id }, false, this.removalPorts(), { interruptedOnly: true });
        this.log.info('an interrupted removal of an account was finished', { account: entry.label });
      } catch (error) {
        const listedAgain = this.settings.accounts.some((a) => accountRef(a).id === id);
        this.emit({
          type: 'problem',
          message: listedAgain
            ? listedAgainWords(entry, error as Error)
            : interruptedRemovalWords(entry, unfinishedCause(error as Error)),
        });
      }
    }
    // An account put back (statuses to deliver) polls again.
    if (notes.length > 0) await this.connect();
  }

  /** Removal's ports: the settings saved at each step, so a removal failing once its data is gone never lists it again, empty. */
  private removalPorts() {
    return {
      ...this.accountListPorts(),
      settings: () => this.settings,
      updateSettings: (change: (settings: Settings) => Settings) => {
        this.saveSettings(change(this.settings));
        return this.settings;
      },
    };
  }

  onEvent(listener: (event: ServiceEvent) => void): () => void {
    this.listeners.add(listener);
    for (const event of this.unheard ?? []) listener(event);
    return () => this.listeners.delete(listener);
  }

  /**
   * The opener's listeners are all subscribed (the shell's window, notifier and tray; the
   * preview's stream): what was told while opening is kept no longer, and a later listener hears
   * only what comes after.
   */
  listening(): void {
    this.unheard = undefined;
  }

  /** Stops every session; resolves once their stores are closed (bounded: see SellerCore.close). */
  close(): Promise<void> {
    this.unwatchPolicies();
    this.unwatchSettings();
    this.closed = true;
    this.timers.clearTimeout(this.reopenTimer);
    // The polls stop now. The removal being finished is waited for (its hand-over at most; a quit
    // that cuts it leaves its note, and the next start finishes it); the rest wait for that start.
    // A store being opened is closed again as soon as it is open (openSession).
    return Promise.all([this.dropSessions(), this.finishing, this.opening.catch(() => {})]).then(() =>
      this.dropSessions(),
    );
  }

  /**
   * Another process (the CLI) wrote the settings file: the accounts follow it, each session opened,
   * reopened (renamed) or closed to match; the others, and what they hold to send, are left alone.
   * Our own saves read back the same and change nothing; a file that cannot be used changes nothing.
   */
  private async settingsFileChanged(): Promise<void> {
    const { settings: read, problem } = this.ports.settings.reread();
    // Told as the load's problem is (the window's banner), once per change of it.
    if (problem) {
      this.log.warn('settings file changed, with a problem', { problem });
      this.emit({ type: 'problem', message: problem });
    }
    if (read === undefined) return;
    if (isDeepStrictEqual(read, this.settings)) return;
    this.settings = read;
    this.log.info('settings file changed by another process', { accounts: read.accounts.length });
    await this.connect();
  }

  /** IT changed a policy while the app runs: the settings in force follow, and a changed account reconnects. */
  private async policiesChanged(): Promise<void> {
    const before = this.settings;
    this.settings = this.ports.settings.inForce();
    const { baseUrl, clientId, demoMode, api } = this.settings;
    const accountChanged =
      baseUrl !== before.baseUrl ||
      clientId !== before.clientId ||
      demoMode !== before.demoMode ||
      JSON.stringify(api) !== JSON.stringify(before.api);
    if (accountChanged) await this.connect();
    else this.emit({ type: 'app-state', state: this.state() });
  }

  private async dropSessions(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.dropSession(id)));
  }

  /** Stops one account's session; its events never reach the app again. */
  private dropSession(id: AccountId): Promise<void> {
    this.detach.get(id)?.();
    this.detach.delete(id);
    const closed = this.sessions.get(id)?.close() ?? Promise.resolve();
    this.sessions.delete(id);
    return closed;
  }

  /** The account the window works with (see `windowAccount`). */
  private get session(): AccountSession | undefined {
    return this.windowAccount === undefined ? undefined : this.sessions.get(this.windowAccount);
  }

  /**
   * The session of the account an order belongs to: a mark is posted by that account and no
   * other. The row's account where the window names it (an id may be in two marketplaces); else
   * the account that has heard of the order; one no account knows yet (a link), the window's.
   */
  private sessionOfOrder(orderId: string, account?: string): AccountSession {
    if (account !== undefined) return this.sessionNamed(account, 'The account this order belongs to');
    for (const session of this.sessions.values()) if (session.core.knowsOrder(orderId)) return session;
    return this.requireSession();
  }

  /** The session of an account the window names (its id); `subject` names it in the error. */
  private sessionNamed(account: string, subject = 'That account'): AccountSession {
    const named = this.sessions.get(account as AccountId);
    if (named) return named;
    // One whose store could not be opened has its secret: why it is closed is what helps.
    const unopened = this.unopened.get(account as AccountId);
    if (unopened) throw new CodedError('not-found', unopened.message, { details: unopened.details });
    throw new CodedError(
      'not-found',
      `${subject} is not connected: ${this.advice.enterSecret}, or add it again.`,
    );
  }

  /** The session whose outbox holds a marked status: the account the window names, else the one holding its request id. */
  private sessionOfDelivery(requestId: string, account?: string): AccountSession {
    if (account !== undefined) return this.sessionNamed(account, 'The account this status belongs to');
    for (const session of this.sessions.values()) if (session.core.holdsDelivery(requestId)) return session;
    return this.requireSession();
  }

  private get core(): SellerCore | undefined {
    return this.session?.core;
  }

  /** One request from this process (the shell's tray, notifier, lifecycle): typed, and checked like any other. */
  handle<C extends Channel>(channel: C, request: Requests[C]): Promise<Answer<Responses[C]>> {
    return this.handleMessage(channel, request) as Promise<Answer<Responses[C]>>;
  }

  /** One bridge message as it came from another process: the channel and the request checked, performed, answered. */
  async handleMessage(channel: string, payload: unknown): Promise<Answer<unknown>> {
    try {
      if (!isChannel(channel)) throw new CodedError('unknown-channel', `There is no operation "${channel}".`);
      return { ok: true, value: await this.perform(channel, payload) };
    } catch (error) {
      return { ok: false, error: toAnswerError(error, this.advice) };
    }
  }

  private perform<C extends Channel>(channel: C, payload: unknown): Promise<Responses[C]> {
    // TypeScript cannot narrow the table by a generic key; `requests` is checked against the contract.
    const schema = requests[channel] as unknown as z.ZodType<CheckedRequest<C>>;
    const input = schema.safeParse(payload);
    if (!input.success) throw new CodedError('invalid-input', describeInvalid(input.error));
    const handler: Handler<C> = this.handlers[channel];
    return handler(input.data);
  }

  /** What each channel does: the compiler requires one handler per channel of the contract. */
  private readonly handlers: Handlers = {
    getState: async () => this.state(),
    getSettings: async () => this.currentSettings(),
    setSettings: (patch) => this.updateSettings(patch),
    setSecret: ({ secret }) => this.storeSecret(secret),
    testConnection: (request) =>
      testConnection(request, {
        secrets: this.ports.secrets,
        api: this.settings.api,
        transport: this.ports.transport,
        log: this.log,
      }),
    addAccount: async (input) => {
      const { label, ...rest } = input;
      const added = await addAccount(
        { ...rest, which: { label } },
        { ...this.accountListPorts(), settings: () => this.settings },
      );
      this.saveSettings(added.settings);
      // A reconnected account starts again with its new secret.
      if (added.reconnected) await this.dropSession(accountRef(added.entry).id);
      await this.connect();
      return this.state();
    },
    renameAccount: async ({ account, label }) => {
      const entry = this.listedAccount(account);
      this.saveSettings(renameAccount(this.settings, { label: entry.label }, label, this.ports.dataRoot));
      // Reopened under its new label (connect): its log lines and notifications name it so.
      await this.connect();
      return this.state();
    },
    removeAccount: async ({ account, discardUndelivered }) => {
      const entry = this.listedAccount(account);
      // Its store is closed before its folder goes, and stays closed while the removal waits its
      // turn; a refused removal opens it again.
      this.removing.add(account as AccountId);
      await this.dropSession(account as AccountId);
      try {
        await removeAccount({ label: entry.label }, discardUndelivered, this.removalPorts());
      } finally {
        this.removing.delete(account as AccountId);
        await this.connect();
      }
      return this.state();
    },
    listOrders: async (query) => this.listOrders(query),
    getOrder: ({ orderId, account, reread }) =>
      this.sessionOfOrder(orderId, account).core.order(orderId, { reread }),
    markStatus: async ({ account, ...mark }) =>
      this.sessionOfOrder(mark.orderId, account).core.markStatus(signedMark(mark, this.actorName())),
    undoMark: async ({ requestId }) => ({
      outcome: this.sessionOfDelivery(requestId).core.undoMark(requestId),
    }),
    getAttention: async () => this.attention(),
    getInsights: async (request) => this.insights(request),
    resendStatus: async ({ requestId, account }) =>
      this.sessionOfDelivery(requestId, account).core.resendStatus(requestId),
    snoozeOrder: async ({ orderId, until, account }) => {
      this.sessionOfOrder(orderId, account).core.snooze(orderId, until);
      return { snoozedUntil: until };
    },
    tickRunbookStep: async ({ orderId, account, itemId, step, ticked }) => ({
      ticks: this.sessionOfOrder(orderId, account).core.tickRunbookStep(orderId, itemId, step, ticked),
    }),
    markAsideSeen: async ({ upToId, account }) => {
      // Ids kept aside are each store's own: they are marked in the account they came from.
      (account === undefined ? this.requireSession() : this.sessionNamed(account)).core.markAsideSeen(upToId);
      return this.state();
    },
    // Answered once queued: the order page hears of its end through orders-updated.
    runAutomation: async ({ orderId, automation, account }) =>
      this.sessionOfOrder(orderId, account).core.runAutomation(orderId, automation, 'again').queued,
    getAutomations: () => this.automations.view(),
    saveAutomation: ({ automation, replaces }) => this.automations.save(automation, replaces),
    removeAutomation: ({ automation }) => this.automations.remove(automation),
    setAutomationSecret: ({ automation, secret }) => this.automations.setSecret(automation, secret),
    testAutomation: ({ automation, orderId, account }) =>
      this.sessionOfOrder(orderId, account).core.runAutomationToEnd(orderId, automation, 'test'),
    retryDelivery: async ({ requestId, account }) => {
      const item = this.sessionOfDelivery(requestId, account).core.retryDelivery(requestId);
      if (!item) throw new CodedError('not-found', 'There is no failed status to send again with that id.');
      return item;
    },
    checkNow: async () => {
      // An account whose store could not be opened is tried again: its message says to try again.
      if (this.unopened.size > 0) await this.connect();
      // Every account checks; one that fails leaves the others' counts.
      const checks = await Promise.allSettled([...this.sessions.values()].map((s) => s.core.checkNow()));
      const newOrders = checks.reduce((sum, c) => sum + (c.status === 'fulfilled' ? c.value : 0), 0);
      return { state: this.state(), newOrders };
    },
    diagnose: () => this.diagnose(),
    startDemo: async () => {
      await this.startDemo();
      return this.state();
    },
    pauseNotifications: async ({ until, account }) => {
      const [only, ...others] = this.accountRefs();
      // Resumed in the header or tray: with one account listed, its own pause is the app's (appPause).
      if (account === undefined && until === null && only && others.length === 0)
        this.saveSettings(withAccountPause({ ...this.settings, pausedUntil: null }, only.id, null));
      else if (account === undefined) this.saveSettings({ ...this.settings, pausedUntil: until });
      else this.saveSettings(withAccountPause(this.settings, this.listedRef(account).id, until));
      return this.state();
    },
    getUpdateStatus: async () => this.updates.status(),
    checkForUpdates: () => this.updates.check(),
    openLogFolder: () => this.openLogFolder(),
    openInWindow: async () => {
      if (!this.ports.openInWindow) throw new CodedError('no-window', 'Only the desktop app opens windows.');
      this.ports.openInWindow();
      return { opened: true };
    },
    exportStatuses: ({ since }) => this.exportStatuses(since),
  };

  /** The shell's updater answers the About panel from now on. */
  attachUpdates(updates: UpdatesPort): void {
    this.updates = updates;
  }

  /**
   * Whether an order a link names is one of the accounts', for the shell (AccountSession.lookUpOrder).
   * A link naming a served account (its id, else its label in any case) is that account's. Otherwise
   * (an old link, or a name another laptop gave) the id must be in one account only: the accounts
   * that have heard of it; if none has, each account's marketplace, the window's first (one call
   * each at most, only when a link opens). In two: "ambiguous", naming them. In none: "not in
   * account", unless a marketplace could not be asked.
   */
  async lookUpOrder(orderId: string, account?: string): Promise<OrderLookup> {
    const name = account?.toLowerCase();
    const sessions = [...this.sessions.values()];
    // An id first: a label shaped like another account's id is never written in a link (orderLink).
    const named =
      sessions.find((s) => s.ref.id === name) ?? sessions.find((s) => s.ref.label?.toLowerCase() === name);
    if (named) return named.lookUpOrder(orderId);
    // A link names its account when more than one was served: an order of that id in another
    // (twin marketplaces, one client's test and production) is not the one linked.
    if (account !== undefined)
      return { found: false, reason: 'no-such-account', detail: `no account ${account} is served`, account };
    const known = sessions.filter((session) => session.core.knowsOrder(orderId));
    if (known.length === 1 && known[0]) return known[0].lookUpOrder(orderId);
    const window = this.session;
    const asked =
      known.length > 0 ? known : [...(window ? [window] : []), ...sessions.filter((s) => s !== window)];
    let lookup: OrderLookup = {
      found: false,
      reason: 'not-configured',
      detail: 'no marketplace account is set up',
    };
    const holders: AccountSession[] = [];
    for (const session of asked) {
      const answer = await session.lookUpOrder(orderId);
      if (answer.found) holders.push(session);
      else if (lookup.reason !== 'unreachable') lookup = answer;
    }
    const [only, ...others] = holders;
    if (only && others.length === 0) return { found: true, account: only.ref.id };
    if (!only) return lookup;
    const accounts = holders.map((s) => s.ref.label ?? s.ref.baseUrl);
    return { found: false, reason: 'ambiguous', detail: `in ${accounts.join(', ')}`, accounts };
  }

  /** The organization's policies in force, for the shell (where updates come from) and automations (whether they may run). */
  currentPolicies(): Policies {
    return this.policies.current();
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
    const refs = this.accountRefs();
    // Each served account's status read once; the counts are every account's together.
    const statuses = new Map(
      refs.flatMap((ref) => {
        const session = this.sessions.get(ref.id);
        return session ? [[ref.id, session.core.status()] as const] : [];
      }),
    );
    const status = this.windowAccount === undefined ? undefined : statuses.get(this.windowAccount);
    // Set up all the same when its store could not be opened (every account's): its problem says why.
    const unopened = this.windowAccount === undefined ? undefined : this.unopened.get(this.windowAccount);
    const all = [...statuses.values()];
    const sum = (count: (s: CoreStatus) => number) => all.reduce((total, s) => total + count(s), 0);
    return {
      setup: this.core || unopened ? (this.settings.demoMode ? 'demo' : 'configured') : 'unconfigured',
      baseUrl: this.settings.baseUrl,
      clientId: this.settings.clientId,
      secretStored: this.secretStored,
      actorName: this.actorName(),
      managed: this.managedState(),
      connection: status?.connection ?? 'starting',
      lastSuccessfulPoll: status?.lastSuccessfulPoll ?? null,
      health: status?.health ?? 'healthy',
      lastError: status?.lastError ?? null,
      problem: status?.problem ?? unopened ?? null,
      waitingCount: sum((s) => s.waitingCount),
      pendingOutbox: sum((s) => s.pendingOutbox),
      notificationsPausedUntil: this.pauseAhead(this.appPause()),
      attention: sumAttentionCounts(all.map((s) => s.attention)),
      accounts: refs.map((ref): AccountState => {
        const own = statuses.get(ref.id);
        return {
          id: ref.id,
          label: ref.label ?? ref.baseUrl,
          baseUrl: ref.baseUrl,
          clientId: ref.clientId,
          open: this.sessions.has(ref.id),
          connection: own?.connection ?? 'starting',
          lastSuccessfulPoll: own?.lastSuccessfulPoll ?? null,
          health: own?.health ?? 'healthy',
          problem: own?.problem ?? this.unopened.get(ref.id) ?? null,
          pendingOutbox: own?.pendingOutbox ?? 0,
          notificationsPausedUntil: this.pauseAhead(this.settings.accountPauses[ref.id] ?? null),
        };
      }),
    };
  }

  /**
   * The Needs attention view of every served account together (attention-across.ts), in the
   * accounts' order, with the settings' limits. Read from the stores only.
   */
  private attention(): Attention {
    const sources = this.accountRefs().flatMap((ref) => {
      const session = this.sessions.get(ref.id);
      return session ? [{ account: ref.id, attention: session.core.attention() }] : [];
    });
    if (sources.length === 0) this.requireSession(); // Says nothing is set up yet.
    const { reminderAfterMinutes, staleInProgressDays, escalateAfterMinutes } = this.settings;
    return attentionAcross(sources, {
      reminderAfterMinutes,
      stalledAfterDays: staleInProgressDays,
      escalateAfterMinutes,
    });
  }

  private managedState(): AppState['managed'] {
    const policies = this.policies.current();
    return {
      locked: lockedSettings(policies),
      demoAllowed: demoAllowed(policies),
      automationsAllowed: automationsForbidden(policies) === undefined,
      pollIntervalMinimumSeconds: policies.rules.pollIntervalMinimumSeconds ?? null,
      locale: policies.rules.locale ?? null,
    };
  }

  /** The listed account of an id (AccountState.id). */
  private listedAccount(id: string): AccountEntry {
    const entry = this.settings.accounts.find((a) => accountRef(a).id === id);
    if (!entry) throw new CodedError('not-found', 'There is no such account in the list any more.');
    return entry;
  }

  /** A served or listed account by its id as AppState gives it (the demo's too). */
  private listedRef(id: string): AccountRef {
    const ref = this.accountRefs().find((r) => r.id === id);
    if (!ref) throw new CodedError('not-found', 'There is no such account in the list any more.');
    return ref;
  }

  /**
   * The pause the header and tray show and end: the app's, and with one account listed its own too
   * (its row or `accounts pause` paused the app's one account), whichever ends later.
   */
  private appPause(): string | null {
    const [only, ...others] = this.accountRefs();
    const own = only && others.length === 0 ? this.settings.accountPauses[only.id] : undefined;
    return laterPause(this.settings.pausedUntil, own);
  }

  /** A pause's end while it is ahead, as ISO time; null when there is none or it has ended. */
  private pauseAhead(until: string | null): string | null {
    return pausedUntil(until, this.ports.now?.() ?? Date.now())?.toISOString() ?? null;
  }

  private accountListPorts(): AccountListPorts {
    const { secrets, dataRoot, transport } = this.ports;
    return { secrets, dataRoot, transport, log: this.log };
  }

  /** The settings' accounts; in demo mode the first is the demo's (its address changes from run to run). */
  private accountRefs(): readonly AccountRef[] {
    const { settings } = this;
    const demo = settings.demoMode && this.demoSecret !== undefined;
    // Derived again only when the settings (replaced whole on each change) or the demo's run do:
    // each inbox read asks, and a ref costs a hash and an address check.
    if (this.refs?.settings !== settings || this.refs.demo !== demo) {
      const refs = settings.accounts.map((entry, index) =>
        accountRef({ ...entry, demo: index === 0 && demo }, settings.api),
      );
      this.refs = { settings, demo, refs };
    }
    return this.refs.refs;
  }

  /** A change from the window; one a policy forbids is refused by the store (ManagedSettingsStore), nothing changed. */
  private async updateSettings(input: Partial<Settings>): Promise<Settings> {
    const patch = parseSettingsPatch(input);
    if (!patch.ok) {
      const fields = patch.errors.flatMap(({ field, message }) =>
        field === null ? [] : [{ field, message }],
      );
      throw new CodedError('invalid-input', patch.message, { fields });
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
    const next = reconcileAccounts(this.settings, settings);
    this.ports.settings.save(next);
    this.settings = next;
    this.emit({ type: 'app-state', state: this.state() });
  }

  private async storeSecret(secret: string): Promise<AppState> {
    const { baseUrl, clientId } = this.settings;
    if (!baseUrl || !clientId) {
      throw new CodedError(
        'invalid-input',
        'Set the base URL and the client id before the secret: the secret is kept for that marketplace and client id only.',
      );
    }
    const ref = accountRef({ baseUrl, clientId });
    await this.ports.secrets.set(keychainEntry(ref), secret);
    // Reopened, so a core that gave up on the old secret starts again with the new one.
    await this.dropSession(ref.id);
    await this.connect();
    return this.state();
  }

  private async startDemo(): Promise<void> {
    if (!demoAllowed(this.policies.current()))
      throw new CodedError(
        'managed',
        'Your organization has turned the demo off on this computer: Seller Tray works with its marketplace only.',
      );
    if (!this.ports.demo)
      throw new CodedError('demo-unavailable', 'This build has no built-in demo marketplace.');
    const demo = await this.ports.demo.start();
    if (demo.problem) this.emit({ type: 'problem', message: demo.problem });
    this.demoSecret = demo.clientSecret;
    // The demo is the first account while it lasts, the others kept behind it (leaving it removes it).
    const { accounts, demoMode } = this.settings;
    const others = demoMode ? accounts.slice(1) : accounts;
    const label = defaultAccountLabel(
      demo.baseUrl,
      true,
      others.map((a) => a.label),
    );
    this.saveSettings({
      ...this.settings,
      demoMode: true,
      baseUrl: demo.baseUrl,
      clientId: demo.clientId,
      accounts: [{ label, baseUrl: demo.baseUrl, clientId: demo.clientId }, ...others],
    });
    await this.connect();
  }

  /**
   * The Insights view's figures: one account's, or every served account's together (counts added,
   * percentiles over all their orders). Read from the stores only.
   */
  private insights({ account, ...request }: CheckedRequest<'getInsights'>): Insights {
    const sessions = account === 'all' ? [...this.sessions.values()] : [this.sessionNamed(account)];
    if (sessions.length === 0) this.requireSession();
    const { reminderAfterMinutes } = this.settings;
    const now = this.ports.now?.() ?? Date.now();
    const parts = sessions.map((s) => s.core.insights({ ...request, reminderAfterMinutes, now }));
    return summarizeInsights(
      parts,
      request,
      reminderAfterMinutes,
      sessions.map((s) => s.ref.id),
    );
  }

  /**
   * One page of orders by status and by a search in id, buyer, products, account id and e-mails:
   * of every served account together (inbox-across.ts), or of the one the query names.
   */
  private listOrders({ account, ...query }: CheckedRequest<'listOrders'>): OrderPage {
    const served =
      account === undefined
        ? this.accountRefs().flatMap((ref) => this.sessions.get(ref.id) ?? [])
        : [this.sessionNamed(account)];
    if (served.length === 0) this.requireSession(); // Says nothing is set up yet.
    const sources = served.map((session) => ({ account: session.ref.id, core: session.core }));
    const page = this.inbox.page(sources, {
      ...query,
      // The window's backlog folds away when large, but a search shows every order it finds.
      backlog: query.backlog ?? (query.search.trim() === '' ? 'by-size' : 'shown'),
      now: new Date(this.ports.now?.() ?? Date.now()).toISOString(),
      stalledAfterDays: this.settings.staleInProgressDays,
    });
    return { ...page, offset: query.offset };
  }

  /**
   * Opens a session for each account of the settings that has its secret, closes those no longer
   * listed, and leaves the others running: one account's change never restarts another's polls.
   */
  private connect(): Promise<void> {
    const run = this.connecting.then(() => this.connectNow());
    this.connecting = run.catch(() => {});
    return run;
  }

  private async connectNow(): Promise<void> {
    // Closed: nothing opens again (a removal ending after close() reconnects).
    if (this.closed) return;
    if (this.settings.demoMode && this.demoSecret === undefined && this.ports.demo) {
      // The demo marketplace runs again, on a port of its own; its account carries on.
      const demo = await this.ports.demo.start();
      if (demo.problem) this.emit({ type: 'problem', message: demo.problem });
      this.demoSecret = demo.clientSecret;
      this.saveSettings({ ...this.settings, baseUrl: demo.baseUrl, clientId: demo.clientId });
    }
    const refs = this.accountRefs();
    // A session whose account changed (its address, label or routes) is opened again as it is now.
    for (const [id, session] of this.sessions) {
      if (!refs.some((ref) => isDeepStrictEqual(ref, session.ref))) await this.dropSession(id);
    }
    for (const id of this.unopened.keys()) if (!refs.some((ref) => ref.id === id)) this.unopened.delete(id);
    const secrets = new Map<AccountId, boolean>();
    for (const ref of refs) {
      const stored = !ref.demo && (await this.secretInKeychain(keychainEntry(ref)));
      secrets.set(ref.id, stored);
      if (this.sessions.has(ref.id) || this.removing.has(ref.id) || !(stored || ref.demo)) continue;
      this.opening = this.openSession(ref);
      await this.opening;
    }
    // One whose store cannot be opened is told as such: the window shows the next, not onboarding.
    const window = refs.find((ref) => !this.unopened.has(ref.id)) ?? refs[0];
    this.windowAccount = window?.id;
    this.secretStored = window !== undefined && secrets.get(window.id) === true;
    this.emit({ type: 'app-state', state: this.state() });
    this.scheduleReopen();
  }

  /**
   * The accounts whose store could not be opened are tried again by themselves, as `run` does
   * (reopen-wait.ts): the app runs all day, and the trouble may pass with nobody to press Check now.
   * Each connect that leaves one closed is a failed try; one that opens them all ends the schedule.
   */
  private scheduleReopen(): void {
    this.timers.clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
    if (this.closed || this.unopened.size === 0) {
      this.reopenTries = 0;
      return;
    }
    this.reopenTries += 1;
    const waitMs = reopenWaitMs(this.reopenTries);
    this.log.warn("an account's store could not be opened: it is tried again later", {
      accounts: this.accountRefs()
        .filter((ref) => this.unopened.has(ref.id))
        .map((ref) => ref.label ?? ref.baseUrl)
        .join(', '),
      tries: this.reopenTries,
      tryAgainInSeconds: waitMs / 1000,
    });
    this.reopenTimer = this.timers.setTimeout(() => {
      this.connect().catch((error: unknown) => this.log.warn('connecting failed', failureFields(error)));
    }, waitMs);
  }

  private async openSession(ref: AccountRef): Promise<void> {
    // Closed while connect waited (the keychain, another store's open): nothing opens again.
    if (this.closed) return;
    const demoSecret = ref.demo ? this.demoSecret : undefined;
    // Several served: notifications and links name the account (preload/served-account.ts).
    const named = () => this.sessions.size > 1;
    const session = await AccountSession.open(ref, {
      dataRoot: this.ports.dataRoot,
      clientSecret: () => this.secretOf(ref, demoSecret),
      settings: () => this.settings,
      transport: this.ports.transport,
      timers: this.ports.timers,
      now: this.ports.now,
      log: this.log,
      locale: this.policies.current().rules.locale ?? this.ports.locale,
      named,
      surface: this.surface,
      // They run only while the settings say this laptop runs them (automationsEnabled).
      automations: automationPortsFor(ref, {
        ...this.ports,
        post: this.ports.post ?? (this.ports.transport && transportPost(this.ports.transport)),
        named,
        policies: () => this.policies.current(),
      }),
    }).catch((error: unknown) => this.notOpened(ref, error));
    if (!session) return;
    if (this.closed) return session.close();
    this.unopened.delete(ref.id);
    this.detach.set(
      ref.id,
      session.on((event) => {
        // Among several accounts, a problem says whose it is.
        if (event.type === 'problem' && this.sessions.size > 1)
          return this.emit({ ...event, message: `${ref.label ?? ref.baseUrl}: ${event.message}` });
        // A notification carries its account: a click opens this account's order, not a namesake.
        if (event.type === 'notification')
          return this.emit({ ...event, request: { ...event.request, account: ref.id } });
        if (event.type !== 'state-changed') return this.emit(event);
        // The header and the tray show each account's state.
        this.emit({ type: 'app-state', state: this.state() });
      }),
    );
    this.sessions.set(ref.id, session);
    void session.core.start();
  }

  /**
   * An account whose store cannot be opened stays closed, its files as they are, while the others
   * are served; told once for each reason (connect tries again: a settings change, Check now, and
   * by itself, scheduleReopen).
   */
  private notOpened(ref: AccountRef, error: unknown): undefined {
    const explained = explainFailure(error, adviceFor(this.surface, ref));
    this.log.error('an account could not be opened', {
      account: ref.label ?? ref.baseUrl,
      error: String(error),
    });
    const told = this.unopened.get(ref.id);
    this.unopened.set(ref.id, explained);
    if (told?.message === explained.message) return;
    const whose = this.accountRefs().length > 1 ? `${ref.label ?? ref.baseUrl}: ` : '';
    this.emit({ type: 'problem', ...explained, message: `${whose}${explained.message}` });
  }

  /** The account's secret at each use: the demo's, or the keychain's for this very marketplace. */
  private async secretOf(ref: AccountRef, demoSecret: string | undefined): Promise<string> {
    const secret = demoSecret ?? (await this.ports.secrets.get(keychainEntry(ref)));
    if (secret === undefined) {
      throw new CodedError('no-secret', 'The client secret is no longer in the keychain.');
    }
    return secret;
  }

  /** The window's account's connection and what this laptop kept aside (AccountSession.diagnose). */
  private async diagnose(): Promise<DiagnosisReport> {
    const diagnosis = await this.requireSession().diagnose();
    const policies = policyReport(this.policies.current());
    return policies.length === 0
      ? diagnosis
      : { ...diagnosis, report: `${diagnosis.report}\n\n${policies.join('\n')}` };
  }

  /**
   * The proof of delivery of every open account, one CSV, oldest first, saved where the user says
   * (`seller-tray statuses export` writes one account's).
   */
  private async exportStatuses(since: string | undefined): Promise<StatusExport> {
    if (!this.ports.saveFile)
      throw new CodedError('no-dialog', 'This build of Seller Tray cannot save files.');
    const from = since === undefined ? undefined : `${since}T00:00:00.000Z`;
    const rows = [...this.sessions.values()]
      .flatMap((session) => proofRows(accountName(session.ref), session.core.statusRecords(from)))
      .sort((a, b) => a.markedAt.localeCompare(b.markedAt));
    const day = new Date(this.ports.now?.() ?? Date.now()).toISOString().slice(0, 10);
    const path = await this.ports.saveFile(`seller-tray-statuses-${day}.csv`, proofCsv(rows));
    return { rows: rows.length, path };
  }

  /** Shows the log's folder where the platform can; always says where it is. */
  private async openLogFolder(): Promise<LogFolder> {
    const folder = this.ports.logFolder;
    if (!folder) throw new CodedError('no-log', 'This build of Seller Tray writes no log file.');
    if (!folder.open) return { path: folder.path, opened: false };
    try {
      await folder.open(folder.path);
    } catch (error) {
      throw new CodedError(
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
      this.emit({ type: 'problem', ...explainFailure(error, this.advice) });
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

  private requireSession(): AccountSession {
    const session = this.session;
    if (!session)
      throw new CodedError('not-configured', 'Seller Tray is not connected to a marketplace yet.');
    return session;
  }

  private emit(event: ServiceEvent): void {
    // Closed, there is no one left to tell: a removal still ending says nothing to a window gone.
    if (this.closed) return;
    if (UNHEARD_KEPT.has(event.type)) this.unheard?.push(event);
    for (const listener of this.listeners) listener(event);
  }
}

/**
 * An interrupted removal the app's start undid: why, and what to do in Settings (a process still
 * holding the account was already told to be stopped, and the account removed again).
 */
function listedAgainWords(entry: AccountEntry, error: Error): string {
  const code = error instanceof AccountListError ? error.code : undefined;
  const todo =
    code === 'in-use'
      ? ''
      : code === 'undelivered-statuses'
        ? ` They are sent as it is checked: ${REMOVE_AGAIN_IN_APP} once they are, or to discard them.`
        : ` ${capitalized(REMOVE_AGAIN_IN_APP)} if you still want it gone.`;
  return `The account ${escapedControls(entry.label)} was not removed and is listed again: ${escapedControls(error.message)}.${todo}`;
}

/** What stopped a removal past its point of no return, without the CLI's advice around it. */
const unfinishedCause = (error: Error): string =>
  error instanceof AccountListError && error.code === 'removal-unfinished' && error.cause instanceof Error
    ? error.cause.message
    : error.message;

function describeInvalid(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

function toAnswerError(error: unknown, advice: Advice): AnswerError {
  if (error instanceof CodedError) return error.toAnswerError();
  if (error instanceof OrderReadLater)
    return { ...toAnswerError(error.failure, advice), retryAt: error.retryAt };
  if (error instanceof KeychainUnavailableError)
    return { code: 'keychain-unavailable', ...explainFailure(error, advice) };
  if (error instanceof SecretInputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof SellerApiError) return { code: `api-${error.kind}`, ...explainFailure(error, advice) };
  return { code: 'internal', ...explainFailure(error, advice) };
}
