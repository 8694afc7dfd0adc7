// The user's settings: one zod schema, used for the file on disk and for every change that comes in
// from the UI (through IPC or the CLI), persisted as settings.json in the user data directory.
//
// Decisions:
// - Missing keys take their defaults, so a file written by an older version still loads.
// - Unknown keys in the file are dropped (not an error): a file a newer version wrote loads in an
//   older one, and the next save writes only the keys of this schema. A key that must never be here,
//   such as a client secret someone pasted in, therefore leaves the file at the next save.
// - A tolerant reader: a list's item (an account, a runbook, an automation) or a setting's value
//   this schema refuses is left out (a setting taking its default), told, and copied to
//   settings.json.left-out-<hash>; one odd value never costs the rest, the accounts above all.
// - A file that is not JSON or not a JSON object is kept aside as settings.json.corrupt-<time> by
//   the app, the defaults written in its place and the user told; the CLI leaves it as it is and
//   its commands stop (unusableFile). A bad file never throws and is never silently cleared
//   (conf's `clearInvalidConfig` stays off).
// - The client secret is not a setting: it lives in the OS keychain only. `save` writes only the
//   keys of this schema, and `parseSettingsPatch` refuses a `clientSecret` with a message saying so.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { LIMITS } from '../../preload/contract';
import { actorNameProblem } from '../../preload/marked-by';
import { capped, hasControls, plainText } from '../../preload/marketplace-text';
import type { SettingsChange, Settings as SharedSettings } from '../../preload/model';
import { checkRunbooks, type Runbook } from '../../preload/runbooks';
import {
  type AccountEntry,
  type ApiSection,
  type ChangeableKey,
  SETTING_ENTRIES,
  SETTINGS,
  type SettingKey,
  type WholeSetting,
} from '../../preload/settings-declaration';
import { accountRef } from './account/account-ref';
import { OPERATIONS, type Operation, PAGE, routePathProblem } from './api/routes';
import { addressShown, checkBaseUrl, withoutCredentials } from './api/transport';
import { AutomationList } from './automation/automation-settings';
import { removeLeftoverTemporaries, writeFileDurably } from './durable-file';
import type { Log } from './log';
import { userDataDir } from './paths';
import type { Same } from './same-type';

/** Where a deployment's routes and page size differ from the built-in ones (the file's `api`). */
const ApiSectionSchema = z
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
  .transform((api): ApiSection => api);

/**
 * One account of the list: a label of its own, a usable base URL and client id, and routes of its
 * own where its marketplace differs from the settings' `api` (file-only, as that is).
 */
const AccountEntrySchema = z.strictObject({
  label: z.string().transform((raw, context) => {
    // Read as plain text: an invisible character a file's label holds (a hand edit, an earlier
    // version took them) goes, rather than the account; a typed one is refused (account-list.ts).
    const label = plainText(raw);
    const problem = accountLabelProblem(label);
    if (!problem) return label;
    context.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }),
  baseUrl: z.string().transform((raw, context) => {
    const result = checkBaseUrl(raw);
    if (result.ok) return result.url;
    context.addIssue({ code: 'custom', message: result.problem });
    return z.NEVER;
  }),
  clientId: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.clientId)
    .refine((id) => !/[:\p{Cc}]/u.test(id), {
      message: 'it must not contain a colon (":") or control characters',
    }),
  api: ApiSectionSchema.optional(),
});

/** Why an account's label (trimmed) cannot be used, in words for the one who typed it; undefined if it can. */
export function accountLabelProblem(label: string): string | undefined {
  if (label === '') return 'the label is empty';
  if (label.length > LIMITS.accountLabel)
    return `the label has ${label.length} characters, more than ${LIMITS.accountLabel}`;
  // Shown as the app's own words (tray, header, notifications): nothing that turns them around or breaks a line.
  if (hasControls(label))
    return 'the label holds an invisible control character (a line break, a right-to-left override)';
  return undefined;
}

/**
 * A label as compared with another's, as plain text: neither case, Unicode form (an "é" typed as
 * one character or as "e" and an accent, as macOS gives file names), an invisible character nor a
 * zero-width (non-)joiner (which plain text keeps only where a script or emoji needs one, and
 * shows little or nothing) tells two apart. Accounts are found by their label through it too.
 */
export const labelKey = (label: string): string =>
  plainText(label)
    .normalize('NFC')
    .replace(/[\u200c\u200d]/g, '')
    .toLowerCase();

/** An account of a list after `before`, or why not: its words follow "account N" in a message. */
function readAccount(
  entry: unknown,
  before: readonly AccountEntry[],
): { ok: true; account: AccountEntry } | { ok: false; problem: string } {
  const parsed = AccountEntrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue?.path.join('.') || 'entry';
    const why = issue?.code === 'custom' ? `: ${issue.message}` : '';
    return { ok: false, problem: `'s ${where} is not usable${why}` };
  }
  const same = before.find(
    (a) =>
      labelKey(a.label) === labelKey(parsed.data.label) || accountRef(a).id === accountRef(parsed.data).id,
  );
  if (same) return { ok: false, problem: ` repeats "${same.label}": each account and each label once` };
  return { ok: true, account: parsed.data };
}

