// Automations for real (issue 24): the core against the simulator over loopback HTTP, a loopback
// receiver that verifies the signature and answers 2xx, 4xx, 5xx, slowly or not at all, real
// commands (Node scripts) that succeed, fail, hang past their limit, crash, print megabytes or
// a status line, Slack and Teams payloads held to their documented shapes, and a hostile buyer
// through every action.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adviceFor } from '../main/core/advice';
import { SellerApiClient } from '../main/core/api/client';
import type { AutomationPorts } from '../main/core/automation/runner';
import { Claimant } from '../main/core/claimant';
import { type CoreEvent, type CoreSettings, SellerCore } from '../main/core/seller-core';
import { AccountStore } from '../main/core/store/account-store';
import type { AutomationRun, AutomationSetting } from '../preload/automations';
import { type Simulator, startSimulator } from '../simulator/server';
import { ManualTimers, TEST_SETTINGS } from './support/core';
import { HOSTILE_CHAT_NAMES, slackPlainMarkup, slackTextMarkup, teamsMarkup } from './support/hostile-chat';
import { CONTROL_OR_BIDI, HOSTILE_BUYER, hostileOrder } from './support/hostile-order';
import { REPO_ROOT } from './support/processes';
import { admin } from './support/raw-api';

const SECRET = 'whsec_test_0123456789';

/** A webhook receiver on loopback: records each request, answers as `mode` says. */
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
let receiver: Server;
let receiverUrl: string;
let mode: 'ok' | 'refuse' | 'html' | 'moved' | 'fail' | 'busy' | 'slow' | 'never' = 'ok';
const received: Received[] = [];

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 24, orders: 3 });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = {
        ok: 200,
        refuse: 422,
        html: 404,
        moved: 302,
        fail: 503,
        busy: 429,
        slow: 200,
        never: 0,
      }[mode];
      if (status === 0) return request.socket.destroy();
      // Too many requests: come back in ten minutes.
      if (mode === 'busy') return response.writeHead(429, { 'Retry-After': '600' }).end();
      // A web server's own error page, as a mistyped path gets.
      if (mode === 'html') return response.writeHead(404).end('<html>\n<body>Not Found</body>\n</html>\n');
      const answer = () => {
        response
          .writeHead(status, { 'Content-Type': 'text/plain' })
          .end(`answer \u001b[31m${status}\u001b[0m`);
      };
      if (mode === 'slow') setTimeout(answer, 1500);
      else answer();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await sim.close();
});

let dir: string;
let core: SellerCore;
let events: CoreEvent[];
let clock: number;
let settings: CoreSettings;
const secrets = new Map<string, string>();
/** The keychain out of reach (locked, no Secret Service): reading a secret throws. */
let keychainDown = false;

async function open(automations: AutomationSetting[], env?: NodeJS.ProcessEnv): Promise<void> {
  settings = { ...TEST_SETTINGS, automationsEnabled: true, automations };
  const ports: AutomationPorts = {
    secret: async (name) => {
      if (keychainDown) throw new Error('No OS keychain is available');
      return secrets.get(name);
    },
    account: { id: 'acct', label: 'demo-client at 127.0.0.1', baseUrl: sim.url },
    laptop: 'test-laptop',
    workDir: join(dir, 'work'),
    deliveryTimeoutMs: 500,
    ...(env ? { env } : {}),
  };
  core = await SellerCore.open({
    advice: adviceFor('app'),
    client: new SellerApiClient({
      baseUrl: sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    }),
    dataDir: dir,
    settings: () => settings,
    timers: new ManualTimers(),
    now: () => clock,
    automations: ports,
  });
  events = [];
  core.on((event) => events.push(event));
  await core.start(); // the backlog: no runs
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'automations-'));
  clock = Date.now();
  mode = 'ok';
  received.length = 0;
  secrets.clear();
  keychainDown = false;
});
afterEach(async () => {
  // Sentences joined into a message end once: "…anyway.." is a join gone wrong.
  const told = (events ?? []).flatMap((e) =>
    e.type === 'problem' ? [e.message] : e.type === 'notification' ? [e.request.body] : [],
  );
  await core?.close();
  await admin(sim.url, 'POST', 'reset');
  await rm(dir, { recursive: true, force: true });
  expect(told.filter((message) => /[^.]\.\.(?!\.)/.test(message))).toEqual([]);
});

const automation = (
  a: Partial<AutomationSetting> & Pick<AutomationSetting, 'name' | 'action'>,
): AutomationSetting => ({
  enabled: true,
  products: [],
  orderTypes: [],
  accounts: 'all',
  reportStatus: null,
  ...a,
});

/** A purchase at the marketplace, then a poll: its runs are queued and started. */
async function newOrder(order?: unknown): Promise<string> {
  const orderId = (await admin(sim.url, 'POST', 'purchases', order ? { order } : undefined)).json
    .orderId as string;
  await core.checkNow();
  return orderId;
}

/**
 * The order's runs once none is running or waiting for its slot: each has ended or waits to be
 * tried again (its end written, with what happened). One that ended without starting (a filter
 * left the order out, no secret) has no attempt counted.
 */
