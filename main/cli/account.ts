// Where the CLI finds the account: flags first, then the environment, then the settings
// the app (or `seller-tray login`) saved; the secret from the environment, a systemd credential
// (a service's, credentials.ts) or the keychain.
// The app's demo marketplace lives only inside the running app (its address changes each run),
// so an account saved in demo mode is no account for the CLI: it says none is configured. The
// organization's policies apply as in the app: a flag or variable may not change a locked setting.
import { actorNameProblem } from '../../preload/marked-by';
import type { AccountEntry } from '../../preload/settings-declaration';
import { AccountListError, findAccount as findListed } from '../core/account/account-list';
import {
  type AccountRef,
  accountLog,
  accountRef,
  clientOptionsFor,
  keychainEntry,
} from '../core/account/account-ref';
import type { AccountChoice } from '../core/account/removal-notes';
import { osAccountName } from '../core/account-name';
import { adviceFor, capitalized, lockedByPolicy, nameAnAccount, type TerminalSurface } from '../core/advice';
import type { SellerApiClientOptions } from '../core/api/client';
import { type NodeNetwork, nodeNetwork } from '../core/api/node-transport';
import { CredentialSecretStore, credentialsDirectory } from '../core/credentials';
import { watchFile } from '../core/file-watch';
import { type Log, silentLog } from '../core/log';
import { markActor } from '../core/mark';
import { ensurePrivateDir, userDataDir } from '../core/paths';
import { NO_POLICIES, type Policies, policyRefusals } from '../core/policy/layers';
import { ManagedSettingsStore } from '../core/policy/managed-settings';
import { fixedPolicies, type PolicyPort } from '../core/policy/watcher';
import {
  adoptUnboundSecret,
  KeytarSecretStore,
  noSecretFor,
  type SecretOwner,
  type SecretStore,
} from '../core/secrets';
import { ConfSettingsStore, parseSettingsPatch, type Settings, type SettingsStore } from '../core/settings';
import { Refusal, UsageError } from './refusals';

export interface AccountFlags {
  baseUrl?: string | undefined;
  clientId?: string | undefined;
  /** `--account LABEL`: one of the saved list's accounts, by its label. */
  account?: string | undefined;
  /** `--id ID`: one of the saved list's accounts, by its id (as advice names it). */
  id?: string | undefined;
}

/** The account a command serves (with the saved settings' routes, as the app uses them) and its secret. */
export interface Account {
  ref: AccountRef;
  clientSecret: () => Promise<string>;
  /** What the terminal's advice about it must know (where its secret comes from, what policies lock). */
  surface: TerminalSurface;
}

/** Where a secret comes from unless an account is chosen from the list: SELLER_CLIENT_SECRET, set, wins. */
export const secretFrom = (env: NodeJS.ProcessEnv = process.env): TerminalSurface['secretFrom'] =>
  env.SELLER_CLIENT_SECRET ? 'variable' : 'keychain';

/** The terminal a command's account is served at, for its advice (advice.ts). */
export function terminalSurface(
  saved: Settings,
  policies: Policies,
  secretFrom: TerminalSurface['secretFrom'],
): TerminalSurface {
  return {
    surface: 'terminal',
    secretFrom,
    // The app's demo is no account the CLI serves: login replacing it replaces nothing kept.
    accountsSaved: saved.accounts.some((_, index) => !(saved.demoMode && index === 0)),
    // `accounts add` and `login` refuse another marketplace or client than the policy's.
    locked: lockedByPolicy(policies),
  };
}

let network: NodeNetwork | undefined;
/** The CLI's one way to the network: the proxy and the authorities of a corporate network (node-transport.ts). */
export function cliNetwork(): NodeNetwork {
  network ??= nodeNetwork();
  return network;
}

/**
 * How the CLI's clients retry: a refused connection is not tried again, as nothing listens there
 * and a person waits (docs/cli.md); the rest as the app's.
 */
const CLI_RETRY = { retryRefused: false } as const;

/**
 * How a one-shot command's client reaches a marketplace: through the corporate network's proxy and
 * authorities, retrying as CLI_RETRY says. Every such client (a command's, `accounts add`'s check).
 */
export function cliConnection() {
  return { transport: cliNetwork().transport, retry: CLI_RETRY };
}

/** How a client reaches the account, as the app's would; its failed calls go to `log` (--verbose). */
export function clientOptions(account: Account, log: Log = silentLog): SellerApiClientOptions {
  return clientOptionsFor(account.ref, account.clientSecret, {
    log: accountLog(log, account.ref),
    ...cliConnection(),
  });
}

