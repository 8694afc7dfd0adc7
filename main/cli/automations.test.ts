// The CLI's automations, run as users run them (a child process per command, its own config
// home, the simulator over loopback, the keychain: run with test/with-keychain.sh): `run` runs
// the settings' automations and stops cleanly on SIGTERM, queuing what it cut short for its next
// start, and after a kill -9 stops the command it left running before running it again; `listen --exec` hands each new order to a command; `automations list`, `test` and
// `secret`.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/server';
import { alive } from '../../test/support/alive.cjs';
import { fileAppears, runsOnceFirst, runsOnDisk } from '../../test/support/automation-runs';
import { startWebhookReceiver } from '../../test/support/capture-server';
import { exitOf, REPO_ROOT, runTs, spawnTs, waitForLine } from '../../test/support/processes';
import { queuedRun } from '../../test/support/queued-run';
import { admin } from '../../test/support/raw-api';
import { until } from '../../test/support/shell-fakes';
import { atTerminal } from '../../test/support/terminal';
import { accountFolder, accountRef } from '../core/account/account-ref';
import { automationSecretEntry } from '../core/automation/ports';
import { NO_POLICIES } from '../core/policy/layers';
import { KeychainUnavailableError, KeytarSecretStore, type SecretStore } from '../core/secrets';
import { DEFAULT_SETTINGS } from '../core/settings';
import { cliStores, terminalSurface } from './account';
import { describeRun, storeAutomationSecret } from './automations';

let sim: Simulator;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7, orders: 3 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-automations-'));
  env = {
    XDG_CONFIG_HOME: home,
    SELLER_API_BASE_URL: sim.url,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
  };
  // This computer has read the history: the next purchase is news.
  expect((await cli(['watch', '--once'])).code).toBe(0);
});
afterEach(async () => {
  await admin(sim.url, 'POST', 'reset');
  await rm(home, { recursive: true, force: true });
});

const cli = (args: string[], input = '') => runTs('main/cli/seller-tray.ts', args, env, input);

/** A settings file of these automations, and of these saved accounts when given. */
async function settingsWith(automations: unknown[], accounts?: unknown[]): Promise<void> {
  const folder = join(home, 'Seller Tray');
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'settings.json'),
    JSON.stringify({ automations, ...(accounts ? { accounts } : {}) }),
  );
}

