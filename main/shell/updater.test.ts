// The updater's wiring with a fake feed, fake timers and a fake outbox count: when it checks, what it
// says (once), that it never restarts by itself nor while statuses wait to be sent, and that
// failures are told once and logged.
import { describe, expect, it } from 'vitest';
import type { UpdateStatus } from '../../preload/contract';
import {
  CHECK_EVERY_MS,
  type FeedCheck,
  plainFailure,
  readyText,
  type UpdateFeed,
  Updater,
  updateAvailability,
} from './updater';

/** A feed whose answers the test scripts, one per check. */
class FakeFeed implements UpdateFeed {
  checks = 0;
  restarts = 0;
  readonly answers: (() => Promise<FeedCheck>)[] = [];
  check(): Promise<FeedCheck> {
    this.checks++;
    const next = this.answers.shift();
    if (!next) throw new Error('the test gave no answer for this check');
    return next();
  }
  restartAndInstall(): void {
    this.restarts++;
  }
}

const upToDate = () => async (): Promise<FeedCheck> => ({ newer: false, latest: '0.1.0' });
const newer =
  (version: string, downloaded: Promise<void> = Promise.resolve()) =>
  async (): Promise<FeedCheck> => ({
    newer: true,
    version,
    downloaded,
  });
const failing = (error: Error) => async (): Promise<FeedCheck> => {
  throw error;
};
const offline = () =>
  Object.assign(new Error('getaddrinfo ENOTFOUND updates.example'), { code: 'ENOTFOUND' });

