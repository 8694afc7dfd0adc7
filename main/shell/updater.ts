// Auto-update, for the installs that update themselves: the macOS app (from its signed zip),
// Windows' per-user NSIS install and the Linux AppImage, through electron-updater (electron-builder's
// own updater) and the feed their build names (app-update.yml). It checks at start and every 6
// hours while "Check for updates automatically" is on, downloads in the background, then says once
// "Seller Tray X is ready — restart to update" and offers "Restart to update" in the tray. It never
// restarts by itself, and not while statuses are waiting to be sent (in their undo period or the
// outbox): it says so, and restarts once they have gone. A failure is told plainly once, logged,
// and tried again at the next check; nothing here throws into the app.
//
// Update files come only from the feed's own folder (so its origin, and the https the build
// requires of it): a feed that names a file by an absolute URL, a path or an escape is refused
// before anything is downloaded, and no redirect is followed, from the feed or a file, to another
// origin or the same one (electron-updater's executor is told to follow none; its differential
// download, which follows redirects by itself, is turned off: updates download whole).
import type { UpdateStatus } from '../../preload/contract';
import type { MenuItemSpec } from './electron-ports';
import type { Installation } from './installation';

export const CHECK_EVERY_MS = 6 * 60 * 60 * 1000;

/** What a check of the feed found; a newer version is then downloading. */
export type FeedCheck =
  | { newer: false; latest: string }
  | { newer: true; version: string; downloaded: Promise<void> };

/** The update engine (electron-updater behind `electronUpdaterFeed`; fakes in tests). */
export interface UpdateFeed {
  check(): Promise<FeedCheck>;
  /** Quits, installs the downloaded version, and starts it. */
  restartAndInstall(): void;
}

export interface UpdaterOptions {
  /** None when this copy does not update itself (`availability` says why). */
  feed: UpdateFeed | undefined;
  availability: UpdateStatus['availability'];
  version: string;
  channel: string;
  /** The "Check for updates automatically" setting, as it is now. */
  automatic(): boolean;
  /** Statuses not delivered yet, undo period included (AppState.pendingOutbox). */
  pendingStatuses(): number;
  /** Calls back when the settings or the outbox change; returns the unsubscribe function. */
  onAppChange(listener: () => void): () => void;
  /** Tells the user (a notification). */
  tell(message: string): void;
  /** Writes to the log. */
  log(message: string): void;
  /** The status changed: the tray menu and the About panel follow. */
  onStatus(status: UpdateStatus): void;
  timers?: { every(ms: number, run: () => void): () => void };
  now?: () => Date;
}

/**
 * Who updates this copy of the app, from how it was installed, whether its build names a feed and
 * whether the organization's policies let it update itself (updatesEnabled). A copy installed for
 * every user is IT's to update: replacing it would need an administrator at each update, the
 * prompt loop fleets report, so it never tries.
 */
export function updateAvailability(
  installation: Installation,
  hasFeed: boolean,
  updatesAllowed = true,
): UpdateStatus['availability'] {
  switch (installation.kind) {
    case 'development':
      return 'development';
    case 'package':
      return 'package-manager';
    case 'unpacked':
      return 'unsupported';
    default:
      if (('perMachine' in installation && installation.perMachine) || !updatesAllowed) return 'managed';
      return hasFeed ? 'updater' : 'no-feed';
  }
}

const realTimers = {
  every(ms: number, run: () => void): () => void {
    const handle = setInterval(run, ms);
    handle.unref();
    return () => clearInterval(handle);
  },
};

