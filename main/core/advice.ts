// Where a person acts on what a message advises, worded for the surface it is read on: the app
// (its Settings, an order's page) or a terminal (`seller-tray run`/`watch`/`doctor` at a prompt or
// in a systemd journal, where the advice names the CLI's own commands, only those that work
// there: TerminalSurface). The one place that words each kind of advice: a session is opened for a surface (AccountSession.open), its core and every
// message it builds take their advice from here, so a new message cannot name the other surface.
// On either surface, what an organization's policy locks is never advised: IT is asked instead
// (test/advice-works.test.ts tries every command and control the advice names, per policy).
import type { MarkableStatus } from '../../preload/order-status';
import { type AccountRef, commandFor, DEMO_ACCOUNT_ID, keychainEntry } from './account/account-ref';
import { automationSecretEntry } from './automation/ports';
import { automationsManaged, lockedSettings, type Policies } from './policy/layers';
import { credentialName } from './secrets';

/**
 * Where advice is read: the app (`'app'`: one no organization manages), or a terminal with what
 * its advice must know of the command line.
 */
export type Surface = 'app' | AppSurface | TerminalSurface;

/**
 * What an organization's policies set of what advice sends a person to change: the account's
 * marketplace (`baseUrl`) or client (`clientId`), the account list (`accounts`, which fixes both),
 * the automations (their list, or none allowed: Settings shows them read only).
 */
export type Locked = 'baseUrl' | 'clientId' | 'accounts' | 'automations';

/** What the policies lock of what advice names (docs/administrators.md). */
export function lockedByPolicy(policies: Policies): Locked[] {
  const locked: readonly string[] = lockedSettings(policies);
  return [
    ...(['baseUrl', 'clientId', 'accounts'] as const).filter((key) => locked.includes(key)),
    ...(automationsManaged(policies) ? (['automations'] as const) : []),
  ];
}

/** The app, with what its organization's policies lock, read at each message (they change while it runs). */
export interface AppSurface {
  readonly surface: 'app';
  readonly locked: () => readonly Locked[];
}

/**
 * A terminal, with what decides which command works there, so advice never names one that would
 * change nothing (a keychain secret while SELLER_CLIENT_SECRET wins), replace another account
 * (`login` rewrites the first saved one) or be refused (a client a policy sets).
 */
export interface TerminalSurface {
  readonly surface: 'terminal';
  /**
   * Where the account's client secret came from: SELLER_CLIENT_SECRET wins over the keychain; a
   * systemd credential loaded for the account's entry is read before it (credentials.ts).
   */
  readonly secretFrom: 'variable' | 'keychain' | 'credential';
  /** Whether the settings list an account (`login` would replace the first). */
  readonly accountsSaved: boolean;
  /** What a policy sets (the CLI refuses a flag, variable or command that would change it). */
  readonly locked: readonly Locked[];
  /** The command, where it tries once and ends (`watch --once`): a failure is then not tried again. */
  readonly triesOnce?: string | undefined;
  /**
   * The command line, where the command reads the secret itself (`login`, `accounts add`): a
   * refused one is given by running it again, whole, as printed.
   */
  readonly readsSecret?: string | undefined;
}

/** How a command that reads the secret takes it, said beside the command advised. */
const READS_SECRET = 'it reads the secret from standard input: piped, or typed at its prompt';

/** Each kind of advice as a clause that starts in lower case (`capitalized` starts a sentence with it). */
export interface Advice {
  readonly surface: 'app' | 'terminal';
  /** Give the marketplace the account's current client secret. */
  readonly enterSecret: string;
  /** Run the connection's diagnosis (its report is for the marketplace's support). */
  readonly diagnose: string;
  /** Check the account's base URL. */
  readonly checkBaseUrl: string;
  /**
   * Where a failure Seller Tray would try again is not (`watch --once`): what to do instead, said in
   * place of "Seller Tray keeps trying".
   */
  readonly oneTry?: string | undefined;
  /** Poll at once; none where there is no such control (a terminal's watch polls on its own). */
  readonly checkNow?: string | undefined;
  /** Use another API client instead. */
  readonly anotherClient: string;
  /** Send what Seller Tray logged to IT support. */
  readonly sendLog: string;
  /** Set an automation's secret (a webhook's signing secret, a chat's address) for this account. */
  automationSecret(automation: string): string;
  /** See a failed run's output and run it again (a sentence). */
  orderRuns(automation: string, orderId: string): string;
  /** Where a person marks a status the order's history makes unusual (an automation cannot confirm one). */
  markAnyway(orderId: string, status: MarkableStatus): string;
}