/**
 * A file's account whose label only repeats another's (two an earlier version told apart, by a
 * double space or an invisible mark, read as the same plain text): kept under the label with its
 * client id after it, so an upgrade never drops an account over its label. The suffix names the
 * account itself, not its place: a policy's list is read again at every start and never saved,
 * so removing one account must not move another's label. A number only if that label is taken
 * too (one client at two marketplaces).
 */
function relabelled(
  entry: unknown,
  before: readonly AccountEntry[],
  fileLabels: ReadonlySet<string>,
): AccountEntry | undefined {
  const parsed = AccountEntrySchema.safeParse(entry);
  if (!parsed.success || before.some((a) => accountRef(a).id === accountRef(parsed.data).id))
    return undefined;
  const client = capped(plainText(parsed.data.clientId), RELABEL_ID_MAX);
  const numbers = Array.from({ length: fileLabels.size + before.length }, (_, i) => ` (${i + 2})`);
  for (const suffix of [` (${client})`, ...numbers]) {
    // Cut between characters, never inside one (an emoji is two of the units a label's length counts).
    let kept = '';
    for (const character of parsed.data.label) {
      if (kept.length + character.length > LIMITS.accountLabel - suffix.length) break;
      kept += character;
    }
    const label = `${kept.trimEnd()}${suffix}`;
    if (fileLabels.has(labelKey(label))) continue;
    const read = readAccount({ ...(entry as object), label }, before);
    if (read.ok) return read.account;
  }
  return undefined;
}
/** How much of a client id a relabel shows (a longer one cut with an ellipsis): room is left for the label. */
const RELABEL_ID_MAX = 10;

/**
 * What a file's account is, for a person to find it again: its label, client and marketplace,
 * the marketplace by its origin (an address a file holds may carry credentials, why it was refused).
 */
function accountIdentity(entry: unknown): string {
  const { label, clientId, baseUrl } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
    string,
    unknown
  >;
  const text = (value: unknown) => (typeof value === 'string' ? plainText(value) : '?');
  return ` ("${text(label)}", client ${text(clientId)} at ${addressShown(baseUrl)})`;
}

/**
 * The settings whose checks say more than their declaration's type (preload/settings-declaration.ts):
 * each a schema without its default. The rest are derived from their declaration (`declared`).
 */
const checked = {
  baseUrl: z.string().transform((raw, context) => {
    if (raw.trim() === '') return '';
    const result = checkBaseUrl(raw);
    if (result.ok) return result.url;
    context.addIssue({ code: 'custom', message: `baseUrl is not usable: ${result.problem}` });
    return z.NEVER;
  }),
  clientId: z
    .string()
    .trim()
    .max(LIMITS.clientId)
    .refine((id) => !id.includes(':'), { message: 'clientId must not contain a colon (":")' })
    .refine((id) => !/\p{Cc}/u.test(id), { message: 'clientId must not contain control characters' }),
  pausedUntil: z.iso.datetime({ offset: true }).nullable(),
  accountPauses: z.record(z.string().min(1).max(LIMITS.accountId), z.iso.datetime({ offset: true })),
  api: ApiSectionSchema.nullable(),
  actorName: z
    .string()
    .trim()
    .superRefine((name, context) => {
      const problem = actorNameProblem(name);
      if (problem) context.addIssue({ code: 'custom', message: `actorName ${problem}` });
    }),
  automations: AutomationList,
  // Checked where the window checks an import (preload/runbooks.ts): one set of rules and words.
  runbooks: z.unknown().transform((value, context): Runbook[] => {
    const checked = checkRunbooks(value);
    if (checked.ok) return checked.runbooks;
    context.addIssue({ code: 'custom', message: `runbooks: ${checked.problems.join('; ')}` });
    return z.NEVER;
  }),
  accounts: z.array(z.unknown()).transform((entries, context): AccountEntry[] => {
    const accounts: AccountEntry[] = [];
    for (const [index, entry] of entries.entries()) {
      const read = readAccount(entry, accounts);
      if (!read.ok) {
        context.addIssue({ code: 'custom', message: `accounts: account ${index + 1}${read.problem}` });
        return z.NEVER;
      }
      accounts.push(read.account);
    }
    return accounts;
  }),
} satisfies Partial<Record<SettingKey, z.ZodType>>;

type CheckedKey = keyof typeof checked;
type DeclaredKey = Exclude<SettingKey, CheckedKey>;

