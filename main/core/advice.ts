// Where a person acts on what a message advises, worded for the surface it is read on: the app
// (its Settings, an order's page) or a terminal (`seller-tray run`/`watch`/`doctor` at a prompt or
// in a systemd journal, where the advice names the CLI's own commands, only those that work
// there: TerminalSurface). The one place that words each kind of advice: a session is opened for a surface (AccountSession.open), its core and every
// message it builds take their advice from here, so a new message cannot name the other surface.
import type { MarkableStatus } from '../../preload/order-status';
import { type AccountRef, commandFor, DEMO_ACCOUNT_ID } from './account/account-ref';

/** Where advice is read: the app, or a terminal with what its advice must know of the command line. */
export type Surface = 'app' | TerminalSurface;

/**
 * A terminal, with what decides which command works there, so advice never names one that would
 * change nothing (a keychain secret while SELLER_CLIENT_SECRET wins), replace another account
 * (`login` rewrites the first saved one) or be refused (a client a policy sets).
 */
export interface TerminalSurface {
  readonly surface: 'terminal';
  /** Where the account's client secret came from: SELLER_CLIENT_SECRET wins over the keychain. */
  readonly secretFrom: 'variable' | 'keychain';
  /** Whether the settings list an account (`login` would replace the first). */
  readonly accountsSaved: boolean;
  /** Whether a policy sets the marketplace or the client (`accounts add` of another refused). */
  readonly clientLocked: boolean;
}

/** Each kind of advice as a clause that starts in lower case (`capitalized` starts a sentence with it). */
export interface Advice {
  readonly surface: 'app' | 'terminal';
  /** Give the marketplace the account's current client secret. */
  readonly enterSecret: string;
  /** Run the connection's diagnosis (its report is for the marketplace's support). */
  readonly diagnose: string;
  /** Check the account's base URL. */
  readonly checkBaseUrl: string;
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
  return surface === 'app' ? appAdvice(account) : terminalAdvice(surface, account);
}

function appAdvice(account: AccountRef | undefined): Advice {
  return {
    surface: 'app',
    enterSecret: 'enter the current client secret in Settings',
    diagnose: 'run Diagnose connection in Settings',
    checkBaseUrl: 'check the base URL in Settings',
    checkNow: 'choose Check now',
    anotherClient: 'enter another client in Settings',
    sendLog: 'send the log (Settings → Open log folder) to your IT support',
    automationSecret: (automation) => {
      const command = secretCommand(account, automation);
      return `set it in Settings → Automations${command ? `, or run ${command}` : ' (the demo runs only in the app)'}`;
    },
    orderRuns: () => 'The order page shows its output and can run it again.',
    markAnyway: () => 'on the order page',
  };
}

function terminalAdvice(terminal: TerminalSurface, account: AccountRef | undefined): Advice {
  const listed = account?.label !== undefined;
  // How this account's secret is stored: a saved one by its id; one not saved is added beside
  // those saved (login would replace the first), or logged in to where none is or a policy sets it.
  const store = listed
    ? `${command(account, 'accounts add')} (it reads the secret from standard input)`
    : terminal.accountsSaved && !terminal.clientLocked && account
      ? `seller-tray accounts add LABEL --base-url ${account.baseUrl} --client-id ${account.clientId}`
      : 'seller-tray login';
  return {
    surface: 'terminal',
    enterSecret:
      terminal.secretFrom === 'variable'
        ? `set SELLER_CLIENT_SECRET to the current client secret (it is used before the keychain), or unset it and store the secret with ${store}`
        : listed
          ? `store the current client secret with ${store}`
          : `set SELLER_CLIENT_SECRET to the current client secret, or store it with ${store}`,
    diagnose: `run ${command(account, 'doctor')}`,
    checkBaseUrl: listed
      ? 'check the base URL the account was added with (seller-tray accounts list shows it)'
      : 'check the base URL (--base-url or SELLER_API_BASE_URL)',
    anotherClient: terminal.clientLocked
      ? 'ask your IT support for another client (a policy sets the client on this computer)'
      : 'add another client with seller-tray accounts add',
    sendLog: 'send what the command prints with --verbose to your IT support',
    automationSecret: (automation) => {
      const command = secretCommand(account, automation);
      return command ? `run ${command}` : 'set it in the app (the demo runs only in the app)';
    },
    orderRuns: (automation, orderId) =>
      `Its output is in the lines below; ${command(account, `automations test ${argument(automation)} --order ${orderId}`)} runs it again as a test (which reports no status).`,
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
