// The user's settings: one zod schema, used for the file on disk and for every change that comes in
// from the UI (through IPC or the CLI), persisted as settings.json in the user data directory.
//
// Decisions:
// - Missing keys take their defaults, so a file written by an older version still loads.
// - Unknown keys in the file are dropped (not an error): a file a newer version wrote loads in an
//   older one, and the next save writes only the keys of this schema. A key that must never be here,
//   such as a client secret someone pasted in, therefore leaves the file at the next save.
// - A file that is not JSON, not a JSON object, or holds a value this schema refuses is kept aside
//   as settings.json.corrupt-<time>, the defaults are written in its place and the user is told. A
//   bad file never throws and is never silently cleared (conf's `clearInvalidConfig` stays off).
// - The client secret is not a setting: it lives in the OS keychain only. `save` writes only the
//   keys of this schema, and `parseSettingsPatch` refuses a `clientSecret` with a message saying so.
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { INBOX_SORTS } from '../../preload/inbox-sort';
import { ACTOR_NAME_MAX, actorNameProblem } from '../../preload/marked-by';
import {
  type ApiSection,
  ESCALATE_AFTER_MINUTES,
  MAX_CLIENT_ID_LENGTH,
  POLL_INTERVAL_SECONDS,
  REMINDER_AFTER_MINUTES,
  type SettingsChange,
  type Settings as SharedSettings,
  STALE_IN_PROGRESS_DAYS,
  UNDO_SECONDS,
} from '../../preload/model';
import type { SellerApiClientOptions } from './api/client';
import { OPERATIONS, type Operation, PAGE, type RouteOverrides, routePathProblem } from './api/routes';
import { checkBaseUrl } from './api/transport';
import { userDataDir } from './paths';
import type { Same } from './same-type';

export {
  ESCALATE_AFTER_MINUTES,
  POLL_INTERVAL_SECONDS,
  REMINDER_AFTER_MINUTES,
  STALE_IN_PROGRESS_DAYS,
  UNDO_SECONDS,
};

/** A number of minutes within `limits`, or `limits.off` (0) for a setting turned off. */
const minutesOrOff = (limits: { off: number; min: number; max: number }) =>
  z.int().refine((m) => m === limits.off || (m >= limits.min && m <= limits.max));

