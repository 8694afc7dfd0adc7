// The log file support reads: the service over the simulator with faults, writing through the
// adapter the app and the browser preview use (main/file-log.ts), then the file read back. Failed
// calls carry their operation, HTTP status and request id; polls, deliveries and announcements are
// there; the secret, the access tokens and any Authorization header are not.
import { lstat, mkdir, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppService } from '../main/app-service';
import { accountRef } from '../main/core/account/account-ref';
import type { Transport } from '../main/core/api/transport';
import { CREDENTIALS_REMOVED, logLine } from '../main/core/log';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { SellerTrayService } from '../main/core/service';
import { ConfSettingsStore, defaultAccountLabel } from '../main/core/settings';
import { fileLog, LOG_FILE_NAME, LOG_MAX_BYTES, logsDir } from '../main/file-log';
import type { Channel, Requests, Responses } from '../preload/contract';
import { type Simulator, startSimulator } from '../simulator/server';
import { ManualTimers, makeDataDir } from './support/core';
import { admin } from './support/raw-api';

const CLIENT_ID = 'log-client';
const SECRET = 'log-secret-5b1e9d2c';
/** A wrong secret the user might type: refused by the marketplace, and never written down. */
const WRONG_SECRET = 'wrong-secret-71c0aa3f';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