/** A settings file of one automation running this Node script, and a new order for it (its id). */
async function commandForNewOrder(name: string, script: string): Promise<string> {
  await settingsWith([{ name, action: { type: 'command', command: [process.execPath, '-e', script] } }]);
  return (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
}

/** This computer's store of the account. */
const accountDir = () =>
  accountFolder(join(home, 'Seller Tray'), accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id);

it('run: runs the automations for a new order, stops cleanly on SIGTERM, and its next start finishes what it cut short', async () => {
  const marker = join(home, 'ids.txt');
  // The first run waits (and is stopped); the second ends at once.
  const script = `const fs=require('fs'),f=process.argv[1];fs.appendFileSync(f,process.env.SELLER_TRAY_DELIVERY_ID+'\\n');if(fs.readFileSync(f,'utf8').trim().split('\\n').length<2)setTimeout(()=>{},60000)`;
  await settingsWith([
    { name: 'provision', action: { type: 'command', command: [process.execPath, '-e', script, marker] } },
  ]);
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const first = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  let told = '';
  first.stderr?.on('data', (chunk) => {
    told += chunk;
  });
  await waitForLine(first, new RegExp(orderId));
  await fileAppears(marker);
  const stopping = Date.now();
  first.kill('SIGTERM');
  expect(await exitOf(first)).toBe(0);
  expect(Date.now() - stopping).toBeLessThan(8_000);
  // The log says what happened: no notification (a terminal shows none), the order printed.
  expect(told).toMatch(new RegExp(`announcement kind=new-order orderId=${orderId} notified=false`));
  // The stop in plain words.
  expect(told).toContain(
    'seller-tray: stopped: 1 automation run under way was ended; it runs again at the next start, under the same delivery id\n',
  );
  const [cut] = runsOnDisk(accountDir(), orderId);
  expect(cut).toMatchObject({ state: 'queued', attempts: 1 });
  expect(cut?.detail).toContain('stopped before it ended');

  const second = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  try {
    const [done] = await runsOnceFirst(accountDir(), orderId, 'succeeded');
    expect(done).toMatchObject({ deliveryId: cut?.deliveryId, attempts: 2, exitCode: 0 });
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual([cut?.deliveryId, cut?.deliveryId]);
  } finally {
    second.kill('SIGTERM');
    expect(await exitOf(second)).toBe(0);
  }
});

it('run: its terminal closing (SIGHUP) stops it as SIGTERM does, the run under way kept for the next start', async () => {
  const marker = join(home, 'hangup.txt');
  const orderId = await commandForNewOrder(
    'provision',
    `require('fs').writeFileSync(${JSON.stringify(marker)},'');setTimeout(()=>{},60000)`,
  );
  const running = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  await waitForLine(running, new RegExp(orderId));
  await fileAppears(marker);
  running.kill('SIGHUP');
  expect(await exitOf(running)).toBe(0);
  const [cut] = runsOnDisk(accountDir(), orderId);
  expect(cut).toMatchObject({ state: 'queued', attempts: 1 });
  expect(cut?.detail).toContain('stopped before it ended');
});

it("run: a run that failed is told in the terminal's words: its output below, and the command that runs it again", async () => {
  const orderId = await commandForNewOrder('provision', "console.log('provisioning broke');process.exit(2)");
  const running = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  let stderr = '';
  running.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no failed run told; stderr: ${stderr}`)), 20_000);
      running.stderr?.on('data', () => {
        if (!stderr.includes('provisioning broke')) return;
        clearTimeout(timer);
        resolve();
      });
    });
    expect(stderr).toContain(
      `seller-tray automations run-again provision --order ${orderId} runs it again; seller-tray automations runs lists the runs waiting or failed.`,
    );
    expect(stderr).not.toMatch(/Settings|order page/);
  } finally {
    running.kill('SIGTERM');
    expect(await exitOf(running)).toBe(0);
  }
});

it('run: killed with kill -9 in the middle of a command, its next start stops what the command left running (its child too) before running it again', async () => {
  const marker = join(home, 'ids.txt');
  const script = join(REPO_ROOT, 'test/support/orphaning-command.cjs');
  await settingsWith([
    { name: 'provision', action: { type: 'command', command: [process.execPath, script, marker] } },
  ]);
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const first = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  await fileAppears(marker);
  first.kill('SIGKILL');
  await exitOf(first);
  const [deliveryId, orphan, child] = readFileSync(marker, 'utf8').trim().split(' ');
  expect([alive(Number(orphan)), alive(Number(child))]).toEqual([true, true]);

  const second = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  try {
    const [done] = await runsOnceFirst(accountDir(), orderId, 'succeeded');
    expect(done).toMatchObject({ deliveryId, exitCode: 0 });
    const lines = readFileSync(marker, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${deliveryId} \\d+ old-gone$`));
    expect([alive(Number(orphan)), alive(Number(child))]).toEqual([false, false]);
    // Said where its output is shown.
    expect(done?.output).toContain(
      'node orphaning-command.cjs was still running from before Seller Tray stopped',
    );
  } finally {
    second.kill('SIGTERM');
    expect(await exitOf(second)).toBe(0);
  }
});

it('run: starts without automations in the settings file, says so once, and runs those added there later', async () => {
  await settingsWith([]);
  const running = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], env);
  let stderr = '';
  running.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  let exited = false;
  running.once('exit', () => {
    exited = true;
  });
  const told = () => stderr.split('no automation is declared yet').length - 1;
  try {
    await until(() => told() > 0 || exited, 15_000);
    expect(exited).toBe(false);
    // The settings file is watched from before the accounts open.
    await until(() => stderr.includes('account connected'), 15_000);
    expect(stderr).toContain('it follows the settings file');
    const marker = join(home, 'ran.txt');
    await settingsWith([
      {
        name: 'provision',
        action: {
          type: 'command',
          command: [process.execPath, '-e', 'require("fs").writeFileSync(process.argv[1],"")', marker],
        },
      },
    ]);
    await until(() => /settings read again.*automations=1/.test(stderr), 10_000).catch(() => {
      throw new Error(stderr);
    });
    await admin(sim.url, 'POST', 'purchases');
    // The next poll, within 33 s (30 s ±10%), learns the order and runs the automation added.
    await fileAppears(marker, 45_000);
    expect(told()).toBe(1);
  } finally {
    running.kill('SIGTERM');
    expect(await exitOf(running)).toBe(0);
  }
}, 90_000);

