// One account at work: its client and its core, opened the same way by the app's service and by
// the CLI. Everything the core and its client write to the log names the account, so with
// several accounts the log still tells them apart.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosisReport } from '../../../preload/contract';
import { plural } from '../../../preload/counted';
import { laterPause } from '../../../preload/pause';
import { adviceFor, type Surface } from '../advice';
import { SellerApiClient, type SellerApiClientOptions } from '../api/client';
import { SellerApiError } from '../api/errors';
import type { Transport } from '../api/transport';
import { APP_VERSION } from '../app-identity';
import type { AutomationPorts } from '../automation/runner';
import { diagnose, formatDiagnosis } from '../diagnosis';
import { describeAside } from '../kept-aside';
import { type Log, silentLog, withoutCredentials } from '../log';
import type { Timers } from '../poller';
import { type CoreEvent, type CoreSettings, OrderReadLater, SellerCore } from '../seller-core';
import { DATABASE_FILE } from '../store/account-store';
import {
  type AccountRef,
  accountLog,
  accountName,
  clientOptionsFor,
  privateAccountFolder,
} from './account-ref';

export interface SessionPorts {
  /** The user data directory: the account's folder is derived from it (account-ref.ts). */
  dataRoot: string;
  /** The account's secret, read at each use (the keychain's, the environment's or the demo's). */
  clientSecret: () => Promise<string>;
  settings: () => CoreSettings;
  transport?: Transport | undefined;
  timers?: Timers | undefined;
  now?: (() => number) | undefined;
  log?: Log | undefined;
  locale?: string | undefined;
  /** What the account's automations need; none run without it (automation/ports.ts). */
  automations?: AutomationPorts | undefined;
  /** Whether notifications name the account (the app serving several): its label then. */
  named?: (() => boolean) | undefined;
  /** Where the session's messages are read: their advice names that surface's places to act. */
  surface: Surface;
}

/** What looking up a linked order found (see `lookUpOrder`). */
export type OrderLookup =
  /** Found, in this account (its id). */
  | { found: true; account: string }
  | { found: false; reason: 'not-configured' | 'not-in-account' | 'unreachable'; detail: string }
  /** An old link's id is in more than one account: these (their labels), for the user to choose. */
  | { found: false; reason: 'ambiguous'; detail: string; accounts: string[] }
  /** The link names an account not served here (removed, or added on another computer): as it names it. */
  | { found: false; reason: 'no-such-account'; detail: string; account: string };

/** Items kept aside that a diagnosis names one by one. */
const KEPT_ASIDE_SHOWN = 20;

export class AccountSession {
  private constructor(
    readonly ref: AccountRef,
    /** The account's core: its store, polls, marks and deliveries. */
    readonly core: SellerCore,
    /** Whether this laptop had no store for the account before (its backlog is recorded silently). */
    readonly firstRun: boolean,
    private readonly options: SellerApiClientOptions,
  ) {}

  static async open(ref: AccountRef, ports: SessionPorts): Promise<AccountSession> {
    const log = accountLog(ports.log ?? silentLog, ref);
    const options = clientOptionsFor(ref, ports.clientSecret, { transport: ports.transport, log });
    const dataDir = privateAccountFolder(ports.dataRoot, ref.id);
    const firstRun = !existsSync(join(dataDir, DATABASE_FILE));
    const core = await SellerCore.open({
      client: new SellerApiClient(options),
      dataDir,
      // Its notifications are held while the app or the account itself is paused (docs/architecture.md).
      settings: () => {
        const settings = ports.settings();
        return {
          ...settings,
          pausedUntil: laterPause(settings.pausedUntil, settings.accountPauses?.[ref.id]),
        };
      },
      ...(ports.timers ? { timers: ports.timers } : {}),
      ...(ports.now ? { now: ports.now } : {}),
      log,
      locale: ports.locale,
      automations: ports.automations,
      accountName: () => (ports.named?.() ? accountName(ref) : undefined),
      advice: adviceFor(ports.surface, ref),
    });
    log.info('account connected', { baseUrl: ref.baseUrl, clientId: ref.clientId, demo: ref.demo });
    return new AccountSession(ref, core, firstRun, options);
  }

  on(listener: (event: CoreEvent) => void): () => void {
    return this.core.on(listener);
  }

  /** Stops the core; resolves once its store is closed (bounded: see SellerCore.close). */
  close(): Promise<void> {
    return this.core.close();
  }

  /**
   * Whether an order a link names is this account's: the store first, then the marketplace once
   * (which fetches it into the store). Only the marketplace's "not found" says it is not; any
   * other failure says it could not be told.
   */
  async lookUpOrder(orderId: string): Promise<OrderLookup> {
    if (this.core.hasOrder(orderId)) return { found: true, account: this.ref.id };
    try {
      await this.core.order(orderId);
      return { found: true, account: this.ref.id };
    } catch (caught) {
      const error = caught instanceof OrderReadLater ? caught.failure : caught;
      const detail = error instanceof Error ? error.message : String(error);
      const notFound = error instanceof SellerApiError && error.status === 404;
      return { found: false, reason: notFound ? 'not-in-account' : 'unreachable', detail };
    }
  }

  /** The account's connection, operation by operation, and what this laptop kept aside. */
  async diagnose(): Promise<DiagnosisReport> {
    const diagnosis = {
      ...(await diagnose(this.options, undefined, this.core.tokenLifetime())),
      account: this.ref.label,
      lastSuccessfulPoll: this.core.status().lastSuccessfulPoll,
    };
    const { items, total } = this.core.keptAside(KEPT_ASIDE_SHOWN);
    const aside =
      total === 0
        ? 'Nothing the marketplace sent was kept aside on this laptop.\n'
        : [
            `Kept aside on this laptop: ${plural(total, 'item')} the marketplace sent that could not be read or are another seller's${total > items.length ? `; the latest ${items.length}` : ''}:`,
            ...describeAside(items).details.map((line) => `    ${line}`),
            '',
          ].join('\n');
    return {
      // The items kept aside hold the server's words too.
      report: `${formatDiagnosis(diagnosis, APP_VERSION)}\n${withoutCredentials(aside)}`,
      failed: diagnosis.steps.some((s) => s.outcome === 'failed'),
    };
  }
}
