// Advice names only what works where it is read (advice.ts): for every combination of what an
// organization's policy sets (nothing, the marketplace and client, the base URL, the client, the
// account list, the automations), accounts saved or not, and a secret from SELLER_CLIENT_SECRET or
// the keychain, every kind of advice, for the app and for a terminal, and every message the CLI
// gives about the account it serves, are read, and each command or control they name is tried:
// - a command that changes the settings (`login`, `accounts add`) is run as the CLI's user would,
//   against the simulator over loopback with the real keychain, on a copy of that laptop: it must
//   succeed and leave every saved account in place;
// - a flag or variable named (--base-url, SELLER_CLIENT_ID, …) must not be one the policies lock;
// - a control of the app's Settings is asked through the bridge as the window asks it: it must not
//   be refused as managed by the organization.
// A message that names a command or a control this test does not know fails it: teach it here, so
// the next kind of advice is checked too.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Account,
  type AccountFlags,
  cliStores,
  refuseManaged,
  resolveAccount,
} from '../main/cli/account';
import { Refusal, UsageError } from '../main/cli/refusals';
import { type AppSurface, adviceFor, lockedByPolicy } from '../main/core/advice';
import { type Policies, resolvePolicies } from '../main/core/policy/layers';
import { ManagedSettingsStore } from '../main/core/policy/managed-settings';
import { fixedPolicies } from '../main/core/policy/watcher';
import { KeytarSecretStore, secretOwner } from '../main/core/secrets';
import { ConfSettingsStore, DEFAULT_SETTINGS } from '../main/core/settings';
import type { AccountEntry } from '../preload/settings-declaration';
import { type Simulator, startSimulator } from '../simulator/server';
import { everyKind } from './support/advice-kinds';
import { memorySecrets } from './support/memory-secrets';
import { runTs } from './support/processes';
import { openTestService } from './support/test-service';

const FLEET = { clientId: 'fleet-client', clientSecret: 'fleet-secret-7d1e' };
const OTHER = { clientId: 'other-client', clientSecret: 'other-secret-2c9a' };
const CLIENTS = [FLEET, OTHER];

let sim: Simulator;
let eu: AccountEntry;
const dirs: string[] = [];
const keychain = new KeytarSecretStore();

beforeAll(async () => {
  sim = await startSimulator({ port: 0, sellers: [{ sellerId: 4101, orders: 2, clients: CLIENTS }] });
  eu = { label: 'EU', baseUrl: sim.url, clientId: FLEET.clientId };
});
afterAll(async () => {
  await sim.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** What each policy sets, as managed values. */
const POLICIES: Record<string, () => Record<string, unknown>> = {
  nothing: () => ({}),
  'the marketplace and client': () => ({ baseUrl: sim.url, clientId: FLEET.clientId }),
  'the base URL': () => ({ baseUrl: sim.url }),
  'the client': () => ({ clientId: FLEET.clientId }),
  'the accounts': () => ({ accounts: [eu] }),
  'the automations': () => ({ automationsAllowed: false }),
};

/** A laptop: its settings (EU saved, or nothing) and its policy folder, as the CLI and the app read them. */
async function laptop(managed: Record<string, unknown>, saved: boolean) {
  const home = await mkdtemp(join(tmpdir(), 'advice-works-'));
  dirs.push(home);
  const dataRoot = join(home, 'Seller Tray');
  await mkdir(dataRoot, { recursive: true });
  if (saved)
    new ConfSettingsStore({ cwd: dataRoot }).save({
      ...DEFAULT_SETTINGS,
      baseUrl: eu.baseUrl,
      clientId: eu.clientId,
      accounts: [eu],
    });
  const policyRoot = join(home, 'policies');
  await mkdir(join(policyRoot, 'managed'), { recursive: true });
  await writeFile(join(policyRoot, 'managed', 'fleet.json'), JSON.stringify(managed));
  const policies = resolvePolicies({
    documents: [{ level: 'managed', origin: 'fleet.json', values: managed }],
    problems: [],
  });
  return { home, dataRoot, policyRoot, policies };
}
type Laptop = Awaited<ReturnType<typeof laptop>>;

/** A message and where it is read: `flags` are the command line the CLI's user typed. */
interface Said {
  text: string;
  flags: AccountFlags;
  /** The account it is about, where one was found. */
  account?: Account | undefined;
}

/** What the CLI says about the account `flags` name, and the advice either surface gives about it. */
async function messages(at: Laptop, flags: AccountFlags, env: NodeJS.ProcessEnv): Promise<Said[]> {
  // An empty keychain: the secret is stored as the advice says.
  const stores = { ...cliStores(env, at.policies), secrets: memorySecrets() };
  const said: Said[] = [];
  let account: Account | undefined;
  try {
    account = resolveAccount(flags, stores, env);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof Refusal)) throw error;
    said.push({ text: error.message, flags });
  }
  if (!account) return said;
  try {
    await account.clientSecret();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    said.push({ text: error.message, flags, account });
  }
  for (const text of everyKind(adviceFor(account.surface, account.ref))) said.push({ text, flags, account });
  // The app serves the accounts of its settings: their advice in its window, under the same policies.
  if (account.ref.label !== undefined) {
    const app: AppSurface = { surface: 'app', locked: () => lockedByPolicy(at.policies) };
    for (const text of everyKind(adviceFor(app, account.ref))) said.push({ text, flags, account });
  }
  return said;
}

