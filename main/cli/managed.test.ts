// The CLI on a laptop an organization manages (issue 25): it reads the same policies as the app
// (here from a folder SELLER_TRAY_POLICY_ROOT adds, laid out as /etc/seller-tray/policies), no
// flag, variable or login changes what they lock, no advice names a command they refuse, and
// `doctor` lists them. Run as a process
// against the simulator over loopback.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/server';
import { runsOnDisk } from '../../test/support/automation-runs';
import { cliLaptop } from '../../test/support/cli-laptop';
import { exitOf, spawnTs, waitForLine } from '../../test/support/processes';
import { admin } from '../../test/support/raw-api';
import { until } from '../../test/support/shell-fakes';
import { accountFolder, accountRef } from '../core/account/account-ref';

/**
 * A CLI laptop (cliLaptop) an organization manages: `fleet` its managed policy (none yet where
 * absent; `policy` writes it), `settings` what the user's settings file held before (given the
 * laptop's home), and `variables` its environment's, which the CLI (`cli`, `env`) is given.
 */
async function managedLaptop(
  prefix: string,
  given: { fleet?: object; settings?: (home: string) => object; variables?: NodeJS.ProcessEnv },
) {
  const laptop = await cliLaptop(prefix);
  const policies = join(laptop.home, 'policies');
  await mkdir(join(policies, 'managed'), { recursive: true });
  const policy = (fleet: object) => writeFile(join(policies, 'managed', 'fleet.json'), JSON.stringify(fleet));
  if (given.fleet) await policy(given.fleet);
  if (given.settings) {
    await mkdir(laptop.dataRoot, { recursive: true });
    await writeFile(join(laptop.dataRoot, 'settings.json'), JSON.stringify(given.settings(laptop.home)));
  }
  const env = { ...laptop.env, SELLER_TRAY_POLICY_ROOT: policies, ...given.variables };
  const cli = (args: string[], input = '', extra: NodeJS.ProcessEnv = {}) =>
    laptop.cli(args, input, { ...env, ...extra });
  return { ...laptop, env, cli, policy };
}

/** The demo seller's first client, from the environment, as a script on a managed laptop gives it. */
const demoClient = (): NodeJS.ProcessEnv => ({
  SELLER_API_BASE_URL: sim.url,
  SELLER_CLIENT_ID: 'demo-client',
  SELLER_CLIENT_SECRET: 'demo-secret',
});

let sim: Simulator;
let managed: Awaited<ReturnType<typeof managedLaptop>>;
const settingsFile = () => join(managed.dataRoot, 'settings.json');

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7, orders: 5 });
  managed = await managedLaptop('cli-managed-', {
    fleet: {
      baseUrl: sim.url,
      clientId: 'demo-client',
      actorNameSource: 'computer-account',
      pollIntervalMinimumSeconds: 120,
      notificationsEnabled: 'yes',
    },
    // What the user had before IT managed the laptop, and edits later: never in force over a lock.
    settings: () => ({ baseUrl: 'https://elsewhere.example', clientId: 'mine' }),
    variables: { SELLER_CLIENT_SECRET: 'demo-secret' },
  });
});
afterAll(async () => {
  await sim.close();
  await rm(managed.home, { recursive: true, force: true });
});

const cli = (args: string[], input = '', extra: NodeJS.ProcessEnv = {}) => managed.cli(args, input, extra);