/** A whole number within its declared limits, or its "off" value. */
function wholeSchema(setting: WholeSetting): z.ZodType<number> {
  const { off, min, max } = setting;
  return z.int().refine((n) => n === off || (n >= min && n <= max));
}

/** The schema a declaration's type gives. */
function schemaOf(key: DeclaredKey): z.ZodType<SharedSettings[DeclaredKey]> {
  const setting = SETTINGS[key];
  switch (setting.type) {
    case 'whole':
      return wholeSchema(setting);
    case 'boolean':
      return z.boolean();
    case 'choice':
      return z.enum(setting.choices.map((c) => c.value) as [SharedSettings['inboxSort']]);
  }
}

/** One schema per setting, without defaults: the stored form and the patch are built from the same pieces. */
const fields = Object.fromEntries(
  SETTING_ENTRIES.map(([key]) => [
    key,
    key in checked ? checked[key as CheckedKey] : schemaOf(key as DeclaredKey),
  ]),
) as { [K in CheckedKey]: (typeof checked)[K] } & { [K in DeclaredKey]: z.ZodType<SharedSettings[K]> };

type Field = SettingKey;

/** What each field must be, in words a user can act on: used for every refusal of that field. */
function rule(field: Field): string {
  const { rule } = SETTINGS[field];
  return field === 'api' ? `${rule}, with page sizes from 1 to ${PAGE.maxLimit}` : rule;
}

/** The settings as stored: every key present (defaults fill the gaps), unknown keys dropped. */
export const Settings = z.object(
  Object.fromEntries(
    SETTING_ENTRIES.map(([key, setting]) => [key, (fields[key] as z.ZodType).default(setting.default)]),
  ) as { [K in Field]: z.ZodDefault<z.ZodType<SharedSettings[K]>> },
);
export type Settings = SharedSettings;
// Fails to compile when the stored form reads other than preload/settings-declaration.ts declares.
void (true satisfies Same<z.output<typeof Settings>, SharedSettings>);

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze(Settings.parse({}));

/**
 * A change from the UI (the bridge's setSettings, the CLI): only the keys it names, each checked;
 * unknown keys are refused, and so are the file-only ones (`api`), which only the settings file
 * sets (whoever deploys the app): no page in the window can send the client's calls down other paths.
 * The account list changes through its own steps (account-list.ts: secrets checked, data cleaned up).
 */
const SettingsPatch = z
  .strictObject(
    Object.fromEntries(
      SETTING_ENTRIES.filter(([, { shows }]) => shows.in !== 'file' && shows.in !== 'own-channels').map(
        ([key]) => [key, fields[key]],
      ),
    ) as { [K in ChangeableKey]: (typeof fields)[K] },
  )
  .partial();
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
    const errors = describeIssues(parsed.error.issues, (field) => SETTINGS[field].label);
    return { ok: false, errors, message: errors.map((e) => e.message).join('; ') };
  }
  const patch = Object.fromEntries(
    Object.entries(parsed.data).filter(([, value]) => value !== undefined),
  ) as SettingsPatch;
  return { ok: true, patch };
}

/**
 * One setting's value checked as the settings file checks it (its declaration and its own checks):
 * the policies (main/core/policy/) hold IT's values to the same rules as the user's.
 */
export function checkSettingValue(
  key: SettingKey,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const parsed = (fields[key] as z.ZodType).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [error] = describeIssues(
    parsed.error.issues.map((issue) => ({ ...issue, path: [key, ...issue.path] })),
  );
  return { ok: false, message: error?.message ?? `${key} ${rule(key)}` };
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
    if (issue.code === 'unrecognized_keys' && issue.path[0] === 'automations') {
      errors.push({
        field: 'automations',
        message: `${issuePath(issue.path)}: ${issue.keys.join(', ')} ${CHAT_URL_HINT}`,
      });
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ field: key, message: unknownKeyMessage(key) });
      continue;
    }
    const field = issue.path[0];
    if (typeof field !== 'string' || !(field in SETTINGS)) {
      errors.push({ field: null, message: 'the settings must be an object of setting names and values' });
      continue;
    }
    // Our own refinements already say precisely what is wrong (they start with the key); the
    // rest get the field's rule.
    // Inside the automations' list, where and what (a rule for the whole list says too little).
    const inList = field === 'automations' && issue.path.length > 1;
    const message = inList
      ? `${issuePath(issue.path)}: ${issue.message}`
      : issue.code === 'custom' && issue.message.startsWith(field)
        ? `${name(field as Field)}${issue.message.slice(field.length)}`
        : `${name(field as Field)} ${rule(field as Field)}`;
    if (!errors.some((e) => e.field === field && e.message === message)) errors.push({ field, message });
  }
  return errors;
}

/** Where in a setting an issue is, as a reader of the file finds it: automations[0].action.url. */
function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

