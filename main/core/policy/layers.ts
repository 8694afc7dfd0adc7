// The policy layers, highest first: managed (locked) > recommended (a default the user may change)
// > the user's settings > the built-in defaults. Pure: the sources (sources.ts) read documents
// from the registry, a plist or JSON files; this module checks every value with the same
// declarations and checks as the settings file (settings.ts `checkSettingValue`, keys.ts) and
// works over whatever settings are declared, so a new setting is a policy with no change here.
//
// Decisions:
// - An invalid or unknown policy is ignored and becomes a `problem` (logged, shown in Diagnose and
//   `doctor`): one bad value never costs the others, and never a crash. Inside an account list,
//   one odd account never costs the others either: it is relabelled or left out as in the
//   user's file, and told.
// - The client secret is never a policy: it stays in the keychain.
// - Documents come highest first (HKLM before HKCU; a Linux file named later before one named
//   earlier); the first to set a key at a level wins.
// - Recommended values replace the built-in default: a user who never changed a setting follows
//   IT's recommendation (also when it changes later); one who chose a value keeps it.
// - Saving never writes a policy's value into the user's file: what the user had stays there, so
//   a lock lifted gives the user's own choice back.
import { isDeepStrictEqual } from 'node:util';
import { SETTING_ENTRIES, SETTINGS, type SettingKey } from '../../../preload/settings-declaration';
import {
  checkSettingValue,
  DEFAULT_SETTINGS,
  readAccountList,
  reconcileAccounts,
  type Settings,
  type SettingsFieldError,
} from '../settings';
import { RULES, type RuleKey, type Rules } from './keys';

export type PolicyLevel = 'managed' | 'recommended';

/** One document as a source read it: a JSON file, a plist dictionary, a registry key. */
export interface PolicyDocument {
  level: PolicyLevel;
  /** Where it was read, as an administrator would look for it: every problem names it. */
  origin: string;
  values: Record<string, unknown>;
  /** `registry`: values are text and numbers (REG_SZ, REG_DWORD), read by each key's declared kind. */
  encoding?: 'typed' | 'registry';
}

export interface PolicyProblem {
  origin: string;
  /** The key as the document wrote it; null when the whole document could not be read. */
  key: string | null;
  message: string;
  /** The value is in force, but changed as the message says (an account relabelled): not ignored. */
  changed?: true;
}

/** What a source read: its documents and what it could not read. */
export interface PolicyRead {
  documents: PolicyDocument[];
  problems: PolicyProblem[];
}

/** One policy in force, for `doctor` and Diagnose. */
export interface PolicyInForce {
  key: SettingKey | RuleKey;
  label: string;
  level: PolicyLevel;
  value: unknown;
  origin: string;
}

export interface Policies {
  managed: Partial<Settings>;
  recommended: Partial<Settings>;
  rules: Rules;
  inForce: PolicyInForce[];
  problems: PolicyProblem[];
}

export const NO_POLICIES: Policies = Object.freeze({
  managed: {},
  recommended: {},
  rules: {},
  inForce: [],
  problems: [],
});

type Kind = 'boolean' | 'number' | 'text' | 'json';

/** Declared keys by their lower-case spelling: registry and plist names are matched case-insensitively. */
const KEYS = new Map<string, SettingKey | RuleKey>(
  [...Object.keys(SETTINGS), ...Object.keys(RULES)].map((key) => [key.toLowerCase(), key as SettingKey]),
);

const isRule = (key: SettingKey | RuleKey): key is RuleKey => key in RULES;

/** A setting's kind follows its default's type: an object or a list (api, accounts) is JSON text in the registry. */
function kindOf(key: SettingKey | RuleKey): Kind {
  if (isRule(key)) return RULES[key].kind;
  const value: unknown = SETTINGS[key].default;
  return typeof value === 'boolean'
    ? 'boolean'
    : typeof value === 'number'
      ? 'number'
      : typeof value === 'string'
        ? 'text'
        : 'json';
}

/** A registry value as its key's kind: a DWORD 0/1 as a boolean, JSON text as an object. */
function fromRegistry(value: unknown, kind: Kind): unknown {
  if (kind === 'boolean' && typeof value === 'number')
    return value === 0 ? false : value === 1 ? true : value;
  if (kind === 'number' && typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (kind === 'json' && typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch {
      return value; // refused by the check, with the setting's rule
    }
  }
  return value;
}

/**
 * One value checked as its declaration says; a message naming the key and the rule otherwise.
 * An account list is read as the settings file reads one (settings.ts `readAccountList`): an odd
 * account is relabelled (in force, told in `changed`) or left out (told in `ignored`), and the
 * others are in force.
 */
function check(
  key: SettingKey | RuleKey,
  value: unknown,
): { ok: true; value: unknown; changed?: string[]; ignored?: string[] } | { ok: false; message: string } {
  if (key === 'accounts' && Array.isArray(value)) {
    const { accounts, relabelled, leftOut } = readAccountList(value);
    const ignored = leftOut.map((left) => left.problem);
    if (accounts.length === 0 && ignored.length > 0) return { ok: false, message: ignored.join('; ') };
    return { ok: true, value: accounts, changed: relabelled, ignored };
  }
  if (!isRule(key)) return checkSettingValue(key, value);
  const rule = RULES[key];
  const parsed = rule.schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: `${key} ${rule.rule}` };
}