/** One schema per setting, without defaults: the patch schema is built from the same pieces. */
const fields = {
  /** The Seller API's base URL, stored in the form `checkBaseUrl` gives it; '' = not configured yet. */
  baseUrl: z.string().transform((raw, context) => {
    if (raw.trim() === '') return '';
    const checked = checkBaseUrl(raw);
    if (checked.ok) return checked.url;
    context.addIssue({ code: 'custom', message: `baseUrl is not usable: ${checked.problem}` });
    return z.NEVER;
  }),
  /** '' = not configured yet. HTTP Basic cannot carry a colon in the user id (RFC 7617 §2). */
  clientId: z
    .string()
    .trim()
    .max(MAX_CLIENT_ID_LENGTH)
    .refine((id) => !id.includes(':'), { message: 'clientId must not contain a colon (":")' })
    .refine((id) => !/\p{Cc}/u.test(id), { message: 'clientId must not contain control characters' }),
  pollIntervalSeconds: z.int().min(POLL_INTERVAL_SECONDS.min).max(POLL_INTERVAL_SECONDS.max),
  notificationsEnabled: z.boolean(),
  /** Notifications are paused until this moment; null = not paused. */
  pausedUntil: z.iso.datetime({ offset: true }).nullable(),
  /**
   * Remind the user of an order still waiting for action after this many minutes. 0 = off, so
   * "off" needs no second setting; any other value is 15 min (less would nag) to 7 days.
   */
  reminderAfterMinutes: minutesOrOff(REMINDER_AFTER_MINUTES),
  openAtLogin: z.boolean(),
  checkForUpdatesAutomatically: z.boolean(),
  /** Run against the built-in simulator instead of a real Seller API. */
  demoMode: z.boolean(),
  /**
   * Where this marketplace's Seller API differs from the built-in routes (design notes §2), set
   * in the file by whoever deploys the app: per operation its method and path, and the largest
   * page the server gives. null = the built-in routes.
   */
  api: z
    .strictObject({
      routes: z
        .record(
          z.string(),
          z.strictObject({ method: z.enum(['GET', 'POST']).optional(), path: z.string().optional() }),
        )
        .optional(),
      pageSize: z.int().min(1).max(PAGE.maxLimit).optional(),
    })
    .superRefine((api, context) => {
      for (const [operation, route] of Object.entries(api.routes ?? {})) {
        if (!OPERATIONS.includes(operation as Operation)) {
          context.addIssue({
            code: 'custom',
            message: `api.routes.${operation} is not an operation: use one of ${OPERATIONS.join(', ')}`,
          });
          continue;
        }
        const problem = route.path && routePathProblem(operation as Operation, route.path);
        if (problem) context.addIssue({ code: 'custom', message: `api.routes.${operation}.path ${problem}` });
      }
    })
    .transform((api): ApiSection => api)
    .nullable(),

  // Escalation (issue 26).
  /** A new order nobody started after this many minutes is announced again, urgent; 0 = off. */
  escalateAfterMinutes: minutesOrOff(ESCALATE_AFTER_MINUTES),

  // The inbox (issue 12).
  staleInProgressDays: z.int().min(STALE_IN_PROGRESS_DAYS.off).max(STALE_IN_PROGRESS_DAYS.max),
  inboxSort: z.enum(INBOX_SORTS),

  // Marking statuses (issue 12).
  undoSeconds: z.int().min(UNDO_SECONDS.min).max(UNDO_SECONDS.max),
  /**
   * The name written into what this laptop posts ("Provisioning started by Anna Virtanen.");
   * '' = this computer's account name (account-name.ts). No colon: it must read back whole.
   */
  actorName: z
    .string()
    .trim()
    .superRefine((name, context) => {
      const problem = actorNameProblem(name);
      if (problem) context.addIssue({ code: 'custom', message: `actorName ${problem}` });
    }),
};

type Field = keyof typeof fields;

/** The client options a settings `api` section gives: its routes and starting page size. */
export function apiOptions(api: Settings['api']): Pick<SellerApiClientOptions, 'routes' | 'pageSize'> {
  return {
    // The operations were checked when the settings were read.
    ...(api?.routes ? { routes: api.routes as RouteOverrides } : {}),
    ...(api?.pageSize ? { pageSize: api.pageSize } : {}),
  };
}

/** What each field must be, in words a user can act on: used for every refusal of that field. */
const RULES: Record<Field, string> = {
  baseUrl: 'must be the address of the Seller API, such as https://marketplace.example',
  clientId: `must be text of at most ${MAX_CLIENT_ID_LENGTH} characters`,
  pollIntervalSeconds: `must be a whole number of seconds from ${POLL_INTERVAL_SECONDS.min} to ${POLL_INTERVAL_SECONDS.max} (30 seconds to 1 hour)`,
  notificationsEnabled: 'must be true or false',
  pausedUntil: 'must be a date and time such as 2026-11-21T16:50:00Z, or null when not paused',
  reminderAfterMinutes: `must be a whole number of minutes from ${REMINDER_AFTER_MINUTES.min} to ${REMINDER_AFTER_MINUTES.max} (7 days), or 0 for no reminder`,
  openAtLogin: 'must be true or false',
  checkForUpdatesAutomatically: 'must be true or false',
  demoMode: 'must be true or false',
  api: `must be null or an object such as {"routes": {"listNewEvents": {"path": "/seller/v1/events/new"}}, "pageSize": 50}, with page sizes from 1 to ${PAGE.maxLimit}`,

  // Escalation (issue 26).
  escalateAfterMinutes: `must be a whole number of minutes from ${ESCALATE_AFTER_MINUTES.min} to ${ESCALATE_AFTER_MINUTES.max} (a day), or 0 never to announce an order again`,

  // The inbox (issue 12).
  staleInProgressDays: `must be a whole number of days from 1 to ${STALE_IN_PROGRESS_DAYS.max}, or 0 never to flag an order`,
  inboxSort: `must be one of ${INBOX_SORTS.join(', ')}`,

  // Marking statuses (issue 12).
  undoSeconds: `must be a whole number of seconds from ${UNDO_SECONDS.min} to ${UNDO_SECONDS.max} (0 sends at once, with no undo)`,
  actorName: `must be a name of at most ${ACTOR_NAME_MAX} characters, without a colon`,
};