const CHAT_URL_HINT =
  'is not known here (a Slack or Teams address, and a signing secret, are kept in the keychain: seller-tray automations secret NAME)';

function unknownKeyMessage(key: string): string {
  // Own keys only: "toString" is no setting.
  const setting = Object.hasOwn(SETTINGS, key) ? SETTINGS[key as SettingKey] : undefined;
  if (setting?.shows.in === 'file')
    return `${key} is set in the settings file only, by whoever deploys Seller Tray`;
  if (setting?.shows.in === 'own-channels' && 'changes' in setting) return `${key} change ${setting.changes}`;
  if (/secret|password|token/i.test(key)) {
    return `${key} is not a setting: the client secret is kept in the system keychain, never with the settings`;
  }
  return `${key} is not a setting`;
}

/** An account list as the settings check it (each account and each label once), refused in words. */
export function checkAccounts(
  accounts: unknown,
): { ok: true; accounts: AccountEntry[] } | { ok: false; message: string } {
  const parsed = z.object({ accounts: fields.accounts }).safeParse({ accounts });
  if (parsed.success) return { ok: true, accounts: parsed.data.accounts };
  const errors = describeIssues(parsed.error.issues, (field) => SETTINGS[field].label);
  return { ok: false, message: errors.map((e) => e.message).join('; ') };
}

// ---------------------------------------------------------------------------------------------
// Accounts: the list is the truth; `baseUrl` and `clientId` name its first account (the window's,
// and the one Seller Tray 0.x, which knew one account, reads from the file).

/**
 * An account's label when none was given: the marketplace's host name ("Demo" for the demo),
 * numbered when another account has it already (two clients at one marketplace).
 */
export function defaultAccountLabel(baseUrl: string, demo = false, taken: readonly string[] = []): string {
  const checked = checkBaseUrl(baseUrl);
  const base = demo ? 'Demo' : checked.ok ? new URL(checked.url).hostname : 'Account';
  const used = new Set(taken.map(labelKey));
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : ` ${n}`;
    const label = `${base.slice(0, LIMITS.accountLabel - suffix.length)}${suffix}`;
    if (!used.has(labelKey(label))) return label;
  }
}

/**
 * The settings after a change, the list and `baseUrl`/`clientId` agreeing again: a change of
 * `baseUrl` or `clientId` (the window's form, `login`) replaces the first account (or adds it;
 * both '' remove it, as leaving the demo does); otherwise the list wins and they name its first.
 */
export function reconcileAccounts(before: Settings, after: Settings): Settings {
  return withListedPauses(listAgreeing(before, after));
}

/**
 * Own pauses kept for listed accounts only: one that leaves however it leaves (removed, the demo
 * left, the window's marketplace changed) is not found paused when it comes back.
 */
function withListedPauses(settings: Settings): Settings {
  const listed = new Set(
    settings.accounts.map(
      (entry, i) => accountRef({ ...entry, demo: settings.demoMode && i === 0 }).id as string,
    ),
  );
  const pauses = Object.entries(settings.accountPauses);
  const kept = pauses.filter(([id]) => listed.has(id));
  return kept.length === pauses.length ? settings : { ...settings, accountPauses: Object.fromEntries(kept) };
}

function listAgreeing(before: Settings, after: Settings): Settings {
  const head = after.accounts[0];
  const agree = head
    ? head.baseUrl === after.baseUrl && head.clientId === after.clientId
    : !after.baseUrl && !after.clientId;
  if (agree) return after;
  const windowChanged = after.baseUrl !== before.baseUrl || after.clientId !== before.clientId;
  let accounts = after.accounts;
  if (windowChanged) {
    const [first, ...rest] = accounts;
    const replaced =
      first?.baseUrl === before.baseUrl && first.clientId === before.clientId ? first : undefined;
    const others = replaced || !first ? rest : accounts;
    // A label the user chose stays with the first account; one derived from the old address does not.
    const chosen = replaced && replaced.label !== defaultAccountLabel(replaced.baseUrl, before.demoMode);
    const taken = others.map((a) => a.label);
    accounts =
      after.baseUrl && after.clientId
        ? [
            {
              label: chosen ? replaced.label : defaultAccountLabel(after.baseUrl, after.demoMode, taken),
              baseUrl: after.baseUrl,
              clientId: after.clientId,
            },
            ...others,
          ]
        : others;
  }
  const first = accounts[0];
  return { ...after, accounts, baseUrl: first?.baseUrl ?? '', clientId: first?.clientId ?? '' };
}

/** The file as this version reads it: a 0.x file (no account list) has its one account listed. */
function migrated(raw: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(raw.accounts)) {
    const first = raw.accounts[0] as Partial<AccountEntry> | undefined;
    return { ...raw, baseUrl: first?.baseUrl ?? '', clientId: first?.clientId ?? '' };
  }
  const { baseUrl, clientId } = raw;
  const account =
    typeof baseUrl === 'string' && baseUrl && typeof clientId === 'string' && clientId
      ? [{ label: defaultAccountLabel(baseUrl, raw.demoMode === true), baseUrl, clientId }]
      : [];
  return { ...raw, accounts: account };
}