/** Why a key is no policy, or undefined when it is one. */
function refusal(raw: string, key: SettingKey | RuleKey | undefined, level: PolicyLevel): string | undefined {
  if (/secret|password|token/i.test(raw))
    return `${raw} is never a policy: the client secret is kept in each laptop's keychain`;
  if (key === undefined) return `${raw} is not a Seller Tray policy`;
  if (isRule(key)) return level === 'managed' ? undefined : `${key} is a rule, set as a managed policy only`;
  return SETTINGS[key].policy === false ? `${key} cannot be set by a policy` : undefined;
}

/** The documents' values checked and layered: what is in force, and what was ignored and why. */
export function resolvePolicies(read: PolicyRead): Policies {
  const policies = {
    managed: {} as Record<string, unknown>,
    recommended: {} as Record<string, unknown>,
    rules: {} as Record<string, unknown>,
    inForce: [] as PolicyInForce[],
    problems: [...read.problems],
  };
  for (const document of read.documents) {
    for (const [raw, given] of Object.entries(document.values)) {
      const key = KEYS.get(raw.toLowerCase());
      const refused = refusal(raw, key, document.level);
      if (refused || key === undefined) {
        policies.problems.push({ origin: document.origin, key: raw, message: refused ?? raw });
        continue;
      }
      const layer = isRule(key) ? policies.rules : policies[document.level];
      if (key in layer) continue; // a higher document set it
      const value = document.encoding === 'registry' ? fromRegistry(given, kindOf(key)) : given;
      const checked = check(key, value);
      if (!checked.ok) {
        policies.problems.push({ origin: document.origin, key: raw, message: `${checked.message}; ignored` });
        continue;
      }
      layer[key] = checked.value;
      const origin = document.origin;
      for (const message of checked.changed ?? [])
        policies.problems.push({ origin, key: raw, message, changed: true });
      for (const note of checked.ignored ?? [])
        policies.problems.push({
          origin,
          key: raw,
          message: `${note}; left out, the other accounts are in force`,
        });
      const label = isRule(key) ? RULES[key].label : SETTINGS[key].label;
      policies.inForce.push({
        key,
        label,
        level: document.level,
        value: checked.value,
        origin: document.origin,
      });
    }
  }
  return withConsequences(policies as Policies);
}

/** The settings some rules lock: the demo where it is not allowed, "Your name", automatic update checks, automations. */
function withConsequences(policies: Policies): Policies {
  const { rules } = policies;
  const managed = withinFloor(policies);
  const locks: Partial<Settings> = {
    ...(demoAllowed(policies) ? {} : { demoMode: false }),
    ...(rules.actorNameSource === 'computer-account' ? { actorName: '' } : {}),
    ...(rules.updatesEnabled === false ? { checkForUpdatesAutomatically: false } : {}),
    ...(rules.automationsAllowed === false ? { automationsEnabled: false } : {}),
  };
  return { ...policies, managed: { ...locks, ...managed } };
}

/**
 * A locked check interval under the shortest the rule allows (two policies that disagree) is
 * raised to it here, once: what Diagnose lists is then what the window shows and the poller uses,
 * and the change is told.
 */
function withinFloor(policies: Policies): Partial<Settings> {
  const floor = policies.rules.pollIntervalMinimumSeconds;
  const locked = policies.managed.pollIntervalSeconds;
  if (floor === undefined || locked === undefined || locked >= floor) return policies.managed;
  const entry = policies.inForce.find((p) => p.key === 'pollIntervalSeconds' && p.level === 'managed');
  if (entry) {
    entry.value = floor;
    policies.problems.push({
      origin: entry.origin,
      key: 'pollIntervalSeconds',
      message: `pollIntervalSeconds ${locked} is shorter than pollIntervalMinimumSeconds ${floor}: ${floor} is in force`,
      changed: true,
    });
  }
  return { ...policies.managed, pollIntervalSeconds: floor };
}

/** The demo is allowed unless a rule says no, or the marketplace is IT's to set (the demo would replace it). */
export function demoAllowed(policies: Policies): boolean {
  return (
    policies.rules.demoAllowed !== false &&
    !('baseUrl' in policies.managed) &&
    !('clientId' in policies.managed) &&
    !('accounts' in policies.managed)
  );
}

/**
 * Why no automation may run on this computer, or undefined: the organization does not allow them
 * (a clause). Asked before a run is queued or started, whoever asks (a poll, `seller-tray run`,
 * Run again, a test): the app's switch only says whether a poll queues runs, this says none runs.
 */
export function automationsForbidden(policies: Policies): string | undefined {
  return policies.rules.automationsAllowed === false
    ? 'your organization does not allow automations on this computer (policy automationsAllowed)'
    : undefined;
}

