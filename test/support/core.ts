// A SellerCore as the app builds it, on a temporary data directory ("a laptop"), talking
// to a simulator over loopback.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adviceFor } from '../../main/core/advice';
import { SellerApiClient } from '../../main/core/api/client';
import type { Log } from '../../main/core/log';
import type { Timers } from '../../main/core/poller';
import { type CoreEvent, type CoreSettings, SellerCore } from '../../main/core/seller-core';
import type { InboxRow } from '../../main/core/store/account-store';

export const TEST_SETTINGS: CoreSettings = {
  pollIntervalSeconds: 60,
  notificationsEnabled: true,
  pausedUntil: null,
  reminderAfterMinutes: 0,
  /** Sent at once: the tests of the grace period set their own. */
  undoSeconds: 0,
  staleInProgressDays: 7,
  /** Off: the tests of escalation set their own. */
  escalateAfterMinutes: 0,
};

/** Timers that never fire by themselves: tests poll explicitly and read the delays asked for. */
export class ManualTimers implements Timers {
  readonly delays: number[] = [];
  private pending = new Map<number, { callback: () => void; ms: number }>();
  private next = 1;

  setTimeout(callback: () => void, ms: number): unknown {
    this.delays.push(ms);
    const handle = this.next++;
    this.pending.set(handle, { callback, ms });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get scheduled(): number {
    return this.pending.size;
  }

  /** The delays of the timers scheduled now. */
  get pendingDelays(): number[] {
    return [...this.pending.values()].map((timer) => timer.ms);
  }

  /** Fires every scheduled callback once. */
  fireAll(): void {
    const callbacks = [...this.pending.values()];
    this.pending.clear();
    for (const { callback } of callbacks) callback();
  }

  /** Fires the callbacks scheduled with exactly this delay (one kind of timer: the liveness tick's). */
  fire(ms: number): void {
    for (const [handle, timer] of [...this.pending]) {
      if (timer.ms !== ms) continue;
      this.pending.delete(handle);
      timer.callback();
    }
  }
}

export interface Laptop {
  core: SellerCore;
  client: SellerApiClient;
  dataDir: string;
  events: CoreEvent[];
  settings: CoreSettings;
  timers: ManualTimers;
  notifications(): Extract<CoreEvent, { type: 'notification' }>['request'][];
  reopen(): Promise<Laptop>;
}

export async function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'laptop-'));
}

export async function openLaptop(
  baseUrl: string,
  dataDir?: string,
  options: {
    /** The client secret, or what it is at each token request (a secret revoked meanwhile). */
    secret?: string | (() => string);
    settings?: Partial<CoreSettings>;
    now?: () => number;
    /** The locale notifications write amounts in. */
    locale?: string;
    /** What support is told (the log file's lines). */
    log?: Log;
  } = {},
): Promise<Laptop> {
  const dir = dataDir ?? (await makeDataDir());
  const settings: CoreSettings = { ...TEST_SETTINGS, ...options.settings };
  const timers = new ManualTimers();
  const client = new SellerApiClient({
    baseUrl,
    credentials: {
      clientId: 'demo-client',
      clientSecret: async () =>
        (typeof options.secret === 'function' ? options.secret() : options.secret) ?? 'demo-secret',
    },
    retry: { maxAttempts: 2, baseDelayMs: 1 },
  });
  const core = await SellerCore.open({
    advice: adviceFor('app'),
    client,
    dataDir: dir,
    settings: () => settings,
    timers,
    ...(options.now ? { now: options.now } : {}),
    locale: options.locale,
    ...(options.log ? { log: options.log } : {}),
  });
  const events: CoreEvent[] = [];
  core.on((event) => events.push(event));
  return {
    core,
    client,
    dataDir: dir,
    events,
    settings,
    timers,
    notifications: () => events.flatMap((e) => (e.type === 'notification' ? [e.request] : [])),
    reopen: () => openLaptop(baseUrl, dir, options),
  };
}

export async function removeDataDir(laptop: Laptop): Promise<void> {
  await laptop.core.close();
  await rm(laptop.dataDir, { recursive: true, force: true });
}

/** Another laptop of the seller starts an order (whatever its own store says of it), and posts it at once. */
export async function startedElsewhere(laptop: Laptop, orderId: string): Promise<void> {
  await laptop.core.markStatus({
    orderId,
    statusCode: 'ProvisioningInProgress',
    description: 'Started on another laptop',
    override: true,
  });
  await laptop.core.deliverOutbox();
}

/** Every order the laptop's inbox holds, in inbox order. */
export function inbox(core: SellerCore, filter = 'all', search = ''): InboxRow[] {
  return core.orders({ filter, search, offset: 0, limit: 100_000 }).rows;
}