it('listen --exec: each new order JSON on the command standard input, no settings needed', async () => {
  const out = join(home, 'orders.jsonl');
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const listener = spawnTs(
    'main/cli/seller-tray.ts',
    [
      'listen',
      '--exec',
      '--',
      process.execPath,
      '-e',
      `require('fs').appendFileSync(process.argv[1], require('fs').readFileSync(0,'utf8')+'\\n')`,
      out,
    ],
    env,
  );
  try {
    await fileAppears(out);
    const order = JSON.parse(readFileSync(out, 'utf8').trim());
    expect(order).toMatchObject({ version: 1, event: 'order.created', orderId, automation: 'listen' });
  } finally {
    listener.kill('SIGTERM');
    expect(await exitOf(listener)).toBe(0);
  }
});

it('listen --exec: a program given by a relative path is found from where listen was started, as a shell finds it', async () => {
  const script = join(home, 'provision.sh');
  await writeFile(script, '#!/bin/sh\ncat > "$1.part" && mv "$1.part" "$1"\n', { mode: 0o755 });
  const out = join(home, 'order.json');
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  // The CLI runs in the repository: the script named from there, as ./provision.sh from its own folder.
  const listener = spawnTs(
    'main/cli/seller-tray.ts',
    ['listen', '--exec', '--', `./${relative(REPO_ROOT, script)}`, out],
    env,
  );
  try {
    await fileAppears(out);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ orderId, automation: 'listen' });
  } finally {
    listener.kill('SIGTERM');
    expect(await exitOf(listener)).toBe(0);
  }
});

it('listen: refuses plain http to another computer, and a missing target', async () => {
  const remote = await cli(['listen', '--forward-to', 'http://hooks.example.com/x']);
  expect(remote.code).toBe(2);
  expect(remote.stderr).toContain('must use https://');
  expect((await cli(['listen'])).code).toBe(2);
});

it('automations list and test: what each does; a test runs it once for an order, saying how it went', async () => {
  await settingsWith([
    {
      name: 'provision',
      products: ['nope'],
      action: {
        type: 'command',
        command: [
          process.execPath,
          '-e',
          `console.log('hello \\u001b[2J'+require('fs').readFileSync(0,'utf8').length);process.exit(3)`,
        ],
      },
    },
    {
      name: 'chat',
      action: { type: 'slack' },
      accounts: [accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id],
    },
    { name: 'elsewhere', action: { type: 'slack' }, accounts: ['0123456789abcdef'] },
  ]);
  const list = await cli(['automations', 'list']);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("This computer's app does not run them");
  expect(list.stdout).toMatch(/provision\ton\tcommand .* \(300 s\)\tproduct nope\tall accounts\tno\t-/);
  expect(list.stdout).toMatch(
    /chat\ton\tslack message\tevery new order\tdemo-client at 127\.0\.0\.1:\d+\tno\t(missing|keychain unavailable)/,
  );
  expect(list.stdout).toMatch(
    /elsewhere\ton\tslack message\tevery new order\ta removed account \(0123456789abcdef\)\t/,
  );

  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const test = await cli(['automations', 'test', 'provision', '--order', orderId]);
  // A test runs whatever the filters say (it is asked for by name), and fails here: exit 3.
  expect(test.code).toBe(1);
  expect(test.stdout).toMatch(/^provision: failed exit 3\n/);
  expect(test.stdout).toMatch(/\nhello \d+\n$/);
  expect(runsOnDisk(accountDir(), orderId)).toEqual([
    expect.objectContaining({ trigger: 'test', state: 'failed', exitCode: 3 }),
  ]);
  expect((await cli(['automations', 'test', 'nope', '--order', orderId])).stderr).toContain(
    'no automation is named nope',
  );
});