export class Updater {
  private lastCheck: UpdateStatus['lastCheck'] = null;
  private checking: Promise<void> | undefined;
  private ready: string | null = null;
  private readonly announced = new Set<string>();
  /** A failure was told since the last success: the next ones are only logged. */
  private failureTold = false;
  private restartAsked = false;
  private wasAutomatic = false;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly options: UpdaterOptions) {}

  /** Checks now when the setting allows, then every 6 hours; follows the setting and the outbox. */
  start(): void {
    if (!this.options.feed) return;
    const timers = this.options.timers ?? realTimers;
    this.stops.push(
      timers.every(CHECK_EVERY_MS, () => {
        if (this.options.automatic()) void this.check();
      }),
    );
    this.stops.push(this.options.onAppChange(() => this.appChanged()));
    this.wasAutomatic = this.options.automatic();
    if (this.wasAutomatic) void this.check();
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  status(): UpdateStatus {
    return {
      version: this.options.version,
      channel: this.options.channel,
      availability: this.options.availability,
      lastCheck: this.lastCheck,
      checking: this.checking !== undefined,
      ready: this.ready,
      restartWaitsFor: this.restartAsked ? this.options.pendingStatuses() : null,
    };
  }

  /**
   * Checks the feed now; a check under way is joined. Resolves when the check is done (a download
   * goes on in the background). `asked`: the user asked, so the outcome is told whatever it is.
   */
  async check(asked = false): Promise<UpdateStatus> {
    const feed = this.options.feed;
    if (!feed) return this.status();
    if (!this.checking) {
      this.checking = this.runCheck(feed, asked).finally(() => {
        this.checking = undefined;
        this.changed();
      });
      this.changed();
    }
    await this.checking;
    return this.status();
  }

  /** "Restart to update": now, or once the statuses waiting to be sent have gone. */
  restart(): void {
    if (this.ready === null || !this.options.feed) return;
    this.restartAsked = true;
    const waiting = this.options.pendingStatuses();
    if (waiting > 0) {
      this.options.tell(`Seller Tray will restart when ${statuses(waiting)} been sent.`);
      this.changed();
    }
    this.restartIfDelivered();
  }

  /** The tray's items: Restart to update (once one is ready) and Check for updates. */
  menuItems(): MenuItemSpec[] {
    if (this.options.availability === 'package-manager') {
      return [{ label: 'Updates come from your package manager', enabled: false }];
    }
    if (this.options.availability === 'managed') {
      return [{ label: 'Updates come from your organization', enabled: false }];
    }
    if (this.options.availability !== 'updater') return [];
    const items: MenuItemSpec[] = [];
    if (this.ready !== null) {
      items.push(
        this.restartAsked
          ? {
              label: `Restart to update: after ${statuses(this.options.pendingStatuses())} been sent`,
              enabled: false,
            }
          : { label: 'Restart to update', click: () => this.restart() },
      );
    }
    items.push(
      this.checking
        ? { label: 'Checking for updates…', enabled: false }
        : { label: 'Check for updates', click: () => void this.check(true) },
    );
    return items;
  }

  private async runCheck(feed: UpdateFeed, asked: boolean): Promise<void> {
    let found: FeedCheck;
    try {
      found = await feed.check();
    } catch (error) {
      return this.failed('check', error, asked);
    }
    this.failureTold = false;
    if (!found.newer) {
      this.record(`Seller Tray ${this.options.version} is up to date.`, false);
      if (asked) this.options.tell(`Seller Tray ${this.options.version} is up to date.`);
      return;
    }
    const { version } = found;
    if (this.ready === version) {
      this.record(readyText(version), false);
      if (asked) this.options.tell(readyText(version));
      return;
    }
    this.record(`Seller Tray ${version} is available; it is downloading in the background.`, false);
    if (asked) this.options.tell(`Seller Tray ${version} is downloading; you will be told when it is ready.`);
    found.downloaded.then(
      () => this.downloaded(version),
      (error: unknown) => this.failed('download', error, false),
    );
  }

  private downloaded(version: string): void {
    this.ready = version;
    this.record(readyText(version), false);
    if (!this.announced.has(version)) {
      this.announced.add(version);
      this.options.tell(readyText(version));
    }
    this.changed();
  }

  private failed(stage: FailureStage, error: unknown, asked: boolean): void {
    const message = plainFailure(stage, error);
    this.record(message, true);
    this.options.log(`${message} (${error instanceof Error ? error.message : String(error)})`);
    if (asked || !this.failureTold) this.options.tell(message);
    this.failureTold = true;
    this.changed();
  }

  private appChanged(): void {
    const automatic = this.options.automatic();
    // Turned on: a check at once rather than in up to 6 hours.
    if (automatic && !this.wasAutomatic) void this.check();
    this.wasAutomatic = automatic;
    if (this.restartAsked) {
      this.changed();
      this.restartIfDelivered();
    }
  }

  private restartIfDelivered(): void {
    if (!this.restartAsked || this.options.pendingStatuses() > 0) return;
    this.restartAsked = false;
    try {
      this.options.feed?.restartAndInstall();
    } catch (error) {
      this.failed('install', error, true);
    }
  }

  private record(result: string, failed: boolean): void {
    this.lastCheck = { at: (this.options.now?.() ?? new Date()).toISOString(), result, failed };
  }

  private changed(): void {
    this.options.onStatus(this.status());
  }
}