let sim: Simulator;
const dirs: string[] = [];
const secrets = new KeytarSecretStore();

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    sellers: [{ sellerId: 1001, orders: 6, clients: [{ clientId: CLIENT_ID, clientSecret: SECRET }] }],
  });
});
afterAll(async () => {
  await secrets.delete(secretOwner(sim.url, CLIENT_ID));
  await sim.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await makeDataDir();
  dirs.push(dir);
  return dir;
}

/** Node's fetch, keeping what each request carried: its Authorization header and request id. */
function capturingTransport() {
  const sent: { authorization: string | null; requestId: string | null }[] = [];
  const transport: Transport = (url, init) => {
    const headers = new Headers(init.headers);
    sent.push({ authorization: headers.get('authorization'), requestId: headers.get('x-request-id') });
    return fetch(url, init);
  };
  return { transport, sent };
}

function caller(service: SellerTrayService) {
  return async <C extends Channel>(channel: C, request?: Requests[C]): Promise<Responses[C]> => {
    const answer = await service.handle(channel, request as Requests[C]);
    if (!answer.ok) throw new Error(answer.error.message);
    return answer.value;
  };
}

async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the log file, after polls with failures, a delivery, an announcement and rejected credentials', () => {
  let text: string;
  let orderId: string;
  let deliveryRequestId: string;
  const { transport, sent } = capturingTransport();

  beforeAll(async () => {
    const dir = await dataDir();
    const folder = logsDir(dir);
    const service = await SellerTrayService.open({
      settings: new ConfSettingsStore({ cwd: dir }),
      secrets,
      dataRoot: dir,
      timers: new ManualTimers(),
      transport,
      log: fileLog(folder),
      logFolder: { path: folder },
    });
    const call = caller(service);
    try {
      // Statuses sent at once, not held to be undone: their delivery is what is logged here.
      await call('setSettings', { baseUrl: sim.url, clientId: CLIENT_ID, undoSeconds: 0 });
      await call('setSecret', { secret: SECRET });
      await until(() => service.state().lastSuccessfulPoll !== null);

      // A 503 the client retries; then a 429 asking for longer than it waits: that poll fails.
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'listEvents', action: 'status', status: 503 }],
      });
      await call('checkNow');
      expect(service.state().connection).toBe('ok');
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'listEvents', action: 'status', status: 429, retryAfterSeconds: 600 }],
      });
      await call('checkNow');
      // It answered, asking to slow down: a marketplace with problems, not "offline".
      expect(service.state().connection).toBe('server-problem');

      // A purchase, announced; a status marked for it, whose first answer is lost on the way.
      orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId;
      await call('checkNow');
      expect(service.state().connection).toBe('ok');
      await admin(sim.url, 'PATCH', 'faults', {
        script: [{ operation: 'sendEvent', action: 'dropAfterHandling' }],
      });
      deliveryRequestId = (await call('markStatus', { orderId, statusCode: 'ProvisioningInProgress' }))
        .requestId;
      await until(async () =>
        (await call('getOrder', { orderId })).outbox.some((item) => item.state === 'sent'),
      );

      // A secret the marketplace refuses, tested and then saved.
      await call('testConnection', { baseUrl: sim.url, clientId: CLIENT_ID, secret: WRONG_SECRET });
      await call('setSecret', { secret: WRONG_SECRET });
      await until(() => service.state().connection === 'credentials-rejected');
    } finally {
      service.close();
    }
    text = await readFile(join(folder, LOG_FILE_NAME), 'utf8');
  });

  const lines = (pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line));

  it('has every failed call with its operation, HTTP status and request id, as sent', () => {
    const retried = lines(
      new RegExp(`call failed operation=listEvents status=503 requestId=${UUID} .*next=retry`),
    );
    const gaveUp = lines(
      new RegExp(`call failed operation=listEvents status=429 requestId=${UUID} .*next=give-up`),
    );
    const refused = lines(
      new RegExp(`call failed operation=createToken status=401 requestId=${UUID} .*next=give-up`),
    );
    const lost = lines(
      new RegExp(`call failed operation=sendEvent requestId=${deliveryRequestId} kind=network`),
    );
    expect([retried.length, gaveUp.length, lost.length]).toEqual([1, 1, 1]);
    // The connection test and the poll with the saved wrong secret.
    expect(refused.length).toBeGreaterThanOrEqual(2);
    const sentIds = new Set(sent.map((request) => request.requestId));
    for (const line of [...retried, ...gaveUp, ...refused, ...lost]) {
      expect(line).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] \[(warn|error)\] /);
      expect(sentIds.has(line.match(/requestId=(\S+)/)?.[1] ?? '')).toBe(true);
    }
  });

  it('names the account on every line of its work: calls, polls, announcements, deliveries', () => {
    // By its label in the settings' list; an account only tested (not saved yet) by its id.
    const label = defaultAccountLabel(sim.url).replaceAll('.', '\\.');
    const id = accountRef({ baseUrl: sim.url, clientId: CLIENT_ID }).id;
    const work = lines(/ (call failed|poll ok|poll failed|announcement|delivery sent) /);
    expect(work.length).toBeGreaterThanOrEqual(8);
    for (const line of work) expect(line).toMatch(new RegExp(` account=(${label}|${id})$`));
    for (const line of lines(/ poll (ok|failed) /)) expect(line).toMatch(new RegExp(` account=${label}$`));
  });

  it('has each poll: the ones that worked with their counts, the failed ones with the reason', () => {
    expect(lines(/\[info\] +poll ok events=\d+ newEvents=\d+ newOrders=\d+ /).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(lines(/poll ok .*newOrders=1 /)).toHaveLength(1);
    expect(
      lines(
        /\[warn\] +poll failed operation=listEvents status=429 requestId=\S+ .*reason=".*" next=backing-off/,
      ),
    ).toHaveLength(1);
    expect(lines(/poll failed operation=createToken status=401 .*next=credentials-rejected/)).toHaveLength(1);
  });

  it('has the announcement and the delivery, by order and request id', () => {
    expect(lines(new RegExp(`announcement kind=new-order orderId=${orderId} notified=true`))).toHaveLength(1);
    expect(
      lines(
        new RegExp(
          `\\[info\\] +delivery sent orderId=${orderId} requestId=${deliveryRequestId} statusCode=ProvisioningInProgress attempt=1 eventId=\\S+`,
        ),
      ),
    ).toHaveLength(1);
  });

  it('holds no secret, no token and no Authorization header', () => {
    const credentials = sent.flatMap((request) => {
      const [, value] = request.authorization?.split(' ') ?? [];
      return value ? [value] : [];
    });
    const tokens = sent.flatMap((r) =>
      r.authorization?.startsWith('Bearer ') ? [r.authorization.slice(7)] : [],
    );
    expect(tokens.length).toBeGreaterThan(0);
    for (const forbidden of [SECRET, WRONG_SECRET, ...credentials, 'Authorization', 'Bearer ', 'Basic ']) {
      expect(text).not.toContain(forbidden);
    }
  });
});

describe('a log line', () => {
  it('is one line whatever the server said, with credentials removed', () => {
    const line = logLine('call failed', {
      reason:
        'HTTP 401: token Bearer eyJhbGciOi.eyJzdWIi.c2ln refused\n[error] forged line\u202e\u2028[error] forged too\u2029',
      header: '{"authorization": "opaque-9f2c", "client_secret": "s3cr3t"}',
      echoed: 'Basic ZGVtbzpzZWNyZXQ=',
      jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig',
      status: 401,
      absent: undefined,
    });
    expect(line).toBe(
      `call failed reason="HTTP 401: token ${CREDENTIALS_REMOVED} refused\\n[error] forged line\\u202e\\u2028[error] forged too\\u2029" header="{\\"${CREDENTIALS_REMOVED}\\", \\"${CREDENTIALS_REMOVED}\\"}" echoed="${CREDENTIALS_REMOVED}" jwt=${CREDENTIALS_REMOVED} status=401`,
    );
  });
});