it('automations secret: a webhook signing secret made and shown once, a chat address checked, both in the keychain and used', async () => {
  const receiver = await startWebhookReceiver();
  const { received, url } = receiver;
  try {
    await settingsWith([
      { name: 'hook', action: { type: 'webhook', url } },
      { name: 'chat', action: { type: 'teams' } },
    ]);
    const made = await cli(['automations', 'secret', 'hook']);
    expect(made.code).toBe(0);
    const secret = /shown once\): (whsec_\S+)/.exec(made.stdout)?.[1] ?? '';
    expect(secret).toMatch(/^whsec_[\w-]{32}$/);
    const refused = await cli(['automations', 'secret', 'chat'], 'http://chat.example.com/hook');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('must use https://');
    expect((await cli(['automations', 'secret', 'chat'], url)).code).toBe(0);
    expect((await cli(['automations', 'list'])).stdout).toMatch(
      /hook\ton\twebhook .*\tall accounts\tno\tstored\n.*chat\ton\tteams message\tevery new order\tall accounts\tno\tstored\n/s,
    );
    // Never in the settings file.
    expect(readFileSync(join(home, 'Seller Tray', 'settings.json'), 'utf8')).not.toContain(secret);

    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
    expect((await cli(['automations', 'test', 'hook', '--order', orderId])).code).toBe(0);
    expect((await cli(['automations', 'test', 'chat', '--order', orderId])).code).toBe(0);
    const [signed, chat] = received;
    const t = /t=(\d+)/.exec(signed?.signature ?? '')?.[1];
    const expected = createHmac('sha256', secret).update(`${t}.${signed?.body}`).digest('hex');
    expect(signed?.signature).toBe(`t=${t},v1=${expected}`);
    expect(JSON.parse(chat?.body ?? '{}').attachments[0].contentType).toBe(
      'application/vnd.microsoft.card.adaptive',
    );
  } finally {
    await receiver.close();
  }
});

it("names the account by its label in a command's JSON and environment, as the list and the log do", async () => {
  const script = `const fs=require('fs');console.log(process.env.SELLER_TRAY_ACCOUNT+'|'+JSON.parse(fs.readFileSync(0,'utf8')).account.label)`;
  await settingsWith(
    [{ name: 'who', action: { type: 'command', command: [process.execPath, '-e', script] } }],
    [{ label: 'EU sales', baseUrl: sim.url, clientId: 'demo-client' }],
  );
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const test = await cli(['automations', 'test', 'who', '--order', orderId]);
  expect(test.code).toBe(0);
  expect(test.stdout).toContain('\nEU sales|EU sales\n');
});

it('automations test: takes the beginning of an order id, as every command does; refuses one that is no id at once', async () => {
  const orderId = await commandForNewOrder('who', 'console.log(process.env.SELLER_TRAY_ORDER_ID)');
  const test = await cli(['automations', 'test', 'who', '--order', orderId.slice(0, 8)]);
  expect(test.stderr).toBe('');
  expect(test.code).toBe(0);
  expect(test.stdout).toContain(`\n${orderId}\n`);
  const typo = await cli(['automations', 'test', 'who', '--order', 'order-42']);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain('"order-42" is not an order id');
});