export function readyText(version: string): string {
  return `Seller Tray ${version} is ready — restart to update.`;
}

/** "1 status has", "3 statuses have". */
function statuses(count: number): string {
  return count === 1 ? '1 status has' : `${count} statuses have`;
}

type FailureStage = 'check' | 'download' | 'install';

/**
 * A failure in words, from electron-updater's error codes and Node's network codes: offline, a
 * download that fails its checksum or signature, a feed that cannot be read; otherwise its message.
 */
export function plainFailure(stage: FailureStage, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const text = `${typeof code === 'string' ? code : ''} ${error instanceof Error ? error.message : String(error)}`;
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|net::ERR_/.test(text)) {
    return 'Seller Tray could not reach its update server; it will try again later.';
  }
  if (/sha512 checksum mismatch|ERR_UPDATER_INVALID_SIGNATURE|not signed|[Cc]ode ?[Ss]ignature/.test(text)) {
    return 'A downloaded update failed its integrity check and was discarded; this version keeps running.';
  }
  if (
    /ERR_UPDATER_(CHANNEL_FILE_NOT_FOUND|INVALID_UPDATE_INFO|INVALID_VERSION|NO_FILES_PROVIDED)|YAMLException|HttpError/.test(
      text,
    )
  ) {
    return 'The update server’s information could not be read; Seller Tray will try again later.';
  }
  if (/Too many redirects/.test(text)) {
    return 'The update server answered with a redirect, which Seller Tray does not follow: the feed and its files must be served at the feed’s own address. Nothing was installed.';
  }
  if (/ERR_SELLER_TRAY_FEED_FILE/.test(text)) {
    return 'The update feed names a file that is not beside it, which Seller Tray does not download. Nothing was installed.';
  }
  const what = {
    check: 'Checking for updates',
    download: 'Downloading the update',
    install: 'Installing the update',
  }[stage];
  return `${what} failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The part of electron-updater's AppUpdater the feed uses. */
export interface AppUpdaterPort {
  autoDownload: boolean;
  disableDifferentialDownload: boolean;
  checkForUpdates(): Promise<{
    isUpdateAvailable: boolean;
    updateInfo: { version: string; files?: readonly { url: string }[]; path?: string };
  } | null>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

/** electron-updater as the feed: it reads app-update.yml, checks, downloads and verifies. */
export function electronUpdaterFeed(updater: AppUpdaterPort): UpdateFeed {
  // Downloaded only once the files the feed names are known to be its own.
  updater.autoDownload = false;
  updater.disableDifferentialDownload = true;
  // electron-updater has no option for redirects: its executor's limit is the one knob (a
  // protected field), and below zero it follows none, on Electron's network stack and Node's.
  (updater as unknown as { httpExecutor: { maxRedirects: number } }).httpExecutor.maxRedirects = -1;
  return {
    async check() {
      const result = await updater.checkForUpdates();
      if (result === null) throw new Error('the updater is not active in this copy of the app');
      if (!result.isUpdateAvailable) return { newer: false, latest: result.updateInfo.version };
      const foreign = foreignFiles(result.updateInfo);
      if (foreign.length > 0) {
        throw new Error(
          `ERR_SELLER_TRAY_FEED_FILE: the feed names ${foreign.map((f) => JSON.stringify(f)).join(', ')}, not a file beside it`,
        );
      }
      return {
        newer: true,
        version: result.updateInfo.version,
        downloaded: updater.downloadUpdate().then(() => undefined),
      };
    },
    // Silent (the NSIS installer shows no pages) and started again afterwards.
    restartAndInstall: () => updater.quitAndInstall(true, true),
  };
}

/**
 * The files a feed names other than by a plain file name beside it, as electron-builder writes
 * them: an absolute URL (another origin, plain http), a path, or an escape a URL parser decodes
 * into one (`%2e%2e`, `%2f`) would be fetched from elsewhere.
 */
function foreignFiles(info: { files?: readonly { url: string }[]; path?: string }): string[] {
  const names = [
    ...(info.files ?? []).map((file) => file.url),
    ...(info.path === undefined ? [] : [info.path]),
  ];
  return names.filter((name) => !/^[^/\\?#%:]+$/.test(name) || /^\.+$/.test(name));
}