/**
 * An account list read tolerantly, as the settings file and the organization's policies read it:
 * each account and each label once, one odd account never costing the others. An account
 * repeating only another's label (two told apart by case, spaces or an invisible character,
 * which read as the same plain text) is kept under its label with its client id after it; one
 * that cannot be used, or repeats another's client at the same marketplace, is left out. Each is
 * told, naming the account ("accounts: account 2 (…) repeats "EU" …: kept as "eu (eu-2)"").
 */
export function readAccountList(list: readonly unknown[]): {
  accounts: AccountEntry[];
  /** One message per account kept under another label (in force). */
  relabelled: string[];
  /** The accounts left out, as given, each with its message (not in force). */
  leftOut: { entry: unknown; problem: string }[];
} {
  const whole = fields.accounts.safeParse(list);
  if (whole.success) return { accounts: whole.data, relabelled: [], leftOut: [] };
  const accounts: AccountEntry[] = [];
  const relabelledNotes: string[] = [];
  const leftOut: { entry: unknown; problem: string }[] = [];
  const givenLabels = new Set(
    list.flatMap((entry) => {
      const label = (entry as { label?: unknown } | null)?.label;
      return typeof label === 'string' ? [labelKey(label)] : [];
    }),
  );
  for (const [index, entry] of list.entries()) {
    const read = readAccount(entry, accounts);
    if (read.ok) {
      accounts.push(read.account);
      continue;
    }
    const problem = `accounts: account ${index + 1}${accountIdentity(entry)}${read.problem}`;
    const account = relabelled(entry, accounts, givenLabels);
    if (account) {
      accounts.push(account);
      relabelledNotes.push(`${problem}: kept as "${account.label}"`);
    } else leftOut.push({ entry, problem });
  }
  return { accounts, relabelled: relabelledNotes, leftOut };
}

/**
 * The file's accounts, runbooks and automations without the items that cannot be used (a newer
 * version's key or longer label, a hand edit), each told: one bad item must not cost the whole file.
 * An item is kept when the list so far stays usable, so a repeat or one past the limit goes too;
 * an account repeating only another's label is kept relabelled. An account left out keeps its
 * data folder and keychain secret: added again (`accounts add`), it carries on there.
 * Changes from the window, bridge or CLI (parseSettingsPatch) still refuse a bad list whole.
 */
/** The settings that are lists of items, each item read on its own (withoutUnusableItems). */
const LISTS: readonly string[] = ['accounts', 'runbooks', 'automations'];

function withoutUnusableItems(raw: Record<string, unknown>): {
  usable: Record<string, unknown>;
  dropped: string[];
  /** The items left out, by list, as the file held them. */
  leftOut: Record<string, unknown[]>;
} {
  const usable = { ...raw };
  const dropped: string[] = [];
  const leftOut: Record<string, unknown[]> = {};
  const leave = (key: string, item: unknown) => {
    leftOut[key] = [...(leftOut[key] ?? []), item];
  };
  if (Array.isArray(raw.accounts)) {
    const read = readAccountList(raw.accounts);
    usable.accounts = read.accounts;
    dropped.push(...read.relabelled);
    for (const { entry, problem } of read.leftOut) {
      dropped.push(problem);
      leave('accounts', entry);
    }
  }
  for (const key of ['runbooks', 'automations'] as const) {
    const items = raw[key];
    const schema: z.ZodType = fields[key];
    const whole = Array.isArray(items) ? schema.safeParse(items) : undefined;
    if (!Array.isArray(items) || whole === undefined || whole.success) continue;
    const kept: unknown[] = [];
    for (const item of items) {
      if (schema.safeParse([...kept, item]).success) kept.push(item);
      else leave(key, item);
    }
    usable[key] = kept;
    const issues = whole.error.issues.map((issue) => ({ ...issue, path: [key, ...issue.path] }));
    dropped.push(...describeIssues(issues).map((e) => e.message));
  }
  return { usable, dropped, leftOut };
}

/**
 * The settings a file holds, read as a tolerant reader: an unusable item of a list is left out
 * (withoutUnusableItems), and a setting whose value the schema refuses is left out too, taking its
 * default, so one odd value never costs the others (the accounts above all). Fails only where
 * no setting can be named as the cause (the file's shape), and then the file is unusable whole.
 */