/** The commands a CLI message names, and whether each may change the settings (so it is run). */
const COMMANDS: Record<string, 'run' | 'reads'> = {
  login: 'run',
  'accounts add': 'run',
  doctor: 'reads',
  'accounts list': 'reads',
  // Writes the keychain only: no policy sets an automation's secret.
  'automations secret': 'reads',
  'automations test': 'reads',
  // Run the settings' automation again, or post a status: neither changes the settings.
  'automations run-again': 'reads',
  'automations runs': 'reads',
  status: 'reads',
};

/** `seller-tray VERB [LABEL] [--flag value]…` in a message: its verb and its arguments. */
function commandsIn(text: string): { verb: string; args: string[]; whole: string }[] {
  return [
    ...text.matchAll(
      /seller-tray ([a-z]+(?: [a-z][a-z-]*)?)((?: (?:[A-Z]+|"[^"]*"|--[a-z-]+(?: (?!--)[^\s,;()]+)?))*)/g,
    ),
  ].map((match) => {
    const [whole, verb = '', rest = ''] = match;
    const words = verb.split(' ');
    // A second word is a subcommand only where the first has them.
    const command = ['accounts', 'automations'].includes(words[0] ?? '') ? verb : (words[0] ?? '');
    const args = [...(command === verb ? [] : words.slice(1)), ...rest.trim().split(' ').filter(Boolean)];
    return { verb: command, args: args.map((arg) => arg.replace(/\.$/, '')), whole };
  });
}

/** The flags and variables that change a setting, as a message may name them outside a command. */
const FLAGS: [RegExp, Record<string, string>][] = [
  [/--base-url|SELLER_API_BASE_URL/, { baseUrl: 'https://elsewhere.example' }],
  [/--client-id|SELLER_CLIENT_ID/, { clientId: 'elsewhere' }],
];

/** The app's controls a message names, and how the window asks for each (none: no policy locks it). */
const CONTROLS: [RegExp, [channel: string, request: object] | null][] = [
  [/check the base URL in Settings/, ['setSettings', { baseUrl: 'https://elsewhere.example' }]],
  [/another client in Settings/, ['setSettings', { clientId: 'elsewhere' }]],
  [/Replace secret in Settings → Accounts/, ['addAccount', { label: 'EU', secret: 'a-new-secret' }]],
  [/Settings → Automations/, ['setAutomationSecret', { automation: 'billing hook', secret: 'whsec-1' }]],
  [/Diagnose connection in Settings|Settings → Open log folder|Check now|order page/, null],
];

/** What each command line came to on each laptop: the same is tried once. */
const tried = new Map<string, Promise<string | undefined>>();

/** Runs a settings-changing command as its user would, on a copy of the laptop; what went wrong, or nothing. */
function tryCommand(at: Laptop, said: Said, verb: string, named: string[]): Promise<string | undefined> {
  const key = JSON.stringify([at.home, said.flags, said.account?.ref.clientId, verb, named]);
  const known = tried.get(key) ?? runCommand(at, said, verb, named);
  tried.set(key, known);
  return known;
}

async function runCommand(
  at: Laptop,
  said: Said,
  verb: string,
  named: string[],
): Promise<string | undefined> {
  const copy = `${at.home}-try-${Math.random().toString(36).slice(2)}`;
  dirs.push(copy);
  await cp(at.home, copy, { recursive: true });
  // A command named without an account of its own is run on the command line the message answered.
  const own = named.some((arg) => /^--(base-url|client-id|id|account)$/.test(arg));
  const typed = own
    ? []
    : [
        ...(said.flags.baseUrl ? ['--base-url', said.flags.baseUrl] : []),
        ...(said.flags.clientId ? ['--client-id', said.flags.clientId] : []),
      ];
  // What the person fills in: a label of their own, the marketplace, another client it gave them.
  const placeholders: Record<string, string> = { LABEL: 'Other', URL: sim.url, ID: OTHER.clientId };
  const args = [...verb.split(' '), ...named.map((arg) => placeholders[arg] ?? arg), ...typed];
  const clientIndex = args.indexOf('--client-id');
  const clientId = clientIndex >= 0 ? args[clientIndex + 1] : (said.account?.ref.clientId ?? FLEET.clientId);
  const secret = CLIENTS.find((c) => c.clientId === clientId)?.clientSecret ?? 'no-such-client';
  const before = new ConfSettingsStore({ cwd: join(copy, 'Seller Tray') }).load().settings.accounts;
  try {
    const run = await runTs(
      'main/cli/seller-tray.ts',
      args,
      {
        XDG_CONFIG_HOME: copy,
        SELLER_TRAY_POLICY_ROOT: join(copy, 'policies'),
        SELLER_API_BASE_URL: '',
        SELLER_CLIENT_ID: '',
        SELLER_CLIENT_SECRET: '',
      },
      `${secret}\n`,
    );
    if (run.code !== 0)
      return `seller-tray ${args.join(' ')} exits ${run.code}: ${run.stderr.trim().split('\n')[0]}`;
    const after = new ConfSettingsStore({ cwd: join(copy, 'Seller Tray') }).load().settings.accounts;
    const gone = before.filter(
      (entry) =>
        !after.some(
          (a) => a.label === entry.label && a.baseUrl === entry.baseUrl && a.clientId === entry.clientId,
        ),
    );
    if (gone.length > 0)
      return `seller-tray ${args.join(' ')} replaced the saved ${gone.map((entry) => entry.label).join(', ')}`;
    return undefined;
  } finally {
    for (const client of CLIENTS) await keychain.delete(secretOwner(sim.url, client.clientId));
  }
}

/** Asks the window's request for a control on a copy of the laptop; whether the organization refused it. */
async function refusedAsManaged(at: Laptop, [channel, request]: [string, object]): Promise<boolean> {
  const copy = `${at.home}-app-${Math.random().toString(36).slice(2)}`;
  dirs.push(copy);
  await cp(at.home, copy, { recursive: true });
  const dataRoot = join(copy, 'Seller Tray');
  const policies = fixedPolicies(at.policies);
  const { service } = await openTestService(dataRoot, {
    secrets: memorySecrets(),
    policies,
    settings: new ManagedSettingsStore(new ConfSettingsStore({ cwd: dataRoot }), policies),
  });
  try {
    const answer = await service.handleMessage(channel, request);
    return !answer.ok && answer.error.code === 'managed';
  } finally {
    await service.close();
  }
}

/** Each command, flag and control `said` names that would not work on this laptop, in words. */
async function whatFails(at: Laptop, said: Said, policies: Policies): Promise<string[]> {
  const wrong: string[] = [];
  // A refusal names the flag or variable it refused: no advice to use it.
  let rest = said.text.replace(/(--[a-z-]+|SELLER_[A-Z_]+) cannot change it here/g, '');
  for (const { verb, args, whole } of commandsIn(said.text)) {
    rest = rest.replace(whole, '');
    const kind = COMMANDS[verb];
    if (!kind) wrong.push(`names seller-tray ${verb}, which this test does not know: teach it COMMANDS`);
    else if (kind === 'run') {
      const failed = await tryCommand(at, said, verb, args);
      if (failed) wrong.push(failed);
    }
  }
  for (const [named, change] of FLAGS) {
    if (!named.test(rest)) continue;
    try {
      refuseManaged(named.source, change, policies);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      wrong.push(`names ${named.source}, which the policy locks`);
    }
  }
  for (const [named, request] of CONTROLS) {
    if (!named.test(rest)) continue;
    rest = rest.replace(named, '');
    if (request && (await refusedAsManaged(at, request)))
      wrong.push(`names ${named.source}, which the organization's policy locks`);
  }
  if (/Settings/.test(rest))
    wrong.push('names a control of Settings this test does not know: teach it CONTROLS');
  return wrong;
}

describe('advice names only what works where it is read', () => {
  it.each(Object.keys(POLICIES))(
    'where a policy sets %s',
    async (policy) => {
      const failures: string[] = [];
      for (const saved of [true, false]) {
        const at = await laptop(POLICIES[policy]?.() ?? {}, saved);
        for (const secretFrom of ['variable', 'keychain'] as const) {
          const env: NodeJS.ProcessEnv = {
            XDG_CONFIG_HOME: at.home,
            SELLER_CLIENT_SECRET: secretFrom === 'variable' ? FLEET.clientSecret : '',
          };
          const asked: AccountFlags[] = [
            {},
            { baseUrl: sim.url, clientId: OTHER.clientId },
            { account: 'EU' },
          ];
          // Each message once: the same words name the same things.
          const seen = new Set<string>();
          for (const flags of asked) {
            for (const said of await messages(at, flags, env)) {
              const key = `${JSON.stringify(flags)} ${said.text}`;
              if (seen.has(key)) continue;
              seen.add(key);
              for (const wrong of await whatFails(at, said, at.policies))
                failures.push(
                  `${saved ? 'EU saved' : 'nothing saved'}, secret from ${secretFrom}, asked ${JSON.stringify(flags)}:\n  “${said.text}”\n  ${wrong}`,
                );
            }
          }
        }
      }
      expect(failures).toEqual([]);
    },
    300_000,
  );
});
