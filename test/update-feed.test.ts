// An update feed as electron-builder publishes it (latest-linux.yml beside the AppImage, written with
// electron-builder's own YAML writer), served by a local HTTP server and read by electron-updater's
// own code: its AppImageUpdater, given the app-update.yml a build carries, behind the app's
// `electronUpdaterFeed` and `Updater`. Only Electron's parts are replaced: the app adapter (version,
// folders) and the HTTP executor (Node's instead of Electron's net), as electron-updater's own tests do.
// The attacks of issue 22 (a file named elsewhere, a feed or file that redirects) point at another
// origin, which records every request: none may reach it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestOptions, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppImageUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter';
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { electronUpdaterFeed, plainFailure, Updater } from '../main/shell/updater';
import type { UpdateStatus } from '../preload/contract';
import { type CaptureServer, startCaptureServer } from './support/capture-server';

const require = createRequire(import.meta.url);

/** electron-updater's own executor (its download code) with Node's HTTP client where Electron's net would be. */
class NodeNetExecutor extends ElectronHttpExecutor {
  override createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void) {
    return request(options, callback) as unknown as Electron.ClientRequest;
  }
  // Electron's net reports redirects as an event; Node's as a response, which HttpExecutor follows.
  protected override addRedirectHandlers(): void {}
}
const { serializeToYaml } = require('builder-util/out/util') as { serializeToYaml(value: unknown): string };

const APP_IMAGE = 'Seller-Tray-0.3.0.AppImage';
const appImageBytes = Buffer.from('#!/bin/sh\necho "Seller Tray 0.3.0"\n');
const sha512 = (bytes: Buffer) => createHash('sha512').update(bytes).digest('base64');

/** latest-linux.yml as electron-builder writes it for an AppImage (`url`: another place to name). */
function latestLinuxYml(version: string, checksum = sha512(appImageBytes), url = APP_IMAGE): string {
  return serializeToYaml({
    version,
    files: [{ url, sha512: checksum, size: appImageBytes.length }],
    path: url,
    sha512: checksum,
    releaseDate: '2026-11-22T08:00:00.000Z',
  });
}