/**
 * Each setting as the window's form labels it: messages for the window and the CLI name the
 * field so (the settings file's own messages name its keys). The file-only `api` keeps its key.
 */
const LABELS: Record<Field, string> = {
  baseUrl: 'Base URL',
  clientId: 'Client id',
  pollIntervalSeconds: 'Check interval',
  notificationsEnabled: 'Notifications',
  pausedUntil: 'Pause',
  reminderAfterMinutes: 'Reminder delay',
  openAtLogin: 'Open at login',
  checkForUpdatesAutomatically: 'Check for updates automatically',
  demoMode: 'Demo mode',
  api: 'api',

  // Escalation (issue 26).
  escalateAfterMinutes: 'Urgent after',

  // The inbox (issue 12).
  staleInProgressDays: 'In-progress limit',
  inboxSort: 'Inbox order',

  // Marking statuses (issue 12).
  undoSeconds: 'Time to undo',
  actorName: 'Your name',
};

/** The settings as stored: every key present (defaults fill the gaps), unknown keys dropped. */
export const Settings = z.object({
  baseUrl: fields.baseUrl.default(''),
  clientId: fields.clientId.default(''),
  pollIntervalSeconds: fields.pollIntervalSeconds.default(POLL_INTERVAL_SECONDS.default),
  notificationsEnabled: fields.notificationsEnabled.default(true),
  pausedUntil: fields.pausedUntil.default(null),
  reminderAfterMinutes: fields.reminderAfterMinutes.default(REMINDER_AFTER_MINUTES.default),
  openAtLogin: fields.openAtLogin.default(false),
  checkForUpdatesAutomatically: fields.checkForUpdatesAutomatically.default(true),
  demoMode: fields.demoMode.default(false),
  api: fields.api.default(null),

  // Escalation (issue 26).
  escalateAfterMinutes: fields.escalateAfterMinutes.default(ESCALATE_AFTER_MINUTES.default),

  // The inbox (issue 12).
  staleInProgressDays: fields.staleInProgressDays.default(STALE_IN_PROGRESS_DAYS.default),
  inboxSort: fields.inboxSort.default('longest-waiting'),

  // Marking statuses (issue 12).
  undoSeconds: fields.undoSeconds.default(UNDO_SECONDS.default),
  actorName: fields.actorName.default(''),
});
export type Settings = SharedSettings;
// Fails to compile when the stored form reads other than preload/model.ts declares.
void (true satisfies Same<z.output<typeof Settings>, SharedSettings>);

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze(Settings.parse({}));

/**
 * A change from the UI (the bridge's setSettings, the CLI): only the keys it names, each checked;
 * unknown keys are refused, and so is `api`, which only the settings file sets (whoever deploys
 * the app): no page in the window can send the client's calls down other paths.
 */
const { api: _fileOnly, ...changeable } = fields;
const SettingsPatch = z.strictObject(changeable).partial();
export type SettingsPatch = SettingsChange;

/**
 * One refusal. `field` is the setting's key (or the unknown key), null when the input is no
 * object; `message` names the field as the form labels it.
 */
export interface SettingsFieldError {
  field: string | null;
  message: string;
}

export type SettingsPatchResult =
  | { ok: true; patch: SettingsPatch }
  | { ok: false; errors: SettingsFieldError[]; message: string };

/**
 * Checks a partial update from the IPC/UI boundary. Never throws: bad input comes back as errors,
 * each naming its field. Keys given as `undefined` are left out of the patch, so spreading it over
 * the current settings never blanks a setting.
 */
