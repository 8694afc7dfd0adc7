// The policies that are not settings: rules an organization sets for the laptops it manages (a
// shortest check interval, whether the demo or automations may run, where updates come from),
// each with the schema its value must pass and the words a refusal uses. The settings themselves
// are policies too, declared once in preload/settings-declaration.ts; layers.ts reads both.
import { z } from 'zod';
import { SETTINGS } from '../../../preload/settings-declaration';
import { checkBaseUrl } from '../api/transport';

interface RuleDeclaration<T> {
  /** How a registry value (text or a number) is read as this rule's (layers.ts `fromRegistry`). */
  kind: 'boolean' | 'number' | 'text';
  label: string;
  rule: string;
  schema: z.ZodType<T>;
  /** A number's limits, or a text's values: the Group Policy templates offer them (build/policies/). */
  range?: { min: number; max: number };
  choices?: readonly { value: string; label: string }[];
}

const rule = <T>(d: RuleDeclaration<T>): RuleDeclaration<T> => d;
const NAME_SOURCES = [
  { value: 'user', label: 'Your name, as each user sets it' },
  { value: 'computer-account', label: "The computer account's name" },
] as const;
const poll = SETTINGS.pollIntervalSeconds;

export const RULES = {
  /** The shortest check interval a user may choose: a fleet of laptops polling each minute is a load. */
  pollIntervalMinimumSeconds: rule({
    kind: 'number',
    label: 'Shortest check interval',
    rule: `must be a whole number of seconds from ${poll.min} to ${poll.max}`,
    schema: z.int().min(poll.min).max(poll.max),
    range: { min: poll.min, max: poll.max },
  }),
  /** false: no "Try the demo", and a laptop in demo mode leaves it. */
  demoAllowed: rule({
    kind: 'boolean',
    label: 'Demo allowed',
    rule: 'must be true or false',
    schema: z.boolean(),
  }),
  /** false: automations (commands, webhooks, chat messages) do not run on this laptop. */
  automationsAllowed: rule({
    kind: 'boolean',
    label: 'Automations allowed',
    rule: 'must be true or false',
    schema: z.boolean(),
  }),
  /** false: this laptop never checks for or installs updates: IT deploys them. */
  updatesEnabled: rule({
    kind: 'boolean',
    label: 'Updates',
    rule: 'must be true or false',
    schema: z.boolean(),
  }),
  /** The update channel to follow instead of the build's own (latest, beta…). */
  updateChannel: rule({
    kind: 'text',
    label: 'Update channel',
    rule: 'must be a channel name such as latest or beta',
    schema: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  }),
  /** The update feed to read instead of the build's: IT's own mirror. */
  updateFeedUrl: rule({
    kind: 'text',
    label: 'Update feed',
    rule: 'must be an https address of an update feed',
    schema: z.string().refine((url) => checkBaseUrl(url).ok),
  }),
  /** computer-account: statuses are signed with the computer account's name; "Your name" is locked empty. */
  actorNameSource: rule({
    kind: 'text',
    label: 'Name on statuses',
    rule: 'must be user or computer-account',
    schema: z.enum(NAME_SOURCES.map((c) => c.value) as ['user', 'computer-account']),
    choices: NAME_SOURCES,
  }),
  /** The language and region the notifications and the window write dates, numbers and amounts in, such as en-GB. */
  locale: rule({
    kind: 'text',
    label: 'Locale',
    rule: 'must be a language tag such as en-GB',
    schema: z.string().refine((tag) => {
      try {
        return Intl.getCanonicalLocales(tag).length === 1;
      } catch {
        return false;
      }
    }),
  }),
};

export type RuleKey = keyof typeof RULES;
export type Rules = { [K in RuleKey]?: z.output<(typeof RULES)[K]['schema']> };