describe('the log file as the app and the preview write it', () => {
  it('is logs/main.log in the data folder, its folder shown (the preview opens none)', async () => {
    const dir = await dataDir();
    const { service, demo } = await openAppService(dir);
    try {
      const call = caller(service);
      await call('startDemo');
      await until(() => service.state().lastSuccessfulPoll !== null);
      expect(await call('openLogFolder')).toEqual({ path: join(dir, 'logs'), opened: false });
    } finally {
      service.close();
      await demo.stop();
    }
    expect(await readdir(join(dir, 'logs'))).toEqual([LOG_FILE_NAME]);
    const text = await readFile(join(dir, 'logs', LOG_FILE_NAME), 'utf8');
    expect(text).toMatch(
      /\[info\] +account connected baseUrl=http:\/\/127\.0\.0\.1:\d+ clientId=demo-client demo=true/,
    );
    expect(text).toMatch(/\[info\] +poll ok /);
    // Readable by its user only, like the settings.
    if (process.platform !== 'win32') {
      expect((await stat(join(dir, 'logs'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, 'logs', LOG_FILE_NAME))).mode & 0o777).toBe(0o600);
    }
  });

  it(`rotates past ${LOG_MAX_BYTES / 1024 / 1024} MiB: the full file becomes main.old.log, one is kept`, async () => {
    const folder = logsDir(await dataDir());
    const log = fileLog(folder);
    const entry = { reason: 'x'.repeat(250) };
    const lineBytes = Buffer.byteLength(`${logLine('filler', entry)}\n`) + 40;
    for (let written = 0; written < 2.5 * LOG_MAX_BYTES; written += lineBytes) log.info('filler', entry);
    log.info('last entry');
    expect((await readdir(folder)).sort()).toEqual(['main.log', 'main.old.log']);
    // Moved aside once it passed the size (electron-log counts what it wrote, give or take a line).
    const old = (await stat(join(folder, 'main.old.log'))).size;
    expect(Math.abs(old - LOG_MAX_BYTES)).toBeLessThan(2 * lineBytes);
    const current = await readFile(join(folder, 'main.log'), 'utf8');
    expect(current.length).toBeLessThan(LOG_MAX_BYTES);
    expect(current.trimEnd().split('\n').at(-1)).toMatch(/\[info\] +last entry$/);
  });

  describe('with a link planted at it', () => {
    /** A file of someone else's choosing, outside the log's folder. */
    async function victim(): Promise<string> {
      const path = join(await dataDir(), 'victim.txt');
      await writeFile(path, 'untouched\n');
      return path;
    }

    it('removes a link at main.log at start, and writes its own file', async () => {
      const folder = logsDir(await dataDir());
      const target = await victim();
      await mkdir(folder, { recursive: true });
      await symlink(target, join(folder, LOG_FILE_NAME));
      fileLog(folder).info('entry after the link');
      expect(await readFile(target, 'utf8')).toBe('untouched\n');
      expect((await lstat(join(folder, LOG_FILE_NAME))).isFile()).toBe(true);
      const text = await readFile(join(folder, LOG_FILE_NAME), 'utf8');
      expect(text).toMatch(/\[warn\] +a link found at the log was removed/);
      expect(text).toMatch(/entry after the link/);
    });

    it('removes a link at the logs folder at start, so nothing lands in the folder it pointed to', async () => {
      const data = await dataDir();
      const elsewhere = join(data, 'elsewhere');
      await mkdir(elsewhere);
      await symlink(elsewhere, logsDir(data));
      fileLog(logsDir(data)).info('entry');
      expect(await readdir(elsewhere)).toEqual([]);
      expect((await lstat(logsDir(data))).isDirectory()).toBe(true);
    });

    it.skipIf(process.platform === 'win32')('never writes through a link planted while it runs', async () => {
      const folder = logsDir(await dataDir());
      const target = await victim();
      const log = fileLog(folder);
      log.info('before');
      await unlink(join(folder, LOG_FILE_NAME));
      await symlink(target, join(folder, LOG_FILE_NAME));
      log.info('after the link was planted');
      expect(await readFile(target, 'utf8')).toBe('untouched\n');
    });
  });
});