async function settled(orderId: string, timeoutMs = 15_000): Promise<AutomationRun[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const runs = core.automationRuns(orderId);
    if (runs.length > 0 && runs.every((r) => r.state !== 'running' && !r.claimed && r.detail !== null))
      return runs;
    if (Date.now() > until) throw new Error(`runs did not settle: ${JSON.stringify(runs)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The order's history once the marks the runs made reached the marketplace. */
async function marketplaceHistory(orderId: string) {
  await core.deliverOutbox();
  return (await core.order(orderId)).history;
}

const node = (script: string, extra: Partial<AutomationSetting> = {}, timeoutSeconds = 30) =>
  automation({
    name: 'provision',
    action: { type: 'command', command: [process.execPath, '-e', script], timeoutSeconds },
    ...extra,
  });

/** The signature check docs/automations.md gives receivers, taken from the page as it is. */
let verify: (body: string, header: string | string[] | undefined, secret: string) => boolean;
beforeAll(async () => {
  const page = await readFile(join(REPO_ROOT, 'docs/automations.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  const file = join(tmpdir(), `verify-${process.pid}.mjs`);
  await writeFile(file, `${code}\nexport { verify };\n`);
  verify = (await import(file)).verify;
  await rm(file);
});

function verified(request: Received, secret: string): boolean {
  return verify(request.body, String(request.headers['seller-tray-signature']), secret);
}

/** Whether a process runs (a zombie waiting for a parent gone too does not: it is reaped by init). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

const failureNotifications = () =>
  events.flatMap((e) =>
    e.type === 'notification' && e.request.kind === 'automation-failed' ? [e.request] : [],
  );
const problems = () => events.flatMap((e) => (e.type === 'problem' ? [e.message] : []));

describe('a webhook', () => {
  beforeEach(() => secrets.set('hook', SECRET));

  it("the docs' signature check refuses a request without the header or with a mangled one, never throwing (a throw in a plain http handler stops the receiver)", () => {
    const body = '{"version":1}';
    expect(verify(body, undefined, SECRET)).toBe(false);
    expect(verify(body, ['t=1,v1=00', 't=2,v1=00'], SECRET)).toBe(false);
    expect(verify(body, 'garbage', SECRET)).toBe(false);
    expect(verify(body, 't=,v1=zz', SECRET)).toBe(false);
  });

  it('is posted once per new order, signed, with the delivery id as idempotency key and the order JSON v1', async () => {
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'succeeded', httpStatus: 200, attempts: 1, trigger: 'new-order' });
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(verified(request, SECRET)).toBe(true);
    expect(verified(request, 'another secret')).toBe(false);
    const body = JSON.parse(request.body);
    expect(request.headers['seller-tray-delivery']).toBe(run?.deliveryId);
    expect(request.headers['idempotency-key']).toBe(run?.deliveryId);
    expect(body).toMatchObject({
      version: 1,
      event: 'order.created',
      deliveryId: run?.deliveryId,
      automation: 'hook',
      orderId,
      link: `seller-tray://order/${orderId}`,
      account: { label: 'demo-client at 127.0.0.1' },
      order: { orderId },
    });
    expect(Array.isArray(body.licenses)).toBe(true);
    expect(request.body).not.toContain('demo-secret');
    // The receiver's answer is kept cleaned (its escape sequences gone).
    expect(run?.output).toBe('answer 200');
    // A later poll does not post it again.
    await core.checkNow();
    expect(received).toHaveLength(1);
  });

  it("starts no delivery before the poll that read its order ended: the poll's own work comes first", async () => {
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderIds: string[] = [];
    for (let i = 0; i < 12; i++) orderIds.push((await admin(sim.url, 'POST', 'purchases')).json.orderId);
    // Each order read takes two slow requests: a delivery started as its order was read would
    // reach the receiver while the poll still reads the others.
    await admin(sim.url, 'PATCH', 'faults', { latencyMs: 60 });
    await core.checkNow();
    expect(received).toHaveLength(0);
    await admin(sim.url, 'PATCH', 'faults', { latencyMs: 0 });
    for (const orderId of orderIds) expect(await settled(orderId)).toMatchObject([{ state: 'succeeded' }]);
    expect(received).toHaveLength(orderIds.length);
  });

  it('holds no run for a poll that learns no new order: a slot freed meanwhile starts the next', async () => {
    // Each delivery times out (0.5 s): the four slots free while the next poll still waits for the marketplace.
    mode = 'slow';
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    for (let i = 0; i < 5; i++) await admin(sim.url, 'POST', 'purchases');
    await core.checkNow();
    await admin(sim.url, 'PATCH', 'faults', { latencyMs: 1500 });
    await core.checkNow();
    expect(received).toHaveLength(5);
  });

  it.each([
    ['refused (4xx)', 'refuse', 422],
    ['redirected (3xx, not followed)', 'moved', 302],
  ] as const)('%s is failed at once, not tried again, and told once', async (_, answer, status) => {
    mode = answer;
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'failed', httpStatus: status, attempts: 1 });
    expect(problems().filter((m) => m.includes('automation hook failed'))).toHaveLength(1);
    expect(failureNotifications()).toEqual([
      expect.objectContaining({ kind: 'automation-failed', title: 'Automation hook failed', orderId }),
    ]);
    clock += 3_600_000;
    await core.checkNow();
    expect(received).toHaveLength(1);
  });

  it.each([
    ['fail', 503, 'answered HTTP 503'],
    ['slow', null, 'did not answer within 0.5 s'],
    ['never', null, 'could not be reached'],
  ] as const)(
    'that answers %s is tried again later under the same delivery id, until it is delivered',
    async (failure, status, words) => {
      mode = failure;
      await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
      const orderId = await newOrder();
      const [first] = await settled(orderId);
      expect(first).toMatchObject({ state: 'queued', httpStatus: status, attempts: 1 });
      expect(first?.detail).toContain(words);
      // Not before it is due.
      await core.checkNow();
      expect(core.automationRuns(orderId)[0]?.attempts).toBe(1);
      mode = 'ok';
      clock += 31_000;
      await core.checkNow();
      const [second] = await settled(orderId);
      expect(second).toMatchObject({ state: 'succeeded', attempts: 2, deliveryId: first?.deliveryId });
      const ids = received.map((r) => r.headers['seller-tray-delivery']);
      expect(new Set(ids)).toEqual(new Set([first?.deliveryId]));
      expect(received.every((r) => verified(r, SECRET))).toBe(true);
    },
  );

  it('that asks to wait (429, Retry-After 600 s) is not tried again before then', async () => {
    mode = 'busy';
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    const [first] = await settled(orderId);
    expect(first).toMatchObject({ state: 'queued', httpStatus: 429, attempts: 1 });
    expect(Date.parse(first?.dueAt ?? '')).toBeGreaterThanOrEqual(clock + 600_000);
    mode = 'ok';
    clock += 31_000;
    await core.checkNow();
    expect(core.automationRuns(orderId)[0]?.attempts).toBe(1);
    expect(received).toHaveLength(1);
    clock += 600_000;
    await core.checkNow();
    const [second] = await settled(orderId);
    expect(second).toMatchObject({ state: 'succeeded', attempts: 2, deliveryId: first?.deliveryId });
  });

  it.each([
    ['turned off', { enabled: false }],
    ['no longer for this account', { accounts: ['another-account'] }],
  ] as [string, Partial<AutomationSetting>][])(
    'waiting to be tried again, once %s, is not sent again: it ends skipped, saying why',
    async (_, change) => {
      mode = 'fail';
      const hook = automation({
        name: 'hook',
        action: { type: 'webhook', url: receiverUrl },
        reportStatus: 'completed',
      });
      await open([hook]);
      const orderId = await newOrder();
      expect((await settled(orderId))[0]).toMatchObject({ state: 'queued', attempts: 1 });
      settings = { ...settings, automations: [{ ...hook, ...change }] };
      mode = 'ok';
      clock += 31_000;
      await core.checkNow();
      const [run] = await settled(orderId);
      expect(run?.state).toBe('skipped');
      expect(received).toHaveLength(1);
      expect(failureNotifications()).toEqual([]);
    },
  );

  it('is failed after 24 hours of retries', async () => {
    mode = 'fail';
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    await settled(orderId);
    clock += 24 * 3_600_000 + 1000;
    await core.checkNow();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'failed', attempts: 2 });
    expect(run?.detail).toContain('not delivered within 24 hours');
  });

  it("refused with an error page reports Failed with the HTTP status, not the page's last line", async () => {
    mode = 'html';
    await open([
      automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl }, reportStatus: 'completed' }),
    ]);
    const orderId = await newOrder();
    await settled(orderId);
    const failed = (await marketplaceHistory(orderId)).at(-1);
    expect(failed?.statusCode).toBe('ProvisioningFailed');
    expect(failed?.description).toContain('HTTP 404');
    expect(JSON.stringify(failed)).not.toContain('html>');
  });

  it('whose secret the keychain cannot give waits to be tried again, saying why, nothing sent', async () => {
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    keychainDown = true;
    const run = await core.runAutomationToEnd(await newOrder(), 'hook', 'test');
    // The try counts, so that the next waits longer.
    expect(run).toMatchObject({ state: 'queued', attempts: 1 });
    expect(run.detail).toContain('its signing secret could not be read: No OS keychain is available');
    expect(Date.parse(run.dueAt)).toBeGreaterThan(clock);
    expect(received).toHaveLength(0);
  });

  it('whose secret the keychain keeps refusing waits longer each time, as a receiver that does not answer', async () => {
    keychainDown = true;
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    const [first] = await settled(orderId);
    expect(first?.state).toBe('queued');
    const firstWait = Date.parse(first?.dueAt ?? '') - clock;
    clock += firstWait + 1000;
    await core.checkNow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [second] = await settled(orderId);
    expect(second?.state).toBe('queued');
    expect(Date.parse(second?.dueAt ?? '') - clock).toBeGreaterThan(firstWait);
  });

  it('whose secret could not be read for 24 hours reports Failed with a reason for the marketplace, the error kept here', async () => {
    keychainDown = true;
    await open([
      automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl }, reportStatus: 'completed' }),
    ]);
    const orderId = await newOrder();
    await settled(orderId);
    clock += 24 * 3_600_000 + 1000;
    await core.checkNow();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'failed' });
    expect(run?.detail).toContain('could not be read: No OS keychain is available');
    const failed = (await marketplaceHistory(orderId)).at(-1);
    expect(failed?.statusCode).toBe('ProvisioningFailed');
    // What the keychain, or a credential's file on a server, said is this computer's business.
    expect(failed?.description).toBe(
      'Provisioning failed, reported by automation hook on test-laptop: could not run: its signing secret could not be read on this computer',
    );
  });

  it('without its signing secret in the keychain fails, saying how to store it', async () => {
    secrets.clear();
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const [run] = await settled(await newOrder());
    expect(run?.state).toBe('failed');
    expect(run?.detail).toContain('seller-tray automations secret hook');
    expect(received).toHaveLength(0);
  });

  it('without its signing secret reports Failed with a reason for the marketplace, the advice kept here', async () => {
    secrets.clear();
    await open([
      automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl }, reportStatus: 'completed' }),
    ]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run?.detail).toContain('set it in Settings → Automations');
    const failed = (await marketplaceHistory(orderId)).at(-1);
    expect(failed?.statusCode).toBe('ProvisioningFailed');
    expect(failed?.description).toBe(
      'Provisioning failed, reported by automation hook on test-laptop: could not run: its signing secret is not set on this computer',
    );
    expect(JSON.stringify(failed)).not.toMatch(/Settings|seller-tray automations|--id/);
  });
});