export function parseSettingsPatch(input: unknown): SettingsPatchResult {
  const parsed = SettingsPatch.safeParse(input);
  if (!parsed.success) {
    const errors = describeIssues(parsed.error.issues, (field) => LABELS[field]);
    return { ok: false, errors, message: errors.map((e) => e.message).join('; ') };
  }
  const patch = Object.fromEntries(
    Object.entries(parsed.data).filter(([, value]) => value !== undefined),
  ) as SettingsPatch;
  return { ok: true, patch };
}

/** The field's own key: how the settings file's messages name it. */
const byKey = (field: Field): string => field;

/** Each issue as a message naming its field by `name` (its label or its key), once per message. */
function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  name: (field: Field) => string = byKey,
): SettingsFieldError[] {
  const errors: SettingsFieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ field: key, message: unknownKeyMessage(key) });
      continue;
    }
    const field = issue.path[0];
    if (typeof field !== 'string' || !(field in RULES)) {
      errors.push({ field: null, message: 'the settings must be an object of setting names and values' });
      continue;
    }
    // Our own refinements already say precisely what is wrong (they start with the key); the
    // rest get the field's rule.
    const message =
      issue.code === 'custom' && issue.message.startsWith(field)
        ? `${name(field as Field)}${issue.message.slice(field.length)}`
        : `${name(field as Field)} ${RULES[field as Field]}`;
    if (!errors.some((e) => e.field === field && e.message === message)) errors.push({ field, message });
  }
  return errors;
}

function unknownKeyMessage(key: string): string {
  if (key === 'api') return 'api is set in the settings file only, by whoever deploys Seller Tray';
  if (/secret|password|token/i.test(key)) {
    return `${key} is not a setting: the client secret is kept in the system keychain, never with the settings`;
  }
  return `${key} is not a setting`;
}

// ---------------------------------------------------------------------------------------------
// Persistence

/** What loading gives: always usable settings, and a sentence for the user when the file was bad. */
export interface SettingsLoad {
  settings: Settings;
  problem?: string;
}

/** The port the core uses; the app and the CLI each provide one (both over conf). */
export interface SettingsStore {
  /** Never throws: a bad or unreadable file gives the defaults and a `problem`. */
  load(): SettingsLoad;
  /** Writes atomically. Throws on an I/O failure (disk full, no permission), which the caller reports. */
  save(settings: Settings): void;
}

/** The part of a conf (or electron-store, which extends conf) instance this store uses. */
export interface KeyValueFile {
  readonly path: string;
  store: Record<string, unknown>;
}

/**
 * Options for opening the file, valid for conf as they are. electron-store takes the same options
 * except that `configName` is called `name`.
 */
export interface KeyValueFileOptions {
  cwd: string;
  configName: string;
  fileExtension: string;
  clearInvalidConfig: false;
  /** Readable by the user only: the file names the marketplace and client id. */
  configFileMode: 0o600;
  deserialize: (text: string) => Record<string, unknown>;
}

export interface ConfSettingsStoreOptions {
  /** The directory of settings.json; default `userDataDir()`, the one the desktop app uses. */
  cwd?: string;
  /** For the timestamp of a file kept aside. */
  now?: () => Date;
  /** Opens the file; default conf. The app passes electron-store here. */
  open?: (options: KeyValueFileOptions) => KeyValueFile;
}

export const SETTINGS_FILE_NAME = 'settings.json';

/**
 * Settings in `<cwd>/settings.json` through conf. conf writes with `atomically` (a temporary file in
 * the same directory, fsynced, then renamed over the old one), so a crash mid-save leaves the old
 * settings or the new, never half a file. conf's own schema and defaults are not used: zod is the one
 * schema, and conf stores exactly what `save` gives it (plus conf's own bookkeeping key, if any).
 */
export class ConfSettingsStore implements SettingsStore {
  readonly #cwd: string;
  readonly #now: () => Date;
  readonly #open: (options: KeyValueFileOptions) => KeyValueFile;
  #file: KeyValueFile | undefined;

