// Automations (issue 24), as every process sees them: what the settings file declares (when a
// new order arrives: run a command, call a signed webhook, post to Slack or Teams), the words
// the declarations are held to, a run as the store keeps it and how its end is said. Imports nothing;
// main/core/automation/ checks them (zod) and runs them.

/** A command: an argument list (no shell), run in `cwd` for at most `timeoutSeconds`. */
export interface CommandAction {
  type: 'command';
  /** The program and its arguments; marketplace text never goes here, only on standard input. */
  command: string[];
  /** The working folder; the user data folder's `automations` when absent. */
  cwd?: string | undefined;
  timeoutSeconds: number;
}

/** An HTTPS POST of the order's JSON, signed (Seller-Tray-Signature) with the keychain's secret. */
export interface WebhookAction {
  type: 'webhook';
  url: string;
}

/** A message to a Slack or Teams channel through its incoming webhook, whose URL is in the keychain. */
export interface ChatAction {
  type: 'slack' | 'teams';
}

export type AutomationAction = CommandAction | WebhookAction | ChatAction;

/** What an automation reports to the marketplace on success; failure reports Failed. */
export type ReportOnSuccess = 'in-progress' | 'completed';

export interface AutomationSetting {
  /** How runs, the log and the status's description name it: "by automation provision on …". */
  name: string;
  /** Off keeps it declared but never queued. */
  enabled: boolean;
  /** Only for orders with one of these products (seller's item id or name, any case); all when empty. */
  products: string[];
  /** Only for these order types (the order's orderTypeCode, any case); all when empty. */
  orderTypes: string[];
  /** The accounts it runs for: 'all', or their ids (AccountState.id), which a rename keeps. */
  accounts: 'all' | string[];
  action: AutomationAction;
  /** Opt-in: the result marks the order's status (null: it does not). */
  reportStatus: ReportOnSuccess | null;
}

export const AUTOMATION_LIMITS = {
  /** Letters, digits, dot, dash, underscore and space: a name goes into a posted description. */
  nameMax: 40,
  count: 20,
  timeoutSeconds: { default: 300, min: 1, max: 3600 },
  /** The order JSON's shape: a receiver checks it before reading (docs/automations.md). */
  payloadVersion: 1,
} as const;

/** Letters and digits first and last, space, dot, dash and underscore between. */
export const AUTOMATION_NAME = /^[\p{L}\p{N}](?:[\p{L}\p{N} ._-]*[\p{L}\p{N}._-])?$/u;
/** AUTOMATION_NAME in words, for a name it refuses. */
export const AUTOMATION_NAME_RULE =
  'a name starts with a letter or digit, then letters, digits, spaces, dots, dashes and underscores, and does not end with a space';

/**
 * The automation of `list` that `name` names: names are one whatever their case, as the list
 * refuses two that differ only in case, so every look-up and that check compare alike.
 */
export function automationNamed<T extends { name: string }>(
  list: readonly T[] | undefined,
  name: string,
): T | undefined {
  const key = name.toLowerCase();
  return list?.find((a) => a.name.toLowerCase() === key);
}

/** Settings → Automations: the list, whose secrets are stored, and whether it is the organization's. */
export interface AutomationsView {
  automations: AutomationSetting[];
  /** The automations whose secret is stored for every listed account they run for: "set"; never the secret. */
  secretsStored: string[];
  /** The organization's policies forbid automations or set the list: shown read only, changes refused. */
  managed: boolean;
}

/** What started a run: a new order, a person's "Run again", or `seller-tray automations test`. */
export type RunTrigger = 'new-order' | 'again' | 'test';

export type RunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

/** One run of an automation for one order, as the store keeps it. */
export interface AutomationRun {
  /** The same through every attempt: the receiver's idempotency key. */
  deliveryId: string;
  orderId: string;
  automation: string;
  trigger: RunTrigger;
  /**
   * 'queued' is waiting to run (its time, its order, or a slot: then `claimed`); 'running' has
   * really started, since `startedAt`.
   */
  state: RunState;
  /** Taken by a process: waiting for a slot, or running. False once it ended or waits for a retry. */
  claimed: boolean;
  /** Attempts that really started (counted with the start, not the claim); 0 before the first. */
  attempts: number;
  queuedAt: string;
  dueAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  exitCode: number | null;
  httpStatus: number | null;
  /** What happened, in words (cleaned). */
  detail: string | null;
  /** The end of the command's output or the receiver's answer, cleaned and bounded. */
  output: string | null;
}

/** What a run ended with, as the order page and the CLI say it: "exit 2", "HTTP 503", and what happened when it says more. */
export function runOutcome(run: AutomationRun): { code: string; detail: string } {
  const code =
    run.exitCode !== null ? `exit ${run.exitCode}` : run.httpStatus !== null ? `HTTP ${run.httpStatus}` : '';
  return { code, detail: run.detail && run.detail !== code ? run.detail : '' };
}

/** The accounts an automation runs for, by their labels: "all accounts", "EU, US". */
export function automationAccounts(
  a: Pick<AutomationSetting, 'accounts'>,
  known: readonly { id: string; label: string }[],
): string {
  if (a.accounts === 'all') return 'all accounts';
  // An id no listed account has any more: the account was removed (its runs stay off).
  return a.accounts
    .map((id) => known.find((k) => k.id === id)?.label ?? `a removed account (${id})`)
    .join(', ');
}

/** What an automation does and for which orders, as Settings and `automations list` say it. */
export function describeAutomation(a: AutomationSetting): { action: string; orders: string } {
  const action =
    a.action.type === 'command'
      ? `command ${a.action.command.join(' ')} (${a.action.timeoutSeconds} s)`
      : a.action.type === 'webhook'
        ? `webhook ${a.action.url}`
        : `${a.action.type} message`;
  const filters = [...a.products.map((p) => `product ${p}`), ...a.orderTypes.map((t) => `type ${t}`)];
  return { action, orders: filters.length === 0 ? 'every new order' : filters.join(', ') };
}