describe('a command', () => {
  it('gets the order JSON on standard input and a minimal environment, never marketplace text in its arguments', async () => {
    const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);require('fs').writeFileSync('seen.json',JSON.stringify({env:process.env,argv:process.argv.slice(1),cwd:process.cwd(),o}));console.log('done for',o.orderId)})`;
    await open([node(script)], {
      PATH: process.env.PATH,
      HOME: '/home/x',
      AWS_SECRET_ACCESS_KEY: 'nope',
      SELLER_CLIENT_SECRET: 'nope',
      // Where a service's systemd credentials are: not told to the command.
      CREDENTIALS_DIRECTORY: '/run/credentials/seller-tray.service',
    });
    const orderId = await newOrder(hostileOrder);
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'succeeded', exitCode: 0, detail: 'exit 0' });
    const seen = JSON.parse(await readFile(join(dir, 'work', 'seen.json'), 'utf8'));
    expect(Object.keys(seen.env).sort()).toEqual(
      [
        'HOME',
        'PATH',
        'SELLER_TRAY_ACCOUNT',
        'SELLER_TRAY_DELIVERY_ID',
        'SELLER_TRAY_EVENT',
        'SELLER_TRAY_ORDER_ID',
        'SELLER_TRAY_ORDER_LINK',
      ].sort(),
    );
    expect(seen.env.SELLER_TRAY_ORDER_ID).toBe(orderId);
    expect(seen.env.SELLER_TRAY_DELIVERY_ID).toBe(run?.deliveryId);
    expect(seen.argv).toEqual([]);
    // The hostile buyer arrives as JSON data, whole.
    expect(seen.o.order.buyerCustomerParty.party.partyName).toBe(HOSTILE_BUYER);
    expect(run?.output).toBe(`done for ${orderId}`);
  });

  it('that fails keeps its exit code and output, told once, and reports Failed with its last line', async () => {
    await open([
      node(
        `console.log('creating tenant');console.error('\\u001b[31mquota exceeded\\u001b[0m');process.exit(2)`,
        { reportStatus: 'completed' },
      ),
    ]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ state: 'failed', exitCode: 2 });
    expect(run?.detail).toContain('exit 2');
    expect(run?.output).toBe('creating tenant\nquota exceeded');
    expect(problems().filter((m) => m.includes('automation provision failed'))).toHaveLength(1);
    const history = await marketplaceHistory(orderId);
    // In progress first, as a person takes an order, then Failed with the reason.
    expect(history.at(-2)).toMatchObject({
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by automation provision on test-laptop.',
    });
    expect(history.at(-1)).toMatchObject({
      statusCode: 'ProvisioningFailed',
      description: 'Provisioning failed, reported by automation provision on test-laptop: quota exceeded',
    });
  });

  it('that succeeds reports the status declared, signed by the automation', async () => {
    await open([node(`console.log('ok')`, { reportStatus: 'in-progress' })]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run?.detail).toBe('exit 0; marked ProvisioningInProgress');
    const history = await marketplaceHistory(orderId);
    expect(history.at(-1)).toMatchObject({
      statusCode: 'ProvisioningInProgress',
      description: 'Provisioning started by automation provision on test-laptop.',
    });
  });

  it('whose reported status the core finds unusual is told in words for an automation, without asking it to confirm', async () => {
    await open([
      node(`console.log('ok')`, { name: 'setup', reportStatus: 'completed' }),
      // Fails after setup completed the order: Failed on a Completed order is not marked.
      node(`setTimeout(()=>{console.error('quota exceeded');process.exit(2)},1500)`, {
        reportStatus: 'completed',
      }),
    ]);
    const orderId = await newOrder();
    const runs = await settled(orderId);
    const provision = runs.find((r) => r.automation === 'provision');
    expect(provision?.detail).toContain(
      'provision reported Failed for an order already Completed (marked by automation setup on test-laptop); it was not marked: a status out of the usual order is marked only by a person, on the order page',
    );
    const told = problems().filter((m) => m.includes('automation provision failed'));
    expect(told).toHaveLength(1);
    expect(told[0]).not.toMatch(/\.\.|confirm/);
    expect((await marketplaceHistory(orderId)).at(-1)?.statusCode).toBe('ProvisioningCompleted');
  });

  it('that prints a status line reports that status and its detail', async () => {
    await open([
      node(
        `console.log('working');console.log(JSON.stringify({status:'completed',detail:'tenant t-42 ready'}))`,
        { reportStatus: 'in-progress' },
      ),
    ]);
    const orderId = await newOrder();
    await settled(orderId);
    const history = await marketplaceHistory(orderId);
    expect(history.at(-1)).toMatchObject({
      statusCode: 'ProvisioningCompleted',
      description: 'Provisioning completed by automation provision on test-laptop: tenant t-42 ready',
    });
  });

  it('that draws its progress over one line (carriage returns) reports the status line it ends with', async () => {
    const line = JSON.stringify({ status: 'completed', detail: 'tenant t-9 ready' });
    await open([
      node(`process.stdout.write('10%\\r55%\\r100%\\r'+${JSON.stringify(line)}+'\\r\\n')`, {
        reportStatus: 'in-progress',
      }),
    ]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run?.output?.split('\n').at(-1)).toBe(line);
    expect((await marketplaceHistory(orderId)).at(-1)).toMatchObject({
      statusCode: 'ProvisioningCompleted',
      description: 'Provisioning completed by automation provision on test-laptop: tenant t-9 ready',
    });
  });

  it('whose status line says failed is told so, and one whose status is not understood is told it was ignored', async () => {
    await open([
      node(`console.log(JSON.stringify({status:'failed',detail:'no capacity'}))`),
      node(`console.log(JSON.stringify({status:'done',detail:'tenant ready'}))`, { name: 'typo' }),
    ]);
    const runs = await settled(await newOrder());
    expect(runs).toHaveLength(2);
    const by = (name: string) => runs.find((r) => r.automation === name);
    expect(by('provision')).toMatchObject({ state: 'failed', exitCode: 0 });
    expect(by('provision')?.detail).toContain('its status line said failed');
    expect(by('typo')).toMatchObject({ state: 'succeeded', exitCode: 0 });
    expect(by('typo')?.detail).toContain('"done" is not in-progress, completed or failed');
  });

  it('that hangs past its time limit is stopped with what it started', async () => {
    const started = Date.now();
    const script = `const c=require('child_process').spawn(process.execPath,['-e','process.on("SIGTERM",()=>{});setTimeout(()=>{},60000)'],{stdio:'inherit'});console.log('grandchild',c.pid);setTimeout(()=>{},60000)`;
    await open([node(script, {}, 1)]);
    const [run] = await settled(await newOrder());
    expect(run).toMatchObject({ state: 'failed' });
    expect(run?.detail).toContain('stopped after its time limit of 1 s');
    expect(Date.now() - started).toBeLessThan(8_000);
    // What it started, even one that ignores SIGTERM, is gone too.
    const grandchild = Number(/grandchild (\d+)/.exec(run?.output ?? '')?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(running(grandchild)).toBe(false);
  });

  it('that exits leaving a process it started, holding its output, ends when it exits: its exit and status line decide, what it left goes', async () => {
    // `nohup server &` in a script: the process left keeps the command's output pipe open.
    const script = `const c=require('child_process').spawn(process.execPath,['-e','setTimeout(()=>{},60000)'],{stdio:'inherit'});console.log('left',c.pid);console.log(JSON.stringify({status:'completed',detail:'tenant t-7 ready'}));process.exit(0)`;
    const started = Date.now();
    await open([node(script, { reportStatus: 'in-progress' }, 20)]);
    const orderId = await newOrder();
    const [run] = await settled(orderId, 15_000);
    expect(run).toMatchObject({
      state: 'succeeded',
      exitCode: 0,
      detail: 'exit 0; marked ProvisioningCompleted',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    const left = Number(/left (\d+)/.exec(run?.output ?? '')?.[1]);
    expect(left).toBeGreaterThan(0);
    expect(running(left)).toBe(false);
  });

  it('that exits leaving a process in a session of its own holding its output still ends when it exits', async () => {
    // A daemon's setsid: out of the command's group, so not stopped (docs/automations.md's limit), but not waited for.
    const script = `const c=require('child_process').spawn(process.execPath,['-e','setTimeout(()=>{},60000)'],{stdio:'inherit',detached:true});console.log('left',c.pid);process.exit(3)`;
    await open([node(script, {}, 20)]);
    const [run] = await settled(await newOrder(), 15_000);
    const left = Number(/left (\d+)/.exec(run?.output ?? '')?.[1]);
    if (left > 0 && running(left)) process.kill(left, 'SIGKILL');
    expect(run).toMatchObject({ state: 'failed', exitCode: 3, detail: 'exit 3' });
  });

  it('that is stopped at its time limit reports Failed saying so, not with its last progress line', async () => {
    await open([
      node(`console.log('creating tenant');setTimeout(()=>{},60000)`, { reportStatus: 'completed' }, 1),
    ]);
    const orderId = await newOrder();
    await settled(orderId);
    const failed = (await marketplaceHistory(orderId)).at(-1);
    expect(failed?.statusCode).toBe('ProvisioningFailed');
    expect(failed?.description).toBe(
      'Provisioning failed, reported by automation provision on test-laptop: stopped after its time limit of 1 s',
    );
    expect(JSON.stringify(failed)).not.toContain('creating tenant');
  });

  it('that is stopped at its time limit after an in-progress status line reports Failed, not In progress', async () => {
    const line = JSON.stringify({ status: 'in-progress', detail: 'creating tenant' });
    await open([
      node(`console.log(${JSON.stringify(line)});setTimeout(()=>{},60000)`, { reportStatus: 'completed' }, 1),
    ]);
    const orderId = await newOrder();
    const [run] = await settled(orderId);
    expect(run?.state).toBe('failed');
    const last = (await marketplaceHistory(orderId)).at(-1);
    // The run failed here: the marketplace must not be left believing it is under way.
    expect(last?.statusCode).toBe('ProvisioningFailed');
  });

  it('that crashes is failed with its signal', async () => {
    await open([node(`process.kill(process.pid, 'SIGSEGV')`)]);
    const [run] = await settled(await newOrder());
    expect(run).toMatchObject({ state: 'failed', exitCode: null, detail: 'ended by signal SIGSEGV' });
  });

  it('that cannot start is failed, saying why', async () => {
    await open([
      automation({
        name: 'provision',
        action: { type: 'command', command: [join(dir, 'missing.sh')], timeoutSeconds: 5 },
      }),
    ]);
    const [run] = await settled(await newOrder());
    expect(run?.state).toBe('failed');
    expect(run?.detail).toContain('could not be started');
  });

  it('that prints megabytes keeps only the end of it, its last line included', async () => {
    await open([
      node(
        `process.stdout.write('x'.repeat(80)+'\\n');for(let i=0;i<60000;i++)process.stdout.write('line '+i+' '+'y'.repeat(80)+'\\n');console.log('the last line')`,
      ),
    ]);
    const [run] = await settled(await newOrder());
    expect(run?.state).toBe('succeeded');
    expect(run?.output?.length).toBeLessThan(17 * 1024);
    expect(run?.output).toMatch(/^\[\d+ bytes of output before this left out\]/);
    expect(run?.output?.endsWith('the last line')).toBe(true);
  });

  it('runs only for the products and order types it names', async () => {
    await open([node(`console.log('ran')`, { products: ['no-such-product'] })]);
    const [run] = await settled(await newOrder());
    expect(run).toMatchObject({ state: 'skipped', exitCode: null });
  });
});

/** Slack Block Kit as its reference documents it, for the blocks this app sends. */
function slackShapeProblems(message: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const text = (t: { type?: string; text?: string } | undefined, where: string, max: number) => {
    if (!t || !['plain_text', 'mrkdwn'].includes(t.type ?? '')) problems.push(`${where}: not a text object`);
    if (typeof t?.text !== 'string' || t.text.length === 0 || t.text.length > max)
      problems.push(`${where}: text length`);
  };
  if (typeof message.text !== 'string') problems.push('text: the fallback is missing');
  const blocks = message.blocks as {
    type: string;
    text?: { type: string; text: string };
    fields?: [];
    elements?: [];
  }[];
  if (!Array.isArray(blocks) || blocks.length > 50) problems.push('blocks');
  for (const [i, block] of blocks.entries()) {
    if (block.type === 'header') {
      text(block.text, `blocks[${i}].text`, 150);
      if (block.text?.type !== 'plain_text') problems.push('a header takes plain_text only');
    } else if (block.type === 'section') {
      if (!block.text && !block.fields) problems.push(`blocks[${i}]: a section needs text or fields`);
      if ((block.fields ?? []).length > 10) problems.push(`blocks[${i}]: at most 10 fields`);
      for (const [j, f] of (block.fields ?? []).entries()) text(f, `blocks[${i}].fields[${j}]`, 2000);
    } else if (block.type === 'context') {
      if ((block.elements ?? []).length > 10) problems.push(`blocks[${i}]: at most 10 elements`);
      for (const [j, e] of (block.elements ?? []).entries()) text(e, `blocks[${i}].elements[${j}]`, 3000);
    } else problems.push(`blocks[${i}]: unexpected ${block.type}`);
  }
  return problems;
}

/**
 * An Adaptive Card as schema 1.4 (microsoft/AdaptiveCards schemas/1.4.0/adaptive-card.json)
 * allows it, for the elements this app sends: each object's properties among the schema's (it
 * allows no others), the enumerations' values, and text as strings.
 */
function adaptiveCardProblems(card: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const only = (o: Record<string, unknown>, allowed: string[], where: string) => {
    for (const key of Object.keys(o))
      if (!allowed.includes(key)) problems.push(`${where}: no property ${key}`);
  };
  only(card, ['$schema', 'type', 'version', 'body', 'actions', 'fallbackText', 'lang', 'speak'], 'card');
  if (card.type !== 'AdaptiveCard' || card.version !== '1.4') problems.push('card: type or version');
  for (const [i, e] of (card.body as Record<string, unknown>[]).entries()) {
    if (e.type === 'TextBlock') {
      only(
        e,
        [
          'type',
          'text',
          'color',
          'fontType',
          'horizontalAlignment',
          'isSubtle',
          'maxLines',
          'size',
          'weight',
          'wrap',
          'id',
          'spacing',
          'separator',
        ],
        `body[${i}]`,
      );
      if (typeof e.text !== 'string') problems.push(`body[${i}]: text`);
      if (e.weight !== undefined && !/^(default|lighter|bolder)$/i.test(String(e.weight)))
        problems.push(`body[${i}]: weight`);
      if (e.size !== undefined && !/^(default|small|medium|large|extraLarge)$/i.test(String(e.size)))
        problems.push(`body[${i}]: size`);
    } else if (e.type === 'FactSet') {
      only(e, ['type', 'facts', 'id', 'spacing', 'separator'], `body[${i}]`);
      for (const [j, f] of (e.facts as Record<string, unknown>[]).entries()) {
        only(f, ['title', 'value'], `body[${i}].facts[${j}]`);
        if (typeof f.title !== 'string' || typeof f.value !== 'string')
          problems.push(`body[${i}].facts[${j}]: text`);
      }
    } else problems.push(`body[${i}]: unexpected ${String(e.type)}`);
  }
  return problems;
}

describe('Slack and Teams', () => {
  async function posted(type: 'slack' | 'teams') {
    secrets.set('chat', receiverUrl);
    await open([automation({ name: 'chat', action: { type } })]);
    const [run] = await settled(await newOrder(hostileOrder));
    expect(run).toMatchObject({ state: 'succeeded', httpStatus: 200 });
    expect(received).toHaveLength(1);
    // No signature or order JSON goes to a chat: only its message.
    expect(received[0]?.headers['seller-tray-signature']).toBeUndefined();
    return { body: received[0]?.body ?? '', message: JSON.parse(received[0]?.body ?? '{}') };
  }

  it('Slack gets Block Kit with the hostile buyer as plain text: no mention, link or markup', async () => {
    const { body, message } = await posted('slack');
    expect(slackShapeProblems(message)).toEqual([]);
    const values = JSON.stringify(message);
    expect(values).not.toMatch(CONTROL_OR_BIDI);
    // No <!channel>, <@U123>, <url|text> or <a href> can form: no angle bracket at all.
    expect(body).not.toMatch(/[<>]/);
    expect(message.text).toContain('\u2039b\u203aURGENT\u2039/b\u203a');
    // No text a chat would offer as a link (evil.example, https:).
    expect(values).not.toMatch(/evil\.example|https:\/\/evil/);
    // Mrkdwn is never used for the marketplace's words: no mrkdwn object, the fallback unformatted.
    expect(values).not.toContain('"type":"mrkdwn"');
    expect(message.mrkdwn).toBe(false);
  });

  it('Teams gets an Adaptive Card with the hostile buyer as text: Markdown escaped, no link', async () => {
    const { message } = await posted('teams');
    expect(message).toMatchObject({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            type: 'AdaptiveCard',
            version: '1.4',
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          },
        },
      ],
    });
    const card = message.attachments[0].content;
    for (const element of card.body) expect(['TextBlock', 'FactSet']).toContain(element.type);
    const facts = card.body.find((e: { type: string }) => e.type === 'FactSet').facts as {
      title: string;
      value: string;
    }[];
    expect(facts.map((f) => f.title)).toEqual(['Buyer', 'Product', 'Total', 'Order']);
    const buyer = facts[0]?.value ?? '';
    expect(JSON.stringify(card)).not.toMatch(CONTROL_OR_BIDI);
    // No [link](url), <a>, <at> mention or emphasis can form.
    expect(teamsMarkup(buyer)).toEqual([]);
    expect(adaptiveCardProblems(card)).toEqual([]);
  });

  it('every hostile name reaches both chats as inert text that still says what it said', async () => {
    secrets.set('slack', receiverUrl);
    secrets.set('teams', receiverUrl);
    await open([
      automation({ name: 'slack', action: { type: 'slack' } }),
      automation({ name: 'teams', action: { type: 'teams' } }),
    ]);
    const letters = (text: string) => (text.match(/[\p{L}\p{N}]/gu) ?? []).join('');
    for (const [what, name] of Object.entries(HOSTILE_CHAT_NAMES)) {
      received.length = 0;
      const orderId = await newOrder({
        buyerCustomerParty: { party: { partyName: name } },
        anticipatedMonetaryTotal: { amount: 12.5, currencyCode: name.slice(0, 40) },
        documentLines: [{ lineId: 1, lineItem: { name, quantity: { value: 1 } } }],
      });
      expect(
        (await settled(orderId)).map((r) => r.state),
        what,
      ).toEqual(['succeeded', 'succeeded']);
      const messages = received.map((r) => JSON.parse(r.body));
      const slack = messages.find((m) => m.blocks);
      const card = messages.find((m) => m.attachments)?.attachments[0].content;
      expect(slackShapeProblems(slack), what).toEqual([]);
      expect(adaptiveCardProblems(card), what).toEqual([]);
      expect(JSON.stringify(messages), what).not.toMatch(CONTROL_OR_BIDI);

      const [slackBuyer, slackProduct, slackTotal] = slack.blocks[1].fields.map(
        (f: { text: string }) => f.text.split('\n')[1] ?? '',
      );
      const [teamsBuyer, teamsProduct, teamsTotal] = card.body[1].facts.map(
        (f: { value: string }) => f.value,
      );
      const [, slackAccount] = slack.blocks[2].elements[0].text.split(' · ');
      const [, teamsAccount] = card.body[2].text.split(' · ');
      for (const text of [slackBuyer, slackProduct, slackTotal, slackAccount])
        expect(slackPlainMarkup(text), what).toEqual([]);
      expect(slackTextMarkup(slack.text), what).toEqual([]);
      expect(slack.mrkdwn).toBe(false);
      for (const text of [teamsBuyer, teamsProduct, teamsTotal, teamsAccount])
        expect(teamsMarkup(text), what).toEqual([]);
      // Nothing lost but the markup: the same letters and digits, or their start when capped.
      for (const shown of [slackBuyer, teamsBuyer]) {
        expect(Array.from(shown).length, what).toBeLessThanOrEqual(80);
        if (shown.endsWith('…')) expect(letters(name).startsWith(letters(shown)), what).toBe(true);
        else expect(letters(shown), what).toBe(letters(name));
      }
    }
  }, 60_000);

  it('without its address in the keychain fails, saying how to store it', async () => {
    await open([automation({ name: 'chat', action: { type: 'slack' } })]);
    const [run] = await settled(await newOrder());
    expect(run?.detail).toContain('Slack incoming webhook address is not set on this computer');
  });
});

describe('a hostile buyer through every action', () => {
  it('reaches a webhook only as JSON data, and nothing told of a run carries its controls', async () => {
    secrets.set('hook', SECRET);
    await open([
      automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } }),
      node(`console.log(require('fs').readFileSync(0,'utf8').slice(0,300));process.exit(3)`),
    ]);
    const orderId = await newOrder(hostileOrder);
    const runs = await settled(orderId);
    expect(runs.map((r) => r.state).sort()).toEqual(['failed', 'succeeded']);
    expect(JSON.parse(received[0]?.body ?? '{}').order.buyerCustomerParty.party.partyName).toBe(
      HOSTILE_BUYER,
    );
    for (const run of runs) {
      expect(run.detail ?? '').not.toMatch(CONTROL_OR_BIDI);
      expect((run.output ?? '').replaceAll('\n', '')).not.toMatch(CONTROL_OR_BIDI);
    }
    const told = events.filter((e) => e.type === 'problem');
    expect(JSON.stringify(told).replace(/\\n/g, '')).not.toMatch(/\\u001b|\\u202e/);
    expect(problems().join('\n')).not.toMatch(CONTROL_OR_BIDI);
    const [notified] = failureNotifications();
    expect(notified?.title).toBe('Automation provision failed');
    expect(`${notified?.title}${notified?.body}`).not.toMatch(CONTROL_OR_BIDI);
    expect(notified?.body.length).toBeLessThanOrEqual(200);
  });

  it('who marked the order, as the history reads back, reaches what a run tells only as plain text', async () => {
    // A colleague's (or any API client's) mark: its description names who marked, in the marketplace's words.
    const colleague = `\u202eanaV annA\u202c\u200b ${'x'.repeat(20_000)}`;
    await open([node(`process.exit(2)`, { reportStatus: 'completed' })]);
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
    await new SellerApiClient({
      baseUrl: sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
    }).sendEvent({
      eventTypeCode: 'ServicePurchased',
      statusCode: 'ProvisioningCompleted',
      description: `Provisioning completed by ${colleague}.`,
      additionalProperties: [{ name: 'orderId', value: orderId }],
    });
    await core.checkNow();
    const [run] = await settled(orderId);
    if (!run) throw new Error('no run');
    expect(run.detail).toContain('provision reported Failed for an order already Completed (marked by');
    expect(run.detail ?? '').not.toMatch(CONTROL_OR_BIDI);
    expect(run.detail?.length).toBeLessThan(1000);
    expect(problems().join('\n')).not.toMatch(CONTROL_OR_BIDI);
    expect(problems().join('\n').length).toBeLessThan(2000);
  });
});

describe('run again and test', () => {
  it('runs an automation again under a new delivery id, and waits for its end', async () => {
    secrets.set('hook', SECRET);
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    const orderId = await newOrder();
    const [first] = await settled(orderId);
    const again = await core.runAutomation(orderId, 'hook', 'again').ended;
    expect(again).toMatchObject({ state: 'succeeded', trigger: 'again' });
    expect(again.deliveryId).not.toBe(first?.deliveryId);
    const test = await core.runAutomation(orderId, 'hook', 'test').ended;
    expect(JSON.parse(received.at(-1)?.body ?? '{}').event).toBe('order.test');
    expect(test.state).toBe('succeeded');
    expect(() => core.runAutomation(orderId, 'nope', 'again')).toThrow('No automation is named nope');
  });

  it('takes over a run left running by an earlier process that had this pid', async () => {
    secrets.set('hook', SECRET);
    await open([automation({ name: 'hook', action: { type: 'webhook', url: receiverUrl } })]);
    settings = { ...settings, automationsEnabled: false };
    const orderId = await newOrder();
    await core.order(orderId);
    // As an earlier process of this pid left it, killed in the middle (pids are reused).
    const { store } = AccountStore.open(dir);
    const deliveryId = store.queueRun(orderId, 'hook', 'new-order', new Date(clock).toISOString());
    const earlier = new Claimant(() => false);
    earlier.retire();
    store.claimRuns(earlier, () => false, new Date(clock).toISOString(), 1);
    store.startRun(earlier, deliveryId ?? '', { at: new Date(clock).toISOString(), attempt: 1 });
    expect(store.run(deliveryId ?? '')?.state).toBe('running');
    store.close(false);
    settings = { ...settings, automationsEnabled: true };
    await core.checkNow();
    const [run] = await settled(orderId);
    expect(run).toMatchObject({ deliveryId, state: 'succeeded', attempts: 2 });
    expect(JSON.parse(received.at(-1)?.body ?? '{}')).toMatchObject({ deliveryId, attempt: 2 });
  });

  it('queues nothing while this laptop does not run automations', async () => {
    await open([node(`console.log('ran')`)]);
    settings = { ...settings, automationsEnabled: false };
    const orderId = await newOrder();
    expect(core.automationRuns(orderId)).toEqual([]);
  });
});