it("a missing secret's advice names the account and quotes the name, and works as printed", async () => {
  const received: string[] = [];
  const chat = createServer((request, response) => {
    request.resume().on('end', () => {
      received.push(String(request.url));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve));
  try {
    await settingsWith(
      [{ name: 'sales chat', action: { type: 'slack' } }],
      [{ label: 'EU', baseUrl: sim.url, clientId: 'demo-client' }],
    );
    const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
    const missing = await cli(['automations', 'test', 'sales chat', '--order', orderId]);
    expect(missing.code).toBe(1);
    const id = accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id;
    const advice = /run (seller-tray automations secret .*?)(\.|\n|$)/m.exec(missing.stdout)?.[1] ?? '';
    expect(advice).toBe(`seller-tray automations secret "sales chat" --id ${id}`);
    // As a shell reads it: the quoted name is one word.
    const words = (advice.match(/"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^"|"$/g, '')).slice(1);
    const url = `http://127.0.0.1:${(chat.address() as AddressInfo).port}/slack`;
    expect((await cli(words, url)).code).toBe(0);
    expect((await cli(['automations', 'test', 'sales chat', '--order', orderId])).code).toBe(0);
    expect(received).toEqual(['/slack']);
  } finally {
    chat.close();
  }
});

it('automations secret: says which account it stored it for, which others still lack it, and refuses an account the automation does not run for', async () => {
  const eu = accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id;
  const us = accountRef({ baseUrl: sim.url, clientId: 'demo-client-2' }).id;
  await settingsWith(
    [
      { name: 'hook', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } },
      { name: 'eu chat', action: { type: 'slack' }, accounts: [eu] },
    ],
    [
      { label: 'EU', baseUrl: sim.url, clientId: 'demo-client' },
      { label: 'US', baseUrl: sim.url, clientId: 'demo-client-2' },
    ],
  );
  const first = await cli(['automations', 'secret', 'hook']);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('The signing secret of hook is in the system keychain for the account EU.');
  expect(first.stdout).toContain(`US has none yet: seller-tray automations secret hook --id ${us}`);
  expect(first.stdout).toContain('Its other accounts get this same one with nothing on standard input:');
  const second = await cli(['automations', 'secret', 'hook', '--id', us]);
  expect(second.stdout).toContain('It is the signing secret its other accounts hold.');
  expect(second.stdout).not.toContain('shown once');
  expect(second.stdout).toContain('for the account US.');
  expect(second.stdout).not.toContain('none yet');
  const elsewhere = await cli(['automations', 'secret', 'eu chat', '--id', us], 'https://hooks.slack.com/x');
  expect(elsewhere.code).toBe(2);
  expect(elsewhere.stderr).toContain('the automation eu chat does not run for the account US');
});

it('automations secret: a keychain that cannot be read for the other accounts stores and makes nothing, saying so', async () => {
  const us = accountRef({ baseUrl: sim.url, clientId: 'demo-client-2' }).id;
  await settingsWith(
    [{ name: 'hook', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } }],
    [
      { label: 'EU', baseUrl: sim.url, clientId: 'demo-client' },
      { label: 'US', baseUrl: sim.url, clientId: 'demo-client-2' },
    ],
  );
  // The US account's entry cannot be read (a locked keyring); anything stored is recorded.
  const stored: string[] = [];
  const secrets: SecretStore = {
    get: async (owner) => {
      if (owner.clientId.endsWith(us))
        throw new KeychainUnavailableError(new Error('The keyring is locked'), 'linux');
      return undefined;
    },
    set: async (owner) => void stored.push(owner.clientId),
    delete: async () => false,
    adoptUnbound: async () => false,
  };
  const stores = { ...cliStores({ ...process.env, XDG_CONFIG_HOME: home }), secrets };
  const eu = {
    ref: accountRef({ baseUrl: sim.url, clientId: 'demo-client', label: 'EU' }),
    clientSecret: async () => '',
    surface: terminalSurface(DEFAULT_SETTINGS, NO_POLICIES, 'keychain'),
  };
  // Refused before it asks for a secret: nothing is read from standard input, nothing made.
  const refused = await storeAutomationSecret(eu, stores, 'hook').catch((error: Error) => error.message);
  expect(refused).toContain(
    'the keychain could not be read for the other accounts of hook, so nothing was stored or made (one made now could differ from theirs)',
  );
  // The keychain's words are about secrets, not the client secret this command never touches.
  expect(refused).toContain('Seller Tray keeps its secrets nowhere else');
  expect(refused).not.toContain('client secret');
  expect(stored).toEqual([]);
});

it('following the advice for the second account of a webhook keeps one signing secret for the receiver (as the app sets one for all)', async () => {
  const us = accountRef({ baseUrl: sim.url, clientId: 'demo-client-2' }).id;
  const folder = join(home, 'Seller Tray');
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'settings.json'),
    JSON.stringify({
      accounts: [
        { label: 'EU', baseUrl: sim.url, clientId: 'demo-client' },
        { label: 'US', baseUrl: sim.url, clientId: 'demo-client-2' },
      ],
      // A name of its own: the keychain outlives each test's home.
      automations: [{ name: 'one-receiver', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } }],
    }),
  );
  const first = await cli(['automations', 'secret', 'one-receiver']);
  const made = /shown once\): (whsec_\S+)/.exec(first.stdout)?.[1];
  expect(made).toBeDefined();
  // The advice, run as printed.
  const advice = new RegExp(`US has none yet: seller-tray (.*--id ${us})`).exec(first.stdout)?.[1] ?? '';
  expect(advice).not.toBe('');
  const second = await cli(advice.split(' '));
  expect(second.code).toBe(0);
  // The receiver configured with the secret shown first must verify US's deliveries too.
  const again = /shown once\): (whsec_\S+)/.exec(second.stdout)?.[1];
  expect(again ?? made).toBe(made);
});