function readSettings(raw: Record<string, unknown>): {
  parsed: z.ZodSafeParseResult<Settings>;
  dropped: string[];
  /** What was left out as the file held it: a list's items by list, a setting's value by its name. */
  leftOut: Record<string, unknown>;
} {
  const { usable, dropped, leftOut: leftOutItems } = withoutUnusableItems(raw);
  const leftOut: Record<string, unknown> = { ...leftOutItems };
  // An account list that is no list (one account written as an object) is refused as a setting
  // is, before 0.x's reading (migrated) takes the account kept at the top for it instead.
  if (usable.accounts !== undefined && !Array.isArray(usable.accounts)) {
    dropped.push(`accounts ${rule('accounts')}`);
    leftOut.accounts = usable.accounts;
    delete usable.accounts;
  }
  // After the accounts are read: the window's account is the first one kept.
  const candidate = migrated(usable);
  for (;;) {
    const parsed = Settings.safeParse(candidate);
    if (parsed.success) return { parsed, dropped, leftOut };
    const refused = new Set(parsed.error.issues.map((issue) => issue.path[0]));
    const named = [...refused].every(
      (key): key is string => typeof key === 'string' && Object.hasOwn(SETTINGS, key) && key in candidate,
    );
    if (!named) return { parsed, dropped, leftOut };
    dropped.push(...describeIssues(parsed.error.issues).map((e) => e.message));
    for (const key of refused as Set<string>) {
      leftOut[key] = candidate[key];
      delete candidate[key];
    }
    // A 0.x file's account refused (migrated): the half of it not refused goes with it, as both
    // name the first account, which the left-out copy holds.
    if (refused.has('accounts')) {
      delete candidate.baseUrl;
      delete candidate.clientId;
    }
  }
}

/** `value` without what may be a secret: keys named as one, credentials in an address. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !/secret|token|password|credential/i.test(key))
        .map(([key, item]) => [key, withoutSecrets(item)]),
    );
  return typeof value === 'string' ? withoutCredentials(value) : value;
}

/** The file's version: 2 has the account list (0.x's files, version 1, have none). */
export const SETTINGS_VERSION = 2;

// ---------------------------------------------------------------------------------------------
// Persistence

/** What loading gives: always usable settings, and a sentence for the user when the file was bad. */
export interface SettingsLoad {
  settings: Settings;
  problem?: string;
  /**
   * The file is there but cannot be used, and was left as it is (a store that leaves such a file:
   * the CLI's); the settings are the defaults, which must not be acted on as the user's.
   */
  unusable?: true;
}

/** The port the core uses; the app and the CLI each provide one (both over conf). */
export interface SettingsStore {
  /** Never throws: a bad or unreadable file gives the defaults and a `problem`. */
  load(): SettingsLoad;
  /**
   * Writes atomically, the account list and `baseUrl`/`clientId` made to agree (reconcileAccounts,
   * which a caller keeping the settings applies too). Throws on an I/O failure (disk full, no
   * permission), which the caller reports.
   */
  save(settings: Settings): void;
  /**
   * The file as it is now, read again after another process (the CLI, an editor) changed it:
   * `settings` undefined while it cannot be used, and then left as it is (no repair under an
   * editor's hands).
   */
  reread?(): SettingsReread;
}

/**
 * What a re-read gives: the settings, undefined while the file cannot be used; and the sentence
 * the load would give for what it left out or where it broke, only when it differs from the last
 * one told (by the load or a re-read), so a process following the file tells each change once.
 */
export interface SettingsReread {
  settings: Settings | undefined;
  problem?: string;
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
  /**
   * What is done with a file that cannot be used at all (not JSON, not an object, unreadable in its
   * shape): the app keeps it aside and starts from the defaults, telling the user in its window
   * (default); the CLI leaves it as it is ('leave'), and its commands stop, saying where it broke:
   * a command typed to check a hand edit, or a service restarting, must not move a file a person
   * is correcting, with every account in it, out of the way of everything else that reads it.
   */
  unusableFile?: 'keep-aside' | 'leave';
  /** Told of a temporary a write cut short left in the folder, removed at the first load. */
  log?: Log;
}

export const SETTINGS_FILE_NAME = 'settings.json';

/** A file's content read: its settings and what was left out, or why it cannot be used at all. */
type FileRead = { settings: Settings; problem?: string } | { unusable: string };

/**
 * How many copies of left-out items (`settings.json.left-out-<hash>`) are kept: those a message
 * named most recently (a copy's time is set when a message names it). A count rather than an age
 * bounds the folder however often a file is read with new problems; five covers a problem fixed
 * and come back a few times. A copy a message of this process named is never deleted by it (the
 * next start prunes); one another process's message names is kept while among the newest five.
 */