  constructor(options: ConfSettingsStoreOptions = {}) {
    this.#cwd = options.cwd ?? userDataDir();
    this.#now = options.now ?? (() => new Date());
    this.#open = options.open ?? ((o) => new Conf<Record<string, unknown>>(o));
  }

  get path(): string {
    return path.join(this.#cwd, SETTINGS_FILE_NAME);
  }

  load(): SettingsLoad {
    let raw: Record<string, unknown>;
    try {
      // conf reads the file when it opens it, so a file that is not JSON fails right here.
      this.#file = this.#openFile();
      raw = this.#file.store;
    } catch (error) {
      this.#file = undefined;
      if (!isUnparseable(error)) {
        const code = (error as NodeJS.ErrnoException).code;
        return {
          settings: { ...DEFAULT_SETTINGS },
          problem: `Your settings file ${this.path} could not be read${code ? ` (${code})` : ''}; the defaults are in use until it can be.`,
        };
      }
      return this.#replaceWithDefaults('was unreadable');
    }
    const parsed = Settings.safeParse(raw);
    if (parsed.success) return { settings: parsed.data };
    const reasons = describeIssues(parsed.error.issues)
      .map((e) => e.message)
      .join('; ');
    return this.#replaceWithDefaults(`had settings that cannot be used (${reasons})`);
  }

  save(settings: Settings): void {
    // Parsed again so only the keys of the schema are written: whatever else a caller's object
    // carries (a client secret above all) never reaches the file. Invalid values are a bug upstream
    // (the UI boundary checks with parseSettingsPatch) and throw here rather than being written.
    const clean = Settings.safeParse(settings);
    if (!clean.success) {
      const reasons = describeIssues(clean.error.issues).map((e) => e.message);
      throw new Error(`Settings not saved: ${reasons.join('; ')}`);
    }
    if (this.#file === undefined) this.load();
    this.#file ??= this.#openFile();
    this.#file.store = clean.data;
  }

  #openFile(): KeyValueFile {
    return this.#open({
      cwd: this.#cwd,
      configName: 'settings',
      fileExtension: 'json',
      clearInvalidConfig: false,
      configFileMode: 0o600,
      deserialize: deserializeObject,
    });
  }

  /** Keeps the bad file aside, writes the defaults, and says so. Never throws. */
  #replaceWithDefaults(what: string): SettingsLoad {
    const settings = { ...DEFAULT_SETTINGS };
    let aside: string;
    try {
      aside = this.#moveAside();
    } catch (error) {
      // Leave the file as it is: overwriting it would lose what the user had.
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return {
        settings,
        problem: `Your settings file ${this.path} ${what}, and it could not be kept aside (${code}); it was left as it is and the defaults are in use.`,
      };
    }
    let written = true;
    try {
      this.#file = this.#openFile();
      this.#file.store = settings;
    } catch {
      this.#file = undefined;
      written = false;
    }
    const rest = written ? 'the defaults are in use' : 'the defaults are in use but could not be saved';
    return {
      settings,
      problem: `Your settings file ${what}; it was kept as ${aside} and ${rest}.`,
    };
  }

  #moveAside(): string {
    const stamp = this.#now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replaceAll(':', '-'); // Windows file names cannot hold a colon
    const base = `${this.path}.corrupt-${stamp}`;
    // A rename replaces an existing file: a second bad file within the same second must not.
    let aside = base;
    for (let n = 2; existsSync(aside); n++) aside = `${base}-${n}`;
    renameSync(this.path, aside);
    return aside;
  }
}

/** JSON, and a JSON object: conf reads `[]` or `"x"` as an empty store, which would hide the damage. */
function deserializeObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    // JSON.parse quotes the text around the failure; the file's content has no place in a message.
    throw new SyntaxError('The settings file is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SyntaxError('The settings file does not hold a JSON object.');
  }
  return value as Record<string, unknown>;
}

function isUnparseable(error: unknown): boolean {
  return error instanceof Error && error.name === 'SyntaxError';
}