it('automations secret never advises a command that is then refused (the demo, which the CLI cannot serve)', async () => {
  const folder = join(home, 'Seller Tray');
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'settings.json'),
    JSON.stringify({
      demoMode: true,
      accounts: [
        { label: 'Demo', baseUrl: 'http://127.0.0.1:9', clientId: 'demo' },
        { label: 'EU', baseUrl: sim.url, clientId: 'demo-client' },
      ],
      automations: [{ name: 'hook', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } }],
    }),
  );
  const first = await cli(['automations', 'secret', 'hook', '--account', 'EU']);
  expect(first.code).toBe(0);
  for (const advice of first.stdout.matchAll(/has none yet: seller-tray (.*)$/gm)) {
    const followed = await cli((advice[1] ?? '').split(' '));
    expect(followed.stderr).toBe('');
    expect(followed.code).toBe(0);
  }
});

it('says which automations of the settings file it left out and why, rather than dropping them silently', async () => {
  await settingsWith([
    { name: 'billing', action: { type: 'webhook', url: 'http://billing.example.com/hook' } },
    { name: 'provision', action: { type: 'command', command: ['true'] } },
  ]);
  const list = await cli(['automations', 'list']);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain('provision\ton\t');
  expect(list.stdout).not.toContain('billing');
  expect(list.stderr).toContain('automations[0].action.url: the address must use https://');
  expect(list.stderr).toContain('those items were left out');
});

it('says the rule a refused name breaks, and finds an automation by its name in any case, as the duplicate check compares them', async () => {
  await settingsWith([
    { name: '  spaced  out  ', action: { type: 'command', command: ['true'] } },
    { name: '-dash', action: { type: 'command', command: ['true'] } },
    { name: 'billing hook', action: { type: 'command', command: [process.execPath, '-e', '0'] } },
  ]);
  const list = await cli(['automations', 'list']);
  expect(list.code).toBe(0);
  const rule =
    'a name starts with a letter or digit, then letters, digits, spaces, dots, dashes and underscores, and does not end with a space';
  expect(list.stderr).toContain(`automations[0].name: ${rule}`);
  expect(list.stderr).toContain(`automations[1].name: ${rule}`);
  // What was left out is automations: the sentence ends with where they are kept, not an account's advice.
  expect(list.stderr).toMatch(/kept in .+left-out-[0-9a-f]{12}, to correct and put back\.\n$/);
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const test = await cli(['automations', 'test', 'Billing Hook', '--order', orderId]);
  expect(test.code).toBe(0);
  expect(test.stdout).toMatch(/^billing hook: succeeded/);
  expect(runsOnDisk(accountDir(), orderId)).toEqual([
    expect.objectContaining({ automation: 'billing hook', trigger: 'test', state: 'succeeded' }),
  ]);
});