let dir: string;
let server: Server;
let feedUrl: string;
/** What the server answers for latest-linux.yml: its body, a status, or a redirect. */
let feed: { body: string } | { status: number } | { redirect: string } = { status: 404 };
/** Where the server sends a request for the AppImage instead of answering it, if anywhere. */
let fileRedirect: string | undefined;
/** Another origin, which records what it is asked for: none of it may be fetched. */
let elsewhere: CaptureServer;
const savedAppImage = process.env.APPIMAGE;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seller-tray-update-feed-'));
  // The running AppImage, which an update replaces (electron-updater reads it from $APPIMAGE).
  process.env.APPIMAGE = join(dir, 'Seller-Tray-0.2.0.AppImage');
  await writeFile(process.env.APPIMAGE, 'the running version');
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/updates/latest-linux.yml') {
      if ('status' in feed) response.writeHead(feed.status).end();
      else if ('redirect' in feed) response.writeHead(302, { location: feed.redirect }).end();
      else response.writeHead(200, { 'content-type': 'text/yaml' }).end(feed.body);
    } else if (path === `/updates/${APP_IMAGE}` && fileRedirect) {
      response.writeHead(302, { location: fileRedirect }).end();
    } else if (path === `/updates/${APP_IMAGE}`) {
      response.writeHead(200, { 'content-length': appImageBytes.length }).end(appImageBytes);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/updates`;
  // It serves a feed and the AppImage as the real one does, so only the origin check stops them.
  elsewhere = await startCaptureServer((request, response) => {
    if (request.url?.endsWith('.yml')) response.writeHead(200).end(latestLinuxYml('0.3.0'));
    else response.writeHead(200, { 'content-length': appImageBytes.length }).end(appImageBytes);
  });
});
afterAll(async () => {
  if (savedAppImage === undefined) delete process.env.APPIMAGE;
  else process.env.APPIMAGE = savedAppImage;
  await new Promise((resolve) => server.close(resolve));
  await elsewhere.close();
  await rm(dir, { recursive: true, force: true });
});

let run = 0;
const updaters: string[] = [];
afterEach(() => {
  feed = { status: 404 };
  fileRedirect = undefined;
});

/** electron-updater's AppImage updater for an installed app of `version`, with the build's app-update.yml. */
async function installedApp(version: string, url = feedUrl) {
  const home = join(dir, `app-${++run}`);
  await mkdir(home, { recursive: true });
  // As electron-builder writes it into the app's resources from electron-builder.yml's `publish`.
  const configPath = join(home, 'app-update.yml');
  await writeFile(
    configPath,
    serializeToYaml({ provider: 'generic', url, updaterCacheDirName: 'seller-tray-updater' }),
  );
  const adapter: AppAdapter = {
    version,
    name: 'Seller Tray',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: join(home, 'user-data'),
    baseCachePath: join(home, 'cache'),
    whenReady: async () => {},
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {},
  };
  const updater = new AppImageUpdater(null, adapter);
  (updater as unknown as { httpExecutor: unknown }).httpExecutor = new NodeNetExecutor();
  updater.logger = null;
  // The AppImage is tiny and has no block map: a full download.
  updater.disableDifferentialDownload = true;
  updaters.push(home);
  return { updater, feed: electronUpdaterFeed(updater), cache: join(home, 'cache', 'seller-tray-updater') };
}

describe("an update feed read by electron-updater's own code", () => {
  it('a newer version is found, downloaded, checked against its sha512 and ready', async () => {
    feed = { body: latestLinuxYml('0.3.0') };
    const app = await installedApp('0.2.0');
    const found = await app.feed.check();
    expect(found).toMatchObject({ newer: true, version: '0.3.0' });
    if (!found.newer) throw new Error('unreachable');
    await found.downloaded;
    const pending = await readdir(join(app.cache, 'pending'));
    expect(pending).toContain(APP_IMAGE);
  });

  it('the same version, or an older one, is no update', async () => {
    feed = { body: latestLinuxYml('0.2.0') };
    expect(await (await installedApp('0.2.0')).feed.check()).toEqual({ newer: false, latest: '0.2.0' });
    feed = { body: latestLinuxYml('0.1.9') };
    expect(await (await installedApp('0.2.0')).feed.check()).toEqual({ newer: false, latest: '0.1.9' });
  });

  it.each([
    ['not YAML', 'version: [0.3.0\nfiles: {'],
    ['no version', serializeToYaml({ files: [{ url: APP_IMAGE, sha512: 'x', size: 1 }], path: APP_IMAGE })],
    ['a version that is not semver', latestLinuxYml('three')],
    ['no files', serializeToYaml({ version: '0.3.0', releaseDate: '2026-11-22T08:00:00.000Z' })],
    ['an HTML error page', '<html><body>Login required</body></html>'],
  ])('a malformed feed (%s) is a failure told in words, never an update', async (_name, body) => {
    feed = { body };
    const app = await installedApp('0.2.0');
    const failure = await app.feed
      .check()
      .then(async (found) => {
        if (found.newer) await found.downloaded;
        return found;
      })
      .then(
        (found) => ({ found }),
        (error: unknown) => ({ error }),
      );
    expect('error' in failure, JSON.stringify(failure)).toBe(true);
    if ('error' in failure) {
      expect(plainFailure('check', failure.error)).toBe(
        'The update server’s information could not be read; Seller Tray will try again later.',
      );
    }
  });

  it('a feed that is not there says the server’s information could not be read', async () => {
    feed = { status: 404 };
    const error = await (await installedApp('0.2.0')).feed.check().catch((e: unknown) => e);
    expect(plainFailure('check', error)).toBe(
      'The update server’s information could not be read; Seller Tray will try again later.',
    );
  });

  it('a download whose checksum does not match is refused and not kept', async () => {
    feed = { body: latestLinuxYml('0.3.0', sha512(Buffer.from('another file'))) };
    const app = await installedApp('0.2.0');
    const found = await app.feed.check();
    if (!found.newer) throw new Error('expected a newer version');
    const error = await found.downloaded.catch((e: unknown) => e);
    expect(plainFailure('download', error)).toBe(
      'A downloaded update failed its integrity check and was discarded; this version keeps running.',
    );
    const pending = join(app.cache, 'pending');
    expect(existsSync(pending) ? await readdir(pending) : []).not.toContain(APP_IMAGE);
  });

  it('an update server that does not answer is "could not reach"', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const app = await installedApp('0.2.0', `http://127.0.0.1:${port}/updates`);
    const error = await app.feed.check().catch((e: unknown) => e);
    expect(plainFailure('check', error)).toBe(
      'Seller Tray could not reach its update server; it will try again later.',
    );
  }, 20_000);

  /** The feed's outcome once any download has ended: what it found, or the failure in words. */
  async function outcome(app: Awaited<ReturnType<typeof installedApp>>) {
    try {
      const found = await app.feed.check();
      if (found.newer) await found.downloaded;
      return { found };
    } catch (error) {
      return { told: plainFailure('check', error) };
    }
  }

  it.each([
    ['on another origin', () => `${elsewhere.url}/${APP_IMAGE}`],
    ['over plain http by an absolute URL, even on the feed’s own host', () => `${feedUrl}/${APP_IMAGE}`],
    ['up a folder', () => `../elsewhere/${APP_IMAGE}`],
    ['up a folder, percent-encoded', () => `%2e%2e%2F${APP_IMAGE}`],
    ['by an absolute path', () => `/${APP_IMAGE}`],
    ['protocol-relative', () => `//${elsewhere.url.slice('http://'.length)}/${APP_IMAGE}`],
  ])('a feed naming its file %s is refused, and nothing is downloaded', async (_name, url) => {
    feed = { body: latestLinuxYml('0.3.0', sha512(appImageBytes), url()) };
    const app = await installedApp('0.2.0');
    expect(await outcome(app)).toEqual({
      told: 'The update feed names a file that is not beside it, which Seller Tray does not download. Nothing was installed.',
    });
    expect(elsewhere.requests).toEqual([]);
    expect(existsSync(join(app.cache, 'pending'))).toBe(false);
  });

  it('a feed that redirects, to another origin or its own, is not followed', async () => {
    for (const target of [`${elsewhere.url}/updates/latest-linux.yml`, `${feedUrl}/latest-linux.yml?moved`]) {
      feed = { redirect: target };
      expect(await outcome(await installedApp('0.2.0'))).toEqual({
        told: 'The update server answered with a redirect, which Seller Tray does not follow: the feed and its files must be served at the feed’s own address. Nothing was installed.',
      });
    }
    expect(elsewhere.requests).toEqual([]);
  });

  it('an update file that redirects to another origin is not followed, and nothing is kept', async () => {
    feed = { body: latestLinuxYml('0.3.0') };
    fileRedirect = `${elsewhere.url}/${APP_IMAGE}`;
    const app = await installedApp('0.2.0');
    const found = await app.feed.check();
    if (!found.newer) throw new Error('expected a newer version');
    const error = await found.downloaded.catch((e: unknown) => e);
    expect(plainFailure('download', error)).toMatch(/^The update server answered with a redirect/);
    expect(elsewhere.requests).toEqual([]);
    const pending = join(app.cache, 'pending');
    expect(existsSync(pending) ? await readdir(pending) : []).not.toContain(APP_IMAGE);
  });

  it('through the app’s Updater: told once that the new version is ready, and no restart by itself', async () => {
    feed = { body: latestLinuxYml('0.3.0') };
    const app = await installedApp('0.2.0');
    const told: string[] = [];
    let last: UpdateStatus | undefined;
    let restarts = 0;
    const updater = new Updater({
      feed: { ...app.feed, restartAndInstall: () => restarts++ },
      availability: 'updater',
      version: '0.2.0',
      channel: 'latest',
      automatic: () => true,
      pendingStatuses: () => 0,
      onAppChange: () => () => {},
      tell: (message) => told.push(message),
      log: () => {},
      onStatus: (status) => {
        last = status;
      },
      timers: { every: () => () => {} },
    });
    updater.start();
    const deadline = Date.now() + 10_000;
    while (last?.ready !== '0.3.0' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(last?.ready).toBe('0.3.0');
    expect(told).toEqual(['Seller Tray 0.3.0 is ready — restart to update.']);
    expect(restarts).toBe(0);
    expect(updater.menuItems().map((item) => item.label)).toEqual(['Restart to update', 'Check for updates']);
    updater.stop();
  });
});
