// Every setting, declared once: its type, default, limits, how refusals word it, its label and
// where it shows. The settings file's schema and the bridge's checks (main/core/settings.ts), the
// `Settings` type every process shares (model.ts) and the Settings view's form are derived from
// this table, so a new setting is one entry here plus its use. Settings that can be changed only
// through their own control (the pause, the demo) or only in the file (`api`) say so here too, and
// so do those an organization's policy cannot set (`policy: false`, main/core/policy/).
import type { AutomationSetting } from './automations';
import { LIMITS } from './contract';
import { LONGEST_HOLD_SECONDS } from './hold';
import { INBOX_SORTS, type InboxSort } from './inbox-sort';
import { ACTOR_NAME_MAX } from './marked-by';
import { RUNBOOK_LIMITS, type Runbook } from './runbooks';

/** The Settings view's sections, top to bottom. */
export const SETTINGS_SECTIONS = [
  'Marketplace',
  'Checking and notifications',
  'Inbox',
  'Marking statuses',
  'Automations',
  'Start-up',
] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

/**
 * Where a setting shows: in the Settings form with the control its type gives (`text` beside a
 * checkbox, `hint` under an input), in the form with a control of the view's own (it needs more
 * than its value: the account, "Your name"), through a control of its own elsewhere (the pause,
 * the demo), or only in the settings file (whoever deploys the app sets it; the bridge refuses it).
 */
export type Shows =
  | { in: 'form'; section: SettingsSection; text?: string; hint?: string }
  | { in: 'form-own-control'; section: SettingsSection }
  | { in: 'elsewhere' }
  | { in: 'own-channels' }
  | { in: 'file' };

interface Declared<T> {
  default: T;
  /** The setting as the form labels it: refusals for the window and the CLI name it so. */
  label: string;
  /** What it must be, in words a user can act on: every refusal of it says this. */
  rule: string;
  shows: Shows;
  /**
   * false: no policy sets it (a user's own moment, such as the pause; or one a policy of its own
   * governs: demoAllowed). Every other setting can be managed (locked) or recommended by IT.
   */
  policy?: false;
}

/** A whole number from `min` to `max`, or exactly `off` (which turns the feature off) where there is one. */
export interface WholeSetting extends Declared<number> {
  type: 'whole';
  min: number;
  max: number;
  off?: number;
  /** The unit the form's label names: "Check interval (seconds)". */
  unit: string;
}
export interface BooleanSetting extends Declared<boolean> {
  type: 'boolean';
}
export interface ChoiceSetting<T extends string> extends Declared<T> {
  type: 'choice';
  choices: readonly { value: T; label: string }[];
}
/** Text the main process checks further (settings.ts): an address, a client id, a name, a time. */
export interface CheckedSetting<T> extends Declared<T> {
  type: 'checked';
  /** The longest the form lets one type; the main process refuses longer. */
  maxLength?: number;
}
/**
 * Changed through channels of its own only (the account list: addAccount, renameAccount,
 * removeAccount check secrets and clean up; the automations: saveAutomation, removeAutomation),
 * never through setSettings.
 */
export interface OwnChannelsSetting<T> extends Declared<T> {
  type: 'checked';
  shows: { in: 'own-channels' };
  /** How it changes instead, as a refused setSettings says: "accounts change by …". */
  changes: string;
}
/** Set in the settings file only: the bridge and the form never change it. */
export interface FileSetting<T> extends Declared<T> {
  type: 'file';
  shows: { in: 'file' };
}