/** The automations are the organization's: it forbids them, or sets their list. Settings shows them read only. */
export function automationsManaged(policies: Policies): boolean {
  return policies.rules.automationsAllowed === false || 'automations' in policies.managed;
}

/** The settings in force: the user's, under recommended values where they kept the default, under locks. */
export function applyPolicies(user: Settings, policies: Policies): Settings {
  const settings: Record<string, unknown> = { ...user };
  for (const [key, value] of Object.entries(policies.recommended)) {
    if (isDeepStrictEqual(user[key as SettingKey], DEFAULT_SETTINGS[key as SettingKey]))
      settings[key] = value;
  }
  Object.assign(settings, policies.managed);
  const floor = policies.rules.pollIntervalMinimumSeconds;
  if (floor !== undefined && (settings.pollIntervalSeconds as number) < floor)
    settings.pollIntervalSeconds = floor;
  // The account list and the window's account (baseUrl, clientId) say the same: a marketplace a
  // policy sets whole is the first account, and a list a policy sets gives the window its first.
  const applied = settings as Settings;
  const whole = (applied.baseUrl !== '' && applied.clientId !== '') || 'accounts' in policies.managed;
  return whole ? reconcileAccounts(user, applied) : applied;
}

/**
 * What to save when the settings in force become `next`: a setting the user did not change keeps
 * the user's own value (so a policy's value is never written into the user's file), a change is the
 * user's.
 */
export function userSettingsAfter(next: Settings, user: Settings, policies: Policies): Settings {
  const before = applyPolicies(user, policies);
  return Object.fromEntries(
    SETTING_ENTRIES.map(([key]) => [
      key,
      key in policies.managed || isDeepStrictEqual(next[key], before[key]) ? user[key] : next[key],
    ]),
  ) as Settings;
}

/** The settings in `change` a policy forbids: a locked one changed, an account a locked list lacks, a check interval under IT's shortest. */
export function policyRefusals(change: Partial<Settings>, policies: Policies): SettingsFieldError[] {
  const refusals: SettingsFieldError[] = [];
  for (const [key, value] of Object.entries(change) as [SettingKey, unknown][]) {
    if (key in policies.managed && !isDeepStrictEqual(value, policies.managed[key])) {
      refusals.push({ field: key, message: `${SETTINGS[key].label} is managed by your organization` });
    }
  }
  // A list the organization sets locks which accounts there are: the first account's base URL and
  // client (what login saves, what --base-url and --client-id serve) may only name one it lists.
  const listed = policies.managed.accounts;
  const { baseUrl, clientId } = change;
  if (listed !== undefined && (baseUrl !== undefined || clientId !== undefined)) {
    const fits = (entry: { baseUrl: string; clientId: string }) =>
      (baseUrl === undefined || entry.baseUrl === baseUrl) &&
      (clientId === undefined || entry.clientId === clientId);
    if (!listed.some(fits)) {
      const field =
        clientId !== undefined && !listed.some((entry) => entry.clientId === clientId)
          ? 'clientId'
          : 'baseUrl';
      if (!refusals.some((r) => r.field === field))
        refusals.push({ field, message: `${SETTINGS.accounts.label} is managed by your organization` });
    }
  }
  const floor = policies.rules.pollIntervalMinimumSeconds;
  if (floor !== undefined && change.pollIntervalSeconds !== undefined && change.pollIntervalSeconds < floor) {
    refusals.push({
      field: 'pollIntervalSeconds',
      message: `${SETTINGS.pollIntervalSeconds.label} must be at least ${floor} seconds: your organization allows no shorter`,
    });
  }
  return refusals;
}

/** The locked settings, for the window's padlocks. */
export function lockedSettings(policies: Policies): SettingKey[] {
  return Object.keys(policies.managed) as SettingKey[];
}

/** A problem as one line: for the log, Diagnose and `doctor`. */
export function describeProblem({ origin, message }: PolicyProblem): string {
  return `${origin}: ${message}`;
}

/** What was ignored (not in force) apart from what is in force but changed (an account relabelled). */
export function policyProblems(policies: Policies): { ignored: PolicyProblem[]; changed: PolicyProblem[] } {
  return {
    ignored: policies.problems.filter((p) => !p.changed),
    changed: policies.problems.filter((p) => p.changed),
  };
}

/** The policies in force and those ignored, as lines for Diagnose and `doctor`; none when nobody manages this laptop. */
export function policyReport(policies: Policies): string[] {
  const { inForce, problems } = policies;
  if (inForce.length === 0 && problems.length === 0) return [];
  const { ignored } = policyProblems(policies);
  return [
    `Policies of your organization: ${inForce.length} in force${ignored.length > 0 ? `, ${ignored.length} ignored` : ''}`,
    ...inForce.map(
      (p) =>
        `  ${p.key} = ${JSON.stringify(p.value)} (${p.level === 'managed' ? 'locked' : 'recommended'}; ${p.origin})`,
    ),
    ...problems.map((p) => `  ${p.changed ? 'changed' : 'ignored'}: ${describeProblem(p)}`),
  ];
}