/** The stores the CLI shares with the app: the same directory, the same keychain entries. */
export interface CliStores {
  /** The saved settings under the organization's policies, as the app reads them. */
  settings: SettingsStore;
  /** The keychain, with the systemd credentials the service was given read first (credentials.ts). */
  secrets: SecretStore;
  /** Those credentials: where they are, and which one stands for a keychain entry. */
  credentials: Pick<CredentialSecretStore, 'directory' | 'shadowing'>;
  dataRoot: string;
  /** The organization's policies in force now (`run` follows them while it runs). */
  readonly policies: Policies;
  /** Calls `changed` after another process (the app, an editor) changed the settings file; returns the stop. */
  settingsChanges: (changed: () => void) => () => void;
  /** Calls `changed` after the policies in force changed (only where they are watched: `run`); returns the stop. */
  policyChanges: (changed: () => void) => () => void;
}

/** `policies`: read once (a command that ends before IT changes them), or watched (`run`, a service). */
export function cliStores(
  env: NodeJS.ProcessEnv = process.env,
  policies: Policies | PolicyPort = NO_POLICIES,
): CliStores {
  const dataRoot = ensurePrivateDir(userDataDir(env));
  // A file that cannot be used is left for the person correcting it: the command stops (seller-tray.ts).
  const file = new ConfSettingsStore({ cwd: dataRoot, unusableFile: 'leave' });
  const port = 'current' in policies ? policies : fixedPolicies(policies);
  const settings = new ManagedSettingsStore(file, port);
  const secrets = new CredentialSecretStore(credentialsDirectory(env), new KeytarSecretStore());
  return {
    settings,
    secrets,
    credentials: secrets,
    dataRoot,
    get policies() {
      return port.current();
    },
    settingsChanges: (changed) => watchFile(file.path, changed),
    policyChanges: (changed) => port.onChange(() => changed()),
  };
}

/** An account's surface, told when a loaded credential serves it in place of its keychain entry. */
function servedSurface(surface: TerminalSurface, stores: CliStores, ref: AccountRef): TerminalSurface {
  if (surface.secretFrom !== 'keychain') return surface;
  try {
    return stores.credentials.shadowing(keychainEntry(ref))
      ? { ...surface, secretFrom: 'credential' }
      : surface;
  } catch {
    // An entry that cannot be named (a client id given with a control character): reading its secret says why.
    return surface;
  }
}

/** Said after a secret is written to the keychain: a credential loaded for its entry is read before it. */
export function shadowedNote(stores: CliStores, owner: SecretOwner): string {
  const loaded = stores.credentials.shadowing(owner);
  return loaded
    ? ` The credential ${loaded.name} loaded here is read before it, as long as the service loads it.`
    : '';
}

/** Refuses a command-line change of what a policy locks, naming the flag or variable that asked for it. */
export function refuseManaged(asked: string, change: Partial<Settings>, policies: Policies): void {
  const parsed = parseSettingsPatch(change);
  const refused = parsed.ok ? policyRefusals(parsed.patch, policies) : [];
  if (refused.length > 0)
    throw new Refusal(
      'managed',
      `${refused.map((r) => r.message).join('; ')}: ${asked} cannot change it here`,
    );
}

export function resolveAccount(
  flags: AccountFlags,
  stores: CliStores,
  env: NodeJS.ProcessEnv = process.env,
): Account {
  const saved = stores.settings.load().settings;
  if (flags.account !== undefined || flags.id !== undefined) return listedAccount(flags, saved, stores);
  const account = saved.demoMode ? { baseUrl: '', clientId: '' } : saved;
  // An empty variable counts as unset, as shells make it easy to export one by accident.
  const asked = {
    baseUrl: flags.baseUrl || env.SELLER_API_BASE_URL,
    clientId: flags.clientId || env.SELLER_CLIENT_ID,
  };
  if (asked.baseUrl)
    refuseManaged(
      flags.baseUrl ? '--base-url' : 'SELLER_API_BASE_URL',
      { baseUrl: asked.baseUrl },
      stores.policies,
    );
  if (asked.clientId)
    refuseManaged(
      flags.clientId ? '--client-id' : 'SELLER_CLIENT_ID',
      { clientId: asked.clientId },
      stores.policies,
    );
  const surface = terminalSurface(saved, stores.policies, secretFrom(env));
  const baseUrl = asked.baseUrl || account.baseUrl;
  if (!baseUrl) {
    // In demo mode the others saved are the ones the CLI can serve: named by id, as advice names them.
    const others = saved.accounts.slice(1).map((entry) => `${entry.label} is --id ${accountRef(entry).id}`);
    const named = others.length > 0 ? `name a saved account with --id: ${others.join(', ')}; or ` : '';
    throw new UsageError(
      `no marketplace configured${saved.demoMode ? ' (the app is in demo mode, whose marketplace runs only inside the app)' : ''}: ${named}${nameAnAccount(surface)}`,
    );
  }
  const clientId = asked.clientId || account.clientId;
  const first = saved.accounts[0];
  // The saved first account, when it is this one, lends its label (to the log) and its routes.
  const listed = first?.baseUrl === baseUrl && first.clientId === clientId ? first : undefined;
  const ref = accountRef({ baseUrl, clientId, api: listed?.api, label: listed?.label }, saved.api);
  return {
    ref,
    surface: servedSurface(surface, stores, ref),
    clientSecret: async () => {
      if (!clientId) throw new UsageError(`no client id: ${nameAnAccount(surface, baseUrl)}`);
      if (env.SELLER_CLIENT_SECRET) return env.SELLER_CLIENT_SECRET;
      // The keychain's secret for this very marketplace: one stored for another never goes here.
      await adoptUnboundSecret(stores.secrets, saved);
      const owner = keychainEntry(ref);
      const secret = await stores.secrets.get(owner);
      if (!secret) {
        // Stored as the advice says, so where others are saved it never replaces the first.
        throw new UsageError(`${noSecretFor(owner)} ${capitalized(adviceFor(surface, ref).enterSecret)}.`);
      }
      return secret;
    },
  };
}