export const LEFT_OUT_COPIES_KEPT = 5;
const LEFT_OUT = '.left-out-';

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
  readonly #unusableFile: 'keep-aside' | 'leave';
  readonly #log: Log | undefined;
  #file: KeyValueFile | undefined;
  /** The settings last read or written: what a save's change is told from (reconcileAccounts). */
  #last: Settings = DEFAULT_SETTINGS;
  /** The left-out copies this process's messages named: never pruned under them. */
  readonly #named = new Set<string>();
  /** The problem the last load or re-read told (reread tells each once). */
  #told: string | undefined;
  /** Whether the first load removed the data folder's temporaries left by writes cut short. */
  #tidied = false;

  constructor(options: ConfSettingsStoreOptions = {}) {
    this.#cwd = options.cwd ?? userDataDir();
    this.#now = options.now ?? (() => new Date());
    this.#open = options.open ?? ((o) => new Conf<Record<string, unknown>>(o));
    this.#unusableFile = options.unusableFile ?? 'keep-aside';
    this.#log = options.log;
  }

  get path(): string {
    return path.join(this.#cwd, SETTINGS_FILE_NAME);
  }

  load(): SettingsLoad {
    if (!this.#tidied) {
      this.#tidied = true;
      removeLeftoverTemporaries(this.#cwd, { log: this.#log });
    }
    let raw: Record<string, unknown>;
    try {
      // conf reads the file when it opens it, so a file that is not JSON fails right here.
      this.#file = this.#openFile();
      raw = this.#file.store;
    } catch (error) {
      this.#file = undefined;
      if (!isUnparseable(error) && this.#unusableFile === 'keep-aside') {
        const problem = `Your settings file ${this.path} ${unreadable(error)}; the defaults are in use until it can be.`;
        this.#told = problem;
        return { settings: { ...DEFAULT_SETTINGS }, problem };
      }
      return this.#unusable(unreadable(error));
    }
    const read = this.#read(raw);
    if ('unusable' in read) return this.#unusable(read.unusable);
    this.#last = read.settings;
    this.#told = read.problem;
    return read.problem ? read : { settings: read.settings };
  }

  reread(): SettingsReread {
    let read: FileRead;
    try {
      this.#file ??= this.#openFile();
      read = this.#read(this.#file.store);
    } catch (error) {
      read = { unusable: unreadable(error) };
    }
    if ('unusable' in read)
      return this.#tellOnce({
        settings: undefined,
        problem: `Your settings file ${this.path} ${read.unusable}; it was left as it is, and the settings in force stay until it can be used.`,
      });
    this.#last = read.settings;
    return this.#tellOnce(read);
  }

  /** `read` with its problem only when it is not the one last told. */
  #tellOnce(read: SettingsReread): SettingsReread {
    const told = this.#told;
    this.#told = read.problem;
    return read.problem === undefined || read.problem === told ? { settings: read.settings } : read;
  }

  /**
   * The settings a file's content gives, with the sentence telling what was left out (a copy of it
   * kept first); or what makes the file unusable as a whole.
   */
  #read(raw: Record<string, unknown>): FileRead {
    const { parsed, dropped, leftOut } = readSettings(raw);
    if (!parsed.success) {
      // Unusable whole (its shape): every reason is told, the items that would have been left out too.
      const reasons = [...dropped, ...describeIssues(parsed.error.issues).map((e) => e.message)].join('; ');
      return { unusable: `had settings that cannot be used (${reasons})` };
    }
    if (dropped.length === 0) return { settings: parsed.data };
    // The next save writes the file without them: a copy keeps them (one a file's content). A
    // read that only relabels leaves nothing out, so it keeps and names no copy.
    const anyLeftOut = Object.keys(leftOut).length > 0;
    const copy = anyLeftOut ? this.#keepLeftOut(leftOut) : undefined;
    const kept = copy
      ? Array.isArray(leftOut.accounts)
        ? ` What was left out is kept in ${copy}: an account can be added again (accounts add, or Settings) with its client and marketplace above.`
        : ` What was left out is kept in ${copy}, to correct and put back.`
      : anyLeftOut
        ? ' Correct or remove them in the file before anything is saved: the next save leaves them out.'
        : '';
    const defaulted = Object.keys(leftOut).some((key) => !LISTS.includes(key))
      ? ' (a setting left out takes its default)'
      : '';
    return {
      settings: parsed.data,
      problem: `Your settings file ${this.path} had settings that cannot be used (${dropped.join('; ')}); those items were left out (or relabelled, as said)${defaulted} and the rest of your settings are in use.${kept}`,
    };
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
    const reconciled = reconcileAccounts(this.#last, clean.data);
    // The first account stays at the top too, where a 0.x version (downgraded to) finds it.
    this.#write({ settingsVersion: SETTINGS_VERSION, ...reconciled });
    this.#last = reconciled;
  }

  /**
   * Writes the file whole or not at all, as conf lays it out (conf reads it from disk at each
   * read). Not through conf: its writer takes the short count write(2) returns on a disk that
   * fills for done, and renames the cut copy over the file.
   */
  #write(content: Record<string, unknown>): void {
    writeFileDurably(this.path, JSON.stringify(content, undefined, '\t'));
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

  /** A file that cannot be used: kept aside for the defaults, or left as it is (unusableFile). Never throws. */
  #unusable(what: string): SettingsLoad {
    if (this.#unusableFile === 'keep-aside') return this.#replaceWithDefaults(what);
    this.#file = undefined;
    return {
      settings: { ...DEFAULT_SETTINGS },
      problem: `Your settings file ${this.path} ${what}; it was left as it is. Correct it (or move it away to start afresh), then run the command again.`,
      unusable: true,
    };
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
      this.#write(settings);
      this.#file = this.#openFile();
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

  /**
   * The items left out, kept in a file of their own (the next save drops them from this one),
   * named by its content so each start reading the same file makes no other; without what a
   * secret may be (keys named so, credentials in addresses), which must not stay on disk. Undefined
   * when it could not be written. Its time is set to now whenever a message names it, written or
   * found, so the newest copies are those named last; a new one prunes the rest beyond
   * LEFT_OUT_COPIES_KEPT.
   */
  #keepLeftOut(leftOut: Record<string, unknown>): string | undefined {
    const content = `${JSON.stringify(withoutSecrets(leftOut), null, 2)}\n`;
    const copy = `${this.path}${LEFT_OUT}${createHash('sha256').update(content).digest('hex').slice(0, 12)}`;
    const touch = () => utimesSync(copy, this.#now(), this.#now());
    let written = false;
    const write = (): boolean => {
      try {
        // Whole or not at all: a cut copy under the content's name would be found and named next time.
        writeFileDurably(copy, content);
        written = true;
      } catch {
        return false;
      }
      try {
        touch();
      } catch {
        // Written, with the system's time: still the newest copy.
      }
      return true;
    };
    if (!existsSync(copy)) {
      if (!write()) return undefined;
    } else {
      try {
        touch();
      } catch (error) {
        // Pruned by another process since existsSync: written again. Any other failure leaves the
        // copy there with its older time (pruned sooner), still a copy to name.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !write()) return undefined;
      }
    }
    this.#named.add(copy);
    if (written) this.#pruneLeftOut();
    return copy;
  }

  /** The left-out copies beyond the newest LEFT_OUT_COPIES_KEPT deleted, but one a message named; best effort. */
  #pruneLeftOut(): void {
    try {
      const folder = path.dirname(this.path);
      const prefix = `${path.basename(this.path)}${LEFT_OUT}`;
      const copies = readdirSync(folder)
        .filter((name) => name.startsWith(prefix) && /^[0-9a-f]{12}$/.test(name.slice(prefix.length)))
        .map((name) => path.join(folder, name))
        .map((file) => ({ file, at: statSync(file).mtimeMs }))
        .sort((a, b) => b.at - a.at);
      for (const { file } of copies.slice(LEFT_OUT_COPIES_KEPT))
        if (!this.#named.has(file)) rmSync(file, { force: true });
    } catch {
      // A copy too many is kept until the next one is written.
    }
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
  const json = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    // JSON.parse quotes the text around the failure; the file's content has no place in a message,
    // where it broke does (an editor goes to a line and column).
    throw new SyntaxError(`not valid JSON${whereJsonBroke(json, (error as Error).message)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SyntaxError('not a JSON object');
  }
  return value as Record<string, unknown>;
}

/** " at line L, column C" of a JSON.parse failure's position in `text` (its end when it ran out). */
function whereJsonBroke(text: string, message: string): string {
  const position = failurePosition(text.length, message) ?? firstRefused(text);
  const before = text.slice(0, position).split('\n');
  return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Why a file could not be read: its I/O error's code, or where its JSON broke. */
function unreadable(error: unknown): string {
  if (isUnparseable(error)) return `was unreadable (${(error as Error).message})`;
  const code = (error as NodeJS.ErrnoException).code;
  return `could not be read${code ? ` (${code})` : ''}`;
}

/** Where a JSON.parse message of a text `length` long says it failed (its end when it ran out); undefined when it names no place. */
function failurePosition(length: number, message: string): number | undefined {
  const at = /position (\d+)/.exec(message)?.[1];
  if (at !== undefined) return Number(at);
  return /end of (JSON|data) input/i.test(message) ? length : undefined;
}

/**
 * The first character of `text` JSON.parse refuses, for its messages that name none ("Unexpected
 * token 'T'", a word where a value goes): the shortest start of the text that fails before its end
 * ends with it, as a start fails only by running out until it holds the character.
 */
function firstRefused(text: string): number {
  const failsWithin = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      return (failurePosition(length, (error as Error).message) ?? 0) < length;
    }
  };
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (failsWithin(middle)) high = middle;
    else low = middle + 1;
  }
  return Math.max(0, low - 1);
}

function isUnparseable(error: unknown): boolean {
  return error instanceof Error && error.name === 'SyntaxError';
}