const whole = (s: Omit<WholeSetting, 'type'>): WholeSetting => ({ type: 'whole', ...s });
const boolean = (s: Omit<BooleanSetting, 'type' | 'rule'>): BooleanSetting => ({
  type: 'boolean',
  rule: 'must be true or false',
  ...s,
});
const choice = <T extends string>(s: Omit<ChoiceSetting<T>, 'type' | 'rule'>): ChoiceSetting<T> => ({
  type: 'choice',
  rule: `must be one of ${s.choices.map((c) => c.value).join(', ')}`,
  ...s,
});
const checked = <T>(s: Omit<CheckedSetting<T>, 'type'>): CheckedSetting<T> => ({ type: 'checked', ...s });
const ownChannels = <T>(s: Omit<OwnChannelsSetting<T>, 'type' | 'shows'>): OwnChannelsSetting<T> => ({
  type: 'checked',
  shows: { in: 'own-channels' },
  ...s,
});
const fileOnly = <T>(s: Omit<FileSetting<T>, 'type' | 'shows'>): FileSetting<T> => ({
  type: 'file',
  shows: { in: 'file' },
  ...s,
});

/** Where a marketplace's Seller API differs from the built-in routes (main/core/api/routes.ts). */
export interface ApiSection {
  /** Per operation: its method and path. */
  routes?: Record<string, { method?: 'GET' | 'POST' | undefined; path?: string | undefined }>;
  /** The largest page the server gives. */
  pageSize?: number;
}

/** One account of the list: its label and where it is (its id, folder and secret derive from these). */
export interface AccountEntry {
  label: string;
  baseUrl: string;
  clientId: string;
  /** Its marketplace's routes where they differ from the settings' `api` (written in the file only). */
  api?: ApiSection | undefined;
}

const POLL = { min: 30, max: 3600 };
const REMINDER = { off: 0, min: 15, max: 7 * 24 * 60 };
const ESCALATE = { off: 0, min: 5, max: 24 * 60 };
const STALE = { off: 0, min: 1, max: 365 };
const UNDO = { min: 0, max: LONGEST_HOLD_SECONDS };