describe('seller-tray under policies', () => {
  it('serves the marketplace the policy names, whatever the settings file says', async () => {
    const run = await cli(['orders', 'list', '--limit', '2']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('refuses a flag or variable that would change a locked setting, naming it', async () => {
    const flag = await cli(['--base-url', 'https://elsewhere.example', 'orders', 'list']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain(
      'Base URL is managed by your organization: --base-url cannot change it here',
    );
    const variable = await cli(['orders', 'list'], '', { SELLER_CLIENT_ID: 'someone-else' });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toContain(
      'Client id is managed by your organization: SELLER_CLIENT_ID cannot change it here',
    );
    // The same value as the policy's is no change.
    expect((await cli(['--base-url', `${sim.url}/`, 'orders', 'list', '--limit', '1'])).code).toBe(0);
  });

  it('refuses login to another client, --as where statuses carry the computer account, --interval under the shortest', async () => {
    const before = await readFile(settingsFile(), 'utf8');
    const login = await cli(['login', '--client-id', 'other-client'], 'other-secret\n');
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('Client id is managed by your organization');
    expect(await readFile(settingsFile(), 'utf8')).toBe(before);

    const orderId = JSON.parse(sim.store.listOrderJson(1001, 0, 1).items[0] ?? '{}').orderId as string;
    const as = await cli(['status', orderId, 'InProgress', '--as', 'Someone Else']);
    expect(as.code).toBe(1);
    expect(as.stderr).toContain('Your name is managed by your organization: --as cannot change it here');

    const watch = await cli(['watch', '--once', '--interval', '30']);
    expect(watch.code).toBe(1);
    expect(watch.stderr).toContain('must be at least 120 seconds');
  });

  it('lists the policies in force and those ignored in doctor', async () => {
    const run = await cli(['doctor']);
    expect(run.stdout).toContain('Policies of your organization: 4 in force, 1 ignored');
    expect(run.stdout).toContain(`  baseUrl = "${sim.url}" (locked; `);
    expect(run.stdout).toMatch(/ignored: .*fleet\.json: notificationsEnabled must be true or false; ignored/);
    const json = JSON.parse((await cli(['doctor', '--json'])).stdout);
    expect(json.policies.inForce.map((p: { key: string }) => p.key)).toEqual([
      'baseUrl',
      'clientId',
      'actorNameSource',
      'pollIntervalMinimumSeconds',
    ]);
    expect(json.policies.ignored).toHaveLength(1);
    // Values in force but changed (an account relabelled) are apart from what was ignored.
    expect(json.policies.changed).toEqual([]);
  });

  it('advises asking IT where a permission is refused: never another client, which accounts add refuses here', async () => {
    // The client lacks the permission to list orders, also with a fresh token.
    await admin(sim.url, 'PATCH', 'faults', {
      script: [{ operation: 'listOrders', action: 'status', status: 403, times: 10 }],
    });
    try {
      const refused = await cli(['orders', 'list']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('does not allow this API client');
      expect(refused.stderr).toContain('ask your IT support for another client');
      expect(refused.stderr).not.toContain('accounts add');
      // What was advised before, refused when followed:
      const add = await cli(
        ['accounts', 'add', 'Other', '--base-url', sim.url, '--client-id', 'demo-client-2'],
        'demo-secret-2\n',
      );
      expect(add.code).toBe(1);
      expect(add.stderr).toContain('Client id is managed by your organization');
    } finally {
      await admin(sim.url, 'PATCH', 'faults', { script: [] });
    }
  });
});

describe('seller-tray where the organization does not allow automations', () => {
  it('runs none: run polls and prints, says why, and queues no run; automations test and run-again are refused', async () => {
    const marker = (home: string) => join(home, 'ran.txt');
    const { home, env, cli, dataRoot } = await managedLaptop('cli-no-automations-', {
      fleet: { automationsAllowed: false },
      settings: (home) => ({
        automations: [
          {
            name: 'provision',
            action: {
              type: 'command',
              command: [
                process.execPath,
                '-e',
                "require('fs').appendFileSync(process.argv[1], 'ran\\n')",
                marker(home),
              ],
            },
          },
        ],
      }),
      variables: demoClient(),
    });
    try {
      expect((await cli(['watch', '--once'])).code).toBe(0);
      const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;

      const running = spawnTs('main/cli/seller-tray.ts', ['run'], env);
      let told = '';
      running.stderr?.on('data', (chunk) => {
        told += chunk;
      });
      await waitForLine(running, new RegExp(orderId), 30_000);
      running.kill('SIGTERM');
      expect(await exitOf(running)).toBe(0);
      expect(told).toContain('your organization does not allow automations on this computer');
      // The poll that printed the order queued what it would run: nothing.
      const account = accountFolder(dataRoot, accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id);
      expect(runsOnDisk(account, orderId)).toEqual([]);

      for (const command of ['test', 'run-again']) {
        const once = await cli(['automations', command, 'provision', '--order', orderId]);
        expect(once.code).toBe(1);
        expect(once.stderr).toMatch(
          /^seller-tray: Your organization does not allow automations on this computer/m,
        );
      }
      // The list says what runs here, and names no switch the policy locks.
      const list = await cli(['automations', 'list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(
        'Your organization does not allow automations on this computer (policy automationsAllowed): neither the app nor seller-tray run runs them.\n',
      );
      expect(list.stdout).not.toContain('seller-tray run always does');
      // listen's own made-up automation is one too: refused at once, not a session that runs nothing.
      const listen = await cli(['listen', '--exec', '--', process.execPath]);
      expect(listen.code).toBe(1);
      expect(listen.stderr).toContain(
        'your organization does not allow automations on this computer (policy automationsAllowed): listen runs nothing here',
      );
      expect(existsSync(marker(home))).toBe(false);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);

  it('run follows the policies while it runs: one IT adds forbidding automations stops them from its next poll', async () => {
    const { home, env, cli, dataRoot, policy } = await managedLaptop('cli-policy-follow-', {
      settings: () => ({
        automations: [
          { name: 'provision', action: { type: 'command', command: [process.execPath, '-e', '0'] } },
        ],
      }),
      variables: demoClient(),
    });
    try {
      expect((await cli(['watch', '--once'])).code).toBe(0);
      const running = spawnTs('main/cli/seller-tray.ts', ['run', '--interval', '30'], env);
      let told = '';
      running.stderr?.on('data', (chunk) => {
        told += chunk;
      });
      try {
        await until(() => told.includes('poll ok'), 30_000);
        // A service runs for weeks: IT's policy must not wait for its restart.
        await policy({ automationsAllowed: false });
        await until(() => told.includes('automationsAllowed (managed)'), 10_000).catch(() => {});
        const orderId = (await admin(sim.url, 'POST', 'purchases')).json.orderId as string;
        // Read at the next poll, within 30 s.
        await waitForLine(running, new RegExp(orderId), 45_000);
        const account = accountFolder(dataRoot, accountRef({ baseUrl: sim.url, clientId: 'demo-client' }).id);
        running.kill('SIGTERM');
        expect(await exitOf(running)).toBe(0);
        expect(runsOnDisk(account, orderId)).toEqual([]);
      } finally {
        running.kill('SIGTERM');
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('seller-tray where the organization sets the account list', () => {
  it('refuses login, --base-url and --client-id for an account the list does not have, and serves one it has', async () => {
    const { home, cli: seller } = await managedLaptop('cli-policy-accounts-', {
      fleet: {
        accounts: [
          { label: 'EU', baseUrl: sim.url, clientId: 'demo-client' },
          { label: 'US', baseUrl: sim.url, clientId: 'demo-client-2' },
        ],
      },
    });
    try {
      // Another seller's client: login said "Logged in as client other-client", stored its secret, and nothing served it.
      const login = await seller(
        ['login', '--base-url', sim.url, '--client-id', 'other-client'],
        'other-secret\n',
      );
      expect(login.code).toBe(1);
      expect(login.stdout).toBe('');
      expect(login.stderr).toContain(
        'Accounts is managed by your organization: --client-id cannot change it here',
      );
      const other = await seller(['orders', 'list', '--limit', '1', '--client-id', 'other-client'], '', {
        SELLER_CLIENT_SECRET: 'other-secret',
      });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        'Accounts is managed by your organization: --client-id cannot change it here',
      );
      const elsewhere = await seller(['orders', 'list', '--base-url', 'https://elsewhere.example'], '', {
        SELLER_CLIENT_SECRET: 'demo-secret',
      });
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toContain(
        'Accounts is managed by your organization: --base-url cannot change it here',
      );
      // The list's second account, named by its client, is served.
      const listed = await seller(['orders', 'list', '--limit', '1', '--client-id', 'demo-client-2'], '', {
        SELLER_CLIENT_SECRET: 'demo-secret-2',
      });
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