/** An automation's name as a command's argument: quoted where it holds a space. */
const argument = (name: string): string => (name.includes(' ') ? `"${name}"` : name);

/**
 * The command that sets an automation's secret for one account (named by id, as advice names
 * accounts); none for the demo, which runs only in the app.
 */
export function secretCommand(account: AccountRef | undefined, automation: string): string | undefined {
  if (account?.id === DEMO_ACCOUNT_ID) return undefined;
  return command(account, `automations secret ${argument(automation)}`);
}

/** A command about this account: by `--id` where it is one of the saved list's (labelled), else as typed. */
function command(account: AccountRef | undefined, words: string): string {
  return account?.label !== undefined ? commandFor(account.id, words) : `seller-tray ${words}`;
}

/** The advice for a session of this surface serving `account` (none: advice about no one account). */
export function adviceFor(surface: Surface, account?: AccountRef): Advice {
  if (surface === 'app') return appAdvice(NOTHING_LOCKED, account);
  return surface.surface === 'app' ? appAdvice(surface.locked, account) : terminalAdvice(surface, account);
}

const NOTHING_LOCKED = (): readonly Locked[] => [];

/**
 * What each clause would have a person change, as the locks that refuse it: the base URL (a
 * policy's, or the first of its account list), the client (the same). A clause that names such a
 * control or command where it is locked asks IT instead, naming what the policy sets.
 */
const BASE_URL_SET_BY: readonly Locked[] = ['baseUrl', 'accounts'];
const CLIENT_SET_BY: readonly Locked[] = ['clientId', 'accounts'];

/** How advice names what a policy sets. */
const POLICY_SETS: Readonly<Record<Locked, string>> = {
  baseUrl: 'the marketplace',
  clientId: 'the client',
  accounts: 'the accounts',
  automations: 'the automations',
};

/** What a policy sets of `keys`, in advice's words; none where none is locked. */
function setByPolicy(locked: readonly Locked[], keys: readonly Locked[]): string | undefined {
  const key = keys.find((k) => locked.includes(k));
  return key && POLICY_SETS[key];
}

/** A clause that asks IT for what a policy sets (`sets`, in advice's words). */
const askIT = (what: string, sets: string): string =>
  `ask your IT support ${what} (a policy sets ${sets} on this computer)`;

/** The app's advice: its places to act, read anew at each message as the policies lock them. */
function appAdvice(locked: () => readonly Locked[], account: AccountRef | undefined): Advice {
  const setBy = (keys: readonly Locked[]) => setByPolicy(locked(), keys);
  return {
    surface: 'app',
    // The secret is never a policy: each user enters it (docs/administrators.md). In the account's
    // own row, checked before it is stored: the secret field above is the first account's only.
    enterSecret: 'enter the current secret with Replace secret in Settings → Accounts',
    diagnose: 'run Diagnose connection in Settings',
    get checkBaseUrl() {
      const sets = setBy(BASE_URL_SET_BY);
      return sets ? askIT('to check the base URL', sets) : 'check the base URL in Settings';
    },
    checkNow: 'choose Check now',
    get anotherClient() {
      const sets = setBy(CLIENT_SET_BY);
      return sets ? askIT('for another client', sets) : 'enter another client in Settings';
    },
    sendLog: 'send the log (Settings → Open log folder) to your IT support',
    automationSecret: (automation) => {
      const command = secretCommand(account, automation);
      // Settings shows automations a policy manages read only; the CLI still stores their secrets.
      const sets = setBy(['automations']);
      if (sets)
        return command ? `run ${command} (a policy sets ${sets} on this computer)` : askIT('to set it', sets);
      return `set it in Settings → Automations${command ? `, or run ${command}` : ' (the demo runs only in the app)'}`;
    },
    orderRuns: () => 'The order page shows its output and can run it again.',
    markAnyway: () => 'on the order page',
  };
}

/**
 * The command that saves an account the settings do not list, with its secret: added beside
 * those saved (`login` would replace the first), or by `login` where none is; none where a policy
 * sets the accounts (both refused). URL and ID are the person's to fill in where not known.
 */
function saveCommand(
  terminal: TerminalSurface,
  account: { baseUrl?: string | undefined; clientId?: string | undefined },
): string | undefined {
  if (terminal.locked.includes('accounts')) return undefined;
  if (terminal.accountsSaved)
    return `seller-tray accounts add LABEL --base-url ${account.baseUrl || 'URL'} --client-id ${account.clientId || 'ID'}`;
  return loginCommand(terminal, account);
}

/**
 * `login` for an account, with the flags that name it (those a policy sets left out): whole, it
 * works as printed wherever its marketplace and client came from (flags or variables).
 */