function setUp(
  overrides: { automatic?: boolean; pending?: number; availability?: UpdateStatus['availability'] } = {},
) {
  const feed = new FakeFeed();
  const told: string[] = [];
  const logged: string[] = [];
  const statuses: UpdateStatus[] = [];
  const app = { automatic: overrides.automatic ?? true, pending: overrides.pending ?? 0 };
  const listeners = new Set<() => void>();
  let tick: (() => void) | undefined;
  let interval: number | undefined;
  const updater = new Updater({
    feed: overrides.availability && overrides.availability !== 'updater' ? undefined : feed,
    availability: overrides.availability ?? 'updater',
    version: '0.1.0',
    channel: 'latest',
    automatic: () => app.automatic,
    pendingStatuses: () => app.pending,
    onAppChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tell: (message) => told.push(message),
    log: (message) => logged.push(message),
    onStatus: (status) => statuses.push(status),
    timers: {
      every: (ms, run) => {
        interval = ms;
        tick = run;
        return () => {
          tick = undefined;
        };
      },
    },
    now: () => new Date('2026-11-22T08:00:00Z'),
  });
  const appChanged = (change: Partial<typeof app>) => {
    Object.assign(app, change);
    for (const listener of listeners) listener();
  };
  /** Lets the updater's promises settle. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    feed,
    told,
    logged,
    statuses,
    updater,
    appChanged,
    settle,
    sixHoursPass: () => tick?.(),
    interval: () => interval,
    labels: () => updater.menuItems().map((item) => item.label),
  };
}

describe('the updater', () => {
  it('checks at start and every 6 hours, and not while the setting is off', async () => {
    const t = setUp();
    t.feed.answers.push(upToDate(), upToDate());
    t.updater.start();
    await t.settle();
    expect(t.feed.checks).toBe(1);
    expect(t.interval()).toBe(6 * 60 * 60 * 1000);
    expect(CHECK_EVERY_MS).toBe(21_600_000);
    t.sixHoursPass();
    await t.settle();
    expect(t.feed.checks).toBe(2);
    expect(t.updater.status().lastCheck).toEqual({
      at: '2026-11-22T08:00:00.000Z',
      result: 'Seller Tray 0.1.0 is up to date.',
      failed: false,
    });
    expect(t.told).toEqual([]);

    t.appChanged({ automatic: false });
    t.sixHoursPass();
    await t.settle();
    expect(t.feed.checks).toBe(2);
    // Stopped (the app quits): the schedule is gone, whatever the setting.
    t.updater.stop();
    t.appChanged({ automatic: true });
    t.sixHoursPass();
    await t.settle();
    expect(t.feed.checks).toBe(2);
  });

  it('off at start: no check until the setting is turned on, then one at once', async () => {
    const t = setUp({ automatic: false });
    t.updater.start();
    await t.settle();
    expect(t.feed.checks).toBe(0);
    t.feed.answers.push(upToDate());
    t.appChanged({ automatic: true });
    await t.settle();
    expect(t.feed.checks).toBe(1);
    // Other changes (a poll, a status sent) check nothing more.
    t.appChanged({});
    await t.settle();
    expect(t.feed.checks).toBe(1);
  });

  it('downloads a newer version in the background, then says once it is ready, and never restarts by itself', async () => {
    const t = setUp();
    let finish: () => void = () => {};
    t.feed.answers.push(newer('0.3.0', new Promise((resolve) => (finish = resolve))));
    t.updater.start();
    await t.settle();
    expect(t.updater.status().lastCheck?.result).toBe(
      'Seller Tray 0.3.0 is available; it is downloading in the background.',
    );
    expect(t.labels()).toEqual(['Check for updates']);
    finish();
    await t.settle();
    expect(t.told).toEqual(['Seller Tray 0.3.0 is ready — restart to update.']);
    expect(readyText('0.3.0')).toBe('Seller Tray 0.3.0 is ready — restart to update.');
    expect(t.updater.status()).toMatchObject({ ready: '0.3.0', restartWaitsFor: null });
    expect(t.labels()).toEqual(['Restart to update', 'Check for updates']);
    expect(t.statuses.at(-1)?.ready).toBe('0.3.0');

    // Found again six hours later: not told again, and still no restart.
    t.feed.answers.push(newer('0.3.0'));
    t.sixHoursPass();
    await t.settle();
    expect(t.told).toHaveLength(1);
    expect(t.feed.restarts).toBe(0);
  });

  it('restarts when asked, at once when nothing waits to be sent', async () => {
    const t = setUp();
    t.feed.answers.push(newer('0.3.0'));
    t.updater.start();
    await t.settle();
    t.updater.menuItems()[0]?.click?.();
    expect(t.feed.restarts).toBe(1);
  });

  it('waits while statuses are waiting to be sent, says so, and restarts once they have gone', async () => {
    const t = setUp({ pending: 1 });
    t.feed.answers.push(newer('0.3.0'));
    t.updater.start();
    await t.settle();
    t.updater.restart();
    expect(t.feed.restarts).toBe(0);
    expect(t.told.at(-1)).toBe('Seller Tray will restart when 1 status has been sent.');
    expect(t.updater.status().restartWaitsFor).toBe(1);
    expect(t.labels()[0]).toBe('Restart to update: after 1 status has been sent');
    expect(t.updater.menuItems()[0]?.enabled).toBe(false);

    // A status marked meanwhile (say in its undo period): still waiting, and the count follows.
    t.appChanged({ pending: 3 });
    expect(t.feed.restarts).toBe(0);
    expect(t.labels()[0]).toBe('Restart to update: after 3 statuses have been sent');

    t.appChanged({ pending: 0 });
    expect(t.feed.restarts).toBe(1);
    t.appChanged({ pending: 0 });
    expect(t.feed.restarts).toBe(1);
    expect(t.updater.status().restartWaitsFor).toBeNull();
  });

  it('says "3 statuses have been sent" for several', async () => {
    const t = setUp({ pending: 3 });
    t.feed.answers.push(newer('0.3.0'));
    t.updater.start();
    await t.settle();
    t.updater.restart();
    expect(t.told.at(-1)).toBe('Seller Tray will restart when 3 statuses have been sent.');
  });

  it('tells a failure plainly once and logs every one; a success in between lets the next be told', async () => {
    const t = setUp();
    t.feed.answers.push(failing(offline()), failing(offline()), upToDate(), failing(offline()));
    t.updater.start();
    await t.settle();
    t.sixHoursPass();
    await t.settle();
    expect(t.told).toEqual(['Seller Tray could not reach its update server; it will try again later.']);
    expect(t.logged).toHaveLength(2);
    expect(t.logged[0]).toContain('ENOTFOUND');
    expect(t.updater.status().lastCheck).toMatchObject({ failed: true });
    t.sixHoursPass();
    await t.settle();
    t.sixHoursPass();
    await t.settle();
    expect(t.told).toHaveLength(2);
  });

  it('a download that fails its check is told, and nothing is ready', async () => {
    const t = setUp();
    const mismatch = Object.assign(new Error('sha512 checksum mismatch, expected abc, got def'), {
      code: 'ERR_CHECKSUM_MISMATCH',
    });
    t.feed.answers.push(newer('0.3.0', Promise.reject(mismatch)));
    t.updater.start();
    await t.settle();
    expect(t.told).toEqual([
      'A downloaded update failed its integrity check and was discarded; this version keeps running.',
    ]);
    expect(t.updater.status().ready).toBeNull();
    expect(t.labels()).toEqual(['Check for updates']);
  });

  it('"Check for updates" from the tray tells the outcome, whatever it is', async () => {
    const t = setUp({ automatic: false });
    t.updater.start();
    t.feed.answers.push(upToDate(), failing(offline()), failing(offline()));
    t.updater
      .menuItems()
      .find((item) => item.label === 'Check for updates')
      ?.click?.();
    expect(t.labels()).toEqual(['Checking for updates…']);
    await t.settle();
    expect(t.told).toEqual(['Seller Tray 0.1.0 is up to date.']);
    await t.updater.check(true);
    await t.updater.check(true);
    expect(t.told.slice(1)).toEqual([
      'Seller Tray could not reach its update server; it will try again later.',
      'Seller Tray could not reach its update server; it will try again later.',
    ]);
  });

  it('joins a check under way instead of asking twice', async () => {
    const t = setUp({ automatic: false });
    t.feed.answers.push(upToDate());
    const [a, b] = await Promise.all([t.updater.check(), t.updater.check()]);
    expect(t.feed.checks).toBe(1);
    expect(a.lastCheck).toEqual(b.lastCheck);
  });

  it('without a feed it never checks; a deb says its package manager updates it', async () => {
    for (const availability of ['no-feed', 'package-manager', 'development', 'unsupported'] as const) {
      const t = setUp({ availability });
      t.updater.start();
      expect(await t.updater.check(true)).toMatchObject({ availability, lastCheck: null });
      expect(t.feed.checks).toBe(0);
      expect(t.labels()).toEqual(
        availability === 'package-manager' ? ['Updates come from your package manager'] : [],
      );
    }
  });

  it('names failures in words a person can act on', () => {
    expect(
      plainFailure('check', Object.assign(new Error('x'), { code: 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' })),
    ).toBe('The update server’s information could not be read; Seller Tray will try again later.');
    expect(
      plainFailure('download', new Error('New version 0.3.0 is not signed by the application owner')),
    ).toMatch(/integrity check/);
    expect(plainFailure('install', new Error('disk full'))).toBe('Installing the update failed: disk full');
  });
});

describe('who updates the app', () => {
  it('follows how it was installed and whether its build names a feed', () => {
    expect(updateAvailability({ kind: 'appimage', file: '/a' }, true)).toBe('updater');
    expect(updateAvailability({ kind: 'nsis' }, true)).toBe('updater');
    expect(updateAvailability({ kind: 'macos' }, true)).toBe('updater');
    expect(updateAvailability({ kind: 'macos' }, false)).toBe('no-feed');
    expect(updateAvailability({ kind: 'package', manager: 'deb' }, true)).toBe('package-manager');
    expect(updateAvailability({ kind: 'development' }, true)).toBe('development');
    expect(updateAvailability({ kind: 'unpacked' }, true)).toBe('unsupported');
  });

  it('leaves a copy installed for every user, or one whose policy turns updates off, to the organization', () => {
    expect(updateAvailability({ kind: 'nsis', perMachine: true }, true)).toBe('managed');
    expect(updateAvailability({ kind: 'macos', perMachine: true }, true)).toBe('managed');
    expect(updateAvailability({ kind: 'nsis' }, true, false)).toBe('managed');
    expect(updateAvailability({ kind: 'package', manager: 'deb' }, true, false)).toBe('package-manager');
    const updater = new Updater({
      feed: undefined,
      availability: 'managed',
      version: '0.1.0',
      channel: 'latest',
      automatic: () => true,
      pendingStatuses: () => 0,
      onAppChange: () => () => {},
      tell: () => {},
      log: () => {},
      onStatus: () => {},
    });
    updater.start(); // no feed: never a check, never a prompt
    expect(updater.menuItems()).toEqual([{ label: 'Updates come from your organization', enabled: false }]);
    expect(updater.status()).toMatchObject({ availability: 'managed', lastCheck: null, checking: false });
  });
});