/** The settings, in the order the form shows them within each section. */
export const SETTINGS = {
  /** The Seller API's base URL, stored in the form `checkBaseUrl` gives it; '' = not configured yet. */
  baseUrl: checked<string>({
    default: '',
    label: 'Base URL',
    rule: 'must be the address of the Seller API, such as https://marketplace.example',
    maxLength: LIMITS.baseUrl,
    shows: { in: 'form-own-control', section: 'Marketplace' },
  }),
  /** '' = not configured yet. HTTP Basic cannot carry a colon in the user id (RFC 7617 §2). */
  clientId: checked<string>({
    default: '',
    label: 'Client id',
    rule: `must be text of at most ${LIMITS.clientId} characters`,
    maxLength: LIMITS.clientId,
    shows: { in: 'form-own-control', section: 'Marketplace' },
  }),
  /**
   * Every marketplace account this laptop serves, each with a short label ("EU", "US", "Test").
   * The first is the one `baseUrl` and `clientId` name (the window's, and what Seller Tray 0.x
   * read); Settings → Accounts and the CLI's `accounts` change the list (core/account/account-list.ts).
   */
  accounts: ownChannels<AccountEntry[]>({
    default: [],
    label: 'Accounts',
    changes: 'by adding, renaming and removing accounts, one at a time',
    rule: `must be a list of accounts, each with its own label of at most ${LIMITS.accountLabel} characters, a base URL and a client id`,
  }),
  pollIntervalSeconds: whole({
    ...POLL,
    default: 60,
    label: 'Check interval',
    unit: 'seconds',
    rule: `must be a whole number of seconds from ${POLL.min} to ${POLL.max} (30 seconds to 1 hour)`,
    shows: {
      in: 'form',
      section: 'Checking and notifications',
      hint: `How often Seller Tray asks the marketplace for new orders: ${POLL.min} to ${POLL.max} seconds (1 hour).`,
    },
  }),
  notificationsEnabled: boolean({
    default: true,
    label: 'Notifications',
    shows: {
      in: 'form',
      section: 'Checking and notifications',
      text: 'Show a notification for each new order',
    },
  }),
  /** Every account's notifications are paused until this moment; null = not paused (the pause control sets it). */
  pausedUntil: checked<string | null>({
    default: null,
    label: 'Pause',
    rule: 'must be a date and time such as 2026-11-21T16:50:00Z, or null when not paused',
    shows: { in: 'elsewhere' },
    policy: false,
  }),
  /**
   * Each paused account's own pause, by its id (AccountState.id): until when its notifications are
   * held while the others' go on. Kept beside the list rather than in an account's entry: an older
   * Seller Tray leaves out an entry with a field it does not know (and the account with it), but
   * drops an unknown setting alone.
   */
  accountPauses: ownChannels<Record<string, string>>({
    default: {},
    label: 'Account pauses',
    changes: "by pausing one account's notifications (Settings → Accounts, seller-tray accounts pause)",
    rule: 'must be an object of account ids and dates and times such as {"3f9c0a1b2c3d4e5f": "2026-11-21T16:50:00Z"}',
    policy: false,
  }),
  /**
   * Remind the user of an order still waiting for action after this many minutes. 0 = off, so
   * "off" needs no second setting; any other value is 15 min (less would nag) to 7 days.
   */
  reminderAfterMinutes: whole({
    ...REMINDER,
    default: 240,
    label: 'Reminder delay',
    unit: 'minutes',
    rule: `must be a whole number of minutes from ${REMINDER.min} to ${REMINDER.max} (7 days), or 0 for no reminder`,
    shows: {
      in: 'form',
      section: 'Checking and notifications',
      hint: `Remind me of an order still waiting after this long; the inbox marks it late then, and very late after twice as long. 0 turns reminders off; otherwise ${REMINDER.min} minutes to ${REMINDER.max / 1440} days (${REMINDER.max} minutes).`,
    },
  }),
  /** A new order nobody started after this many minutes is announced again, urgent, on every laptop; 0 = never (issue 26). */
  escalateAfterMinutes: whole({
    ...ESCALATE,
    default: 60,
    label: 'Urgent after',
    unit: 'minutes',
    rule: `must be a whole number of minutes from ${ESCALATE.min} to ${ESCALATE.max} (a day), or 0 never to announce an order again`,
    shows: {
      in: 'form',
      section: 'Checking and notifications',
      hint: `A new order nobody started after this long is announced again, marked urgent, on every laptop (Needs attention can snooze it on this one). 0 never does; otherwise ${ESCALATE.min} to ${ESCALATE.max} minutes.`,
    },
  }),
  openAtLogin: boolean({
    default: false,
    label: 'Open at login',
    shows: { in: 'form', section: 'Start-up', text: 'Open Seller Tray when I log in' },
  }),
  /** Check for updates at start and every 6 hours (main/shell/updater.ts). */
  checkForUpdatesAutomatically: boolean({
    default: true,
    label: 'Check for updates automatically',
    shows: { in: 'form', section: 'Start-up', text: 'Check for updates automatically' },
  }),
  /** Run against the built-in simulator instead of a real Seller API (starting or leaving the demo sets it). */
  demoMode: boolean({ default: false, label: 'Demo mode', shows: { in: 'elsewhere' }, policy: false }),
  /**
   * Where this marketplace's Seller API differs from the built-in routes (design notes §2): per
   * operation its method and path, and the largest page the server gives. null = the built-in routes.
   */
  api: fileOnly<ApiSection | null>({
    default: null,
    label: 'api',
    // The largest page is the API's (main/core/api/routes.ts PAGE); settings.ts adds it to the rule.
    rule: 'must be null or an object such as {"routes": {"listNewEvents": {"path": "/seller/v1/events/new"}}, "pageSize": 50}',
  }),

  // The inbox (issue 12).
  /** An order in progress longer than this many days is flagged in the inbox; 0 = never. */
  staleInProgressDays: whole({
    ...STALE,
    default: 7,
    label: 'In-progress limit',
    unit: 'days',
    rule: `must be a whole number of days from ${STALE.min} to ${STALE.max}, or 0 never to flag an order`,
    shows: {
      in: 'form',
      section: 'Inbox',
      hint: `The inbox flags an order in progress for longer than this. 0 never flags one; otherwise ${STALE.min} to ${STALE.max} days.`,
    },
  }),
  /** Waiting orders first either way; then the longest waiting or the newest first. */
  inboxSort: choice<InboxSort>({
    default: 'longest-waiting',
    label: 'Inbox order',
    choices: [
      { value: INBOX_SORTS[0], label: 'Longest waiting first' },
      { value: INBOX_SORTS[1], label: 'Newest first' },
    ],
    shows: { in: 'form', section: 'Inbox' },
  }),

  // Marking statuses (issue 12).
  /**
   * The name written into what this laptop posts ("Provisioning started by Anna Virtanen.");
   * '' = this computer's account name (account-name.ts). No colon: it must read back whole.
   */
  actorName: checked<string>({
    default: '',
    label: 'Your name',
    rule: `must be a name of at most ${ACTOR_NAME_MAX} characters, without a colon`,
    maxLength: ACTOR_NAME_MAX,
    shows: { in: 'form-own-control', section: 'Marking statuses' },
  }),
  /** A marked status is held this long before it is sent, so it can be undone; 0 sends at once. */
  undoSeconds: whole({
    ...UNDO,
    default: 10,
    label: 'Time to undo',
    unit: 'seconds',
    rule: `must be a whole number of seconds from ${UNDO.min} to ${UNDO.max} (0 sends at once, with no undo)`,
    shows: {
      in: 'form',
      section: 'Marking statuses',
      hint: `A status is sent to the marketplace after this; until then Undo takes it back. ${UNDO.min} sends at once; at most ${UNDO.max}.`,
    },
  }),

  // Automations (issue 24).
  /**
   * This laptop runs the account's automations. Off by default: every laptop with it on runs
   * them, so a team switches it on in one place (or runs `seller-tray run` there).
   */
  automationsEnabled: boolean({
    default: false,
    label: 'Automations',
    shows: {
      in: 'form',
      section: 'Automations',
      text: 'Run the automations on this computer',
      hint: 'Each computer with this on runs every automation for each new order: switch it on in one place only (or run seller-tray run on a server). The automations are edited in Settings → Automations or the settings file; see docs/automations.md.',
    },
  }),
  /**
   * The automations: what to do when a new order arrives. From this file, Settings → Automations
   * or IT policy, never from the marketplace; they run only where automationsEnabled is on.
   */
  automations: ownChannels<AutomationSetting[]>({
    default: [],
    label: 'automations',
    changes: 'in Settings → Automations, one automation at a time',
    rule: 'must be a list of automations such as [{"name": "provision", "action": {"type": "command", "command": ["/opt/provision.sh"]}}] (docs/automations.md)',
  }),

  // Runbooks (issue 26).
  /**
   * Per product (the seller's item id): the checklist, links and Failed reasons the order page
   * offers (preload/runbooks.ts checks them). Edited in Settings → Runbooks, its own panel, which
   * saves the whole list at once (an import too); a team shares them as a file, IT may set them.
   */
  runbooks: checked<Runbook[]>({
    default: [],
    label: 'Runbooks',
    rule: `must be a list of at most ${RUNBOOK_LIMITS.runbooks} runbooks such as [{"itemId": "SS-STD", "name": "Standard", "checklist": ["Create the tenant"], "links": [{"label": "Console", "url": "https://console.example/{orderId}"}], "reasons": []}] (docs/user-guide.md, Runbooks)`,
    shows: { in: 'elsewhere' },
  }),
};

export type SettingKey = keyof typeof SETTINGS;

/** The user's settings, as the table above declares them (main/core/settings.ts stores and checks them). */
export type DeclaredSettings = {
  [K in SettingKey]: (typeof SETTINGS)[K] extends Declared<infer T> ? T : never;
};

/** The settings setSettings may change: all but the file-only ones and those with channels of their own. */
export type ChangeableKey = {
  [K in SettingKey]: (typeof SETTINGS)[K] extends FileSetting<unknown> | OwnChannelsSetting<unknown>
    ? never
    : K;
}[SettingKey];

/** Each setting's key and declaration, in the table's order. */
export const SETTING_ENTRIES = Object.entries(SETTINGS) as [SettingKey, (typeof SETTINGS)[SettingKey]][];