export function loginCommand(
  terminal: TerminalSurface,
  account: { baseUrl?: string | undefined; clientId?: string | undefined },
): string {
  const flags = [
    ...(terminal.locked.includes('baseUrl') ? [] : [`--base-url ${account.baseUrl || 'URL'}`]),
    ...(terminal.locked.includes('clientId') ? [] : [`--client-id ${account.clientId || 'ID'}`]),
  ];
  return ['seller-tray login', ...flags].join(' ');
}

/**
 * What a terminal's user does where a command has no marketplace, or (`baseUrl` known) no client
 * id: give it on the command line, or save the account by the command that works here.
 */
export function nameAnAccount(terminal: TerminalSurface, baseUrl?: string): string {
  const flags = baseUrl
    ? 'pass --client-id, set SELLER_CLIENT_ID'
    : 'pass --base-url, set SELLER_API_BASE_URL';
  const save = saveCommand(terminal, { baseUrl });
  return save ? `${flags}, or save the account with ${save}` : flags;
}

function terminalAdvice(terminal: TerminalSurface, account: AccountRef | undefined): Advice {
  const listed = account?.label !== undefined;
  const setBy = (keys: readonly Locked[]) => setByPolicy(terminal.locked, keys);
  // How this account's secret is stored: a saved one by its id, else as an account is saved here.
  const store = listed
    ? `${command(account, 'accounts add')} (${READS_SECRET})`
    : saveCommand(terminal, account ?? {});
  const baseUrlSetBy = setBy(listed ? BASE_URL_SET_BY : ['baseUrl']);
  // Another client is added at the account's marketplace; with none known, at any (one a policy may set).
  const clientSetBy = setBy(account ? CLIENT_SET_BY : [...CLIENT_SET_BY, 'baseUrl']);
  return {
    surface: 'terminal',
    enterSecret: terminal.readsSecret
      ? `run ${terminal.readsSecret} again with the current secret (${READS_SECRET})`
      : !store
        ? `set SELLER_CLIENT_SECRET to the current client secret, or ${askIT('to add this account', 'the accounts')}`
        : terminal.secretFrom === 'variable'
          ? `set SELLER_CLIENT_SECRET to the current client secret (it is used before the keychain), or unset it and store the secret with ${store}`
          : terminal.secretFrom === 'credential' && account
            ? `put the current client secret in the file that LoadCredential=${credentialName(keychainEntry(account))}: names and restart the service (systemd copies it at its start)`
            : listed
              ? `store the current client secret with ${store}`
              : `set SELLER_CLIENT_SECRET to the current client secret, or store it with ${store}`,
    diagnose: `run ${command(account, 'doctor')}`,
    oneTry: terminal.triesOnce && `${terminal.triesOnce} does not try again: run it again later`,
    checkBaseUrl: baseUrlSetBy
      ? askIT('to check the base URL', baseUrlSetBy)
      : listed
        ? 'check the base URL the account was added with (seller-tray accounts list shows it)'
        : 'check the base URL (--base-url or SELLER_API_BASE_URL)',
    anotherClient: clientSetBy
      ? askIT('for another client', clientSetBy)
      : `add another client with seller-tray accounts add LABEL --base-url ${account?.baseUrl ?? 'URL'} --client-id ID`,
    sendLog: 'send what the command prints with --verbose to your IT support',
    automationSecret: (automation) => {
      const command = secretCommand(account, automation);
      if (!command) return 'set it in the app (the demo runs only in the app)';
      // A service given its secrets as systemd credentials is given this one the same way.
      return terminal.secretFrom === 'credential' && account
        ? `load it with LoadCredential=${credentialName(automationSecretEntry(account, automation))}:FILE and restart the service, or run ${command}`
        : `run ${command}`;
    },
    orderRuns: (automation, orderId) =>
      `Its output is in the lines below; ${command(account, `automations run-again ${argument(automation)} --order ${orderId}`)} runs it again; ${command(account, 'automations runs')} lists the runs waiting or failed.`,
    markAnyway: (orderId, status) => {
      const word = status.replace(/^Provisioning/, '');
      // `status` asks a Failed mark for what failed and why, as the app does.
      const words = word === 'Failed' ? ' --description TEXT --detail TEXT' : '';
      return `with ${command(account, `status ${orderId} ${word} --force${words}`)}`;
    },
  };
}

/**
 * Remove an account again, in the app: only its start undoes an interrupted removal and says so
 * (the CLI's `accounts list` names the commands that finish one).
 */
export const REMOVE_AGAIN_IN_APP = 'remove it again in Settings';

/** A clause of advice that starts a sentence. */
export const capitalized = (clause: string): string => clause.charAt(0).toUpperCase() + clause.slice(1);