it('automations runs lists the runs waiting or failed with their next try and last result; run-again delivers a run again under a new delivery id', async () => {
  await settingsWith([
    { name: 'provision', action: { type: 'command', command: [process.execPath, '-e', 'process.exit(2)'] } },
  ]);
  const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
  const run = spawnTs('main/cli/seller-tray.ts', ['run'], env);
  try {
    await runsOnceFirst(accountDir(), orderId, 'failed');
  } finally {
    run.kill('SIGTERM');
    expect(await exitOf(run)).toBe(0);
  }
  const [failed] = runsOnDisk(accountDir(), orderId);
  const listed = await cli(['automations', 'runs']);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toBe(`provision\t${orderId}\tfailed\t1 attempt\t-\texit 2\t${failed?.deliveryId}\n`);
  const again = await cli(['automations', 'run-again', 'Provision', '--order', orderId.slice(0, 8)]);
  expect(again.code).toBe(1);
  expect(again.stdout).toMatch(/^provision: failed exit 2\n/);
  const runs = runsOnDisk(accountDir(), orderId);
  expect(runs).toEqual([
    expect.objectContaining({ deliveryId: failed?.deliveryId, trigger: 'new-order' }),
    expect.objectContaining({ trigger: 'again', state: 'failed', attempts: 1 }),
  ]);
  expect(runs[1]?.deliveryId).not.toBe(failed?.deliveryId);
  const ofOrder = await cli(['automations', 'runs', '--order', orderId]);
  expect(ofOrder.stdout.trim().split('\n')).toHaveLength(2);
  // --json: the runs as objects, for a script.
  const asJson = await cli(['automations', 'runs', '--order', orderId, '--json']);
  expect(asJson.code).toBe(0);
  expect(JSON.parse(asJson.stdout)).toEqual([
    expect.objectContaining({
      automation: 'provision',
      orderId,
      deliveryId: failed?.deliveryId,
      state: 'failed',
    }),
    expect.objectContaining({ automation: 'provision', orderId, trigger: 'again', state: 'failed' }),
  ]);
  const declared = await cli(['automations', 'list', '--json']);
  expect(declared.code).toBe(0);
  expect(JSON.parse(declared.stdout)).toEqual([
    expect.objectContaining({
      name: 'provision',
      enabled: true,
      action: expect.objectContaining({ type: 'command' }),
    }),
  ]);
});

/** `automations secret NAME` at a real terminal (test/support/terminal.ts), these keys typed once it prompts. */
const secretAtTerminal = (name: string, keys: string[]) =>
  atTerminal(
    [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts', 'automations', 'secret', name],
    env,
    'press Enter',
    keys,
  );

/** What the keychain holds for the automation of the account the environment names. */
const heldSecret = (name: string) =>
  new KeytarSecretStore().get(
    automationSecretEntry(accountRef({ baseUrl: sim.url, clientId: 'demo-client' }), name),
  );

it('automations secret at a terminal reads it without echo, as a password: Backspace takes back a character, Enter ends it', async () => {
  await settingsWith([{ name: 'typed', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } }]);
  const typed = await secretAtTerminal('typed', ['whsec_', 'pasted-s3cretX', '\u007f', '\r']);
  expect(typed.code).toBe(0);
  expect(typed.output).toContain('Paste the signing secret and press Enter (it is not shown)');
  expect(typed.output).not.toContain('s3cret');
  expect(await heldSecret('typed')).toBe('whsec_pasted-s3cret');
});

it('automations secret at a terminal: Ctrl+C cancels, storing nothing; Enter at once has one made', async () => {
  await settingsWith([
    { name: 'cancelled', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } },
    { name: 'made', action: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } },
  ]);
  const cancelled = await secretAtTerminal('cancelled', ['half-typed', '\u0003']);
  expect(cancelled.code).toBe(130);
  expect(cancelled.output).toContain('cancelled at the prompt: nothing was stored');
  expect(cancelled.output).not.toContain('half-typed');
  expect(await heldSecret('cancelled')).toBeUndefined();
  const made = await secretAtTerminal('made', ['\r']);
  expect(made.code).toBe(0);
  expect(made.output).toMatch(/shown once\): whsec_/);
  expect(await heldSecret('made')).toMatch(/^whsec_/);
});

it('says a run that never started is not started, not attempt 0', () => {
  const run = queuedRun({
    deliveryId: 'd-1',
    orderId: 'o-1',
    automation: 'provision',
    trigger: 'test',
    queuedAt: '2026-11-26T00:00:00.000Z',
  });
  expect(describeRun({ ...run, attempts: 0 })).toContain('delivery d-1, not started\n');
  expect(describeRun({ ...run, attempts: 2 })).toContain('delivery d-1, attempt 2\n');
});