/**
 * The accounts `watch` serves: every saved one (the app's demo aside) when there are several and
 * the command names none (no --account, --base-url, --client-id or their variables); else the one
 * `resolveAccount` finds.
 */
export function resolveAccounts(
  flags: AccountFlags,
  stores: CliStores,
  env: NodeJS.ProcessEnv = process.env,
): Account[] {
  const saved = stores.settings.load().settings;
  const named =
    flags.account ||
    flags.id ||
    flags.baseUrl ||
    flags.clientId ||
    env.SELLER_API_BASE_URL ||
    env.SELLER_CLIENT_ID;
  const listed = saved.accounts.filter((_, index) => !(saved.demoMode && index === 0));
  if (named || listed.length < 2) return [resolveAccount(flags, stores, env)];
  return listed.map((entry) => listedAccount({ account: entry.label }, saved, stores));
}

/**
 * `--account LABEL` or `--id ID`: that saved account. Its secret is the keychain's for that very
 * account: SELLER_CLIENT_SECRET, which names no marketplace, is not sent to a chosen one.
 */
function listedAccount(flags: AccountFlags, saved: Settings, stores: CliStores): Account {
  if (flags.baseUrl || flags.clientId)
    throw new UsageError(
      `${flags.id === undefined ? '--account' : '--id'} names the marketplace and client id: leave out --base-url and --client-id`,
    );
  const entry = findAccount(saved, accountChoice(flags));
  if (saved.demoMode && entry === saved.accounts[0])
    throw new UsageError(
      `${entry.label} is the app's demo, whose marketplace runs only inside the app: choose another account`,
    );
  const ref = accountRef(entry, saved.api);
  const surface = servedSurface(terminalSurface(saved, stores.policies, 'keychain'), stores, ref);
  return {
    ref,
    surface,
    clientSecret: async () => {
      const owner = keychainEntry(ref);
      const secret = await stores.secrets.get(owner);
      if (!secret)
        throw new UsageError(`${noSecretFor(owner)} ${capitalized(adviceFor(surface, ref).enterSecret)}.`);
      return secret;
    },
  };
}

/**
 * The account `--id` or `--account` (or an `accounts` command's LABEL) chooses: one of them, as a
 * label that begins with "-" is given as `--account=-x` (else it would read as an option).
 */
export function accountChoice(flags: {
  account?: string | undefined;
  id?: string | undefined;
}): AccountChoice {
  if (flags.id !== undefined && flags.account !== undefined)
    throw new UsageError('--id and --account each name an account: give one of them');
  return flags.id === undefined ? { label: flags.account ?? '' } : { id: flags.id };
}

/** The saved account chosen, as the app finds it; a refusal is a usage error here. */
function findAccount(saved: Settings, which: AccountChoice): AccountEntry {
  try {
    return findListed(saved, which);
  } catch (error) {
    if (error instanceof AccountListError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Who the CLI's marks are by: `--as`, checked as the app checks "Your name"; else as the app
 * has it, the saved "Your name" or this computer's account.
 */
export function markedBy(
  asFlag: string | undefined,
  saved: Settings,
  policies: Policies = NO_POLICIES,
): string {
  if (asFlag === undefined) return markActor(saved.actorName, osAccountName);
  const name = asFlag.trim();
  refuseManaged('--as', { actorName: name }, policies);
  const problem = name === '' ? 'needs a name' : actorNameProblem(name);
  if (problem)
    throw new UsageError(
      `--as ${problem}: the name is written into the status's description and read back from it`,
    );
  return name;
}
