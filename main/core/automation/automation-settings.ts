// The automations' declarations in the settings file, checked (zod) as every setting is: what
// an action may be, the webhook address rule (HTTPS, or plain HTTP to this computer only), and
// names that are unique and can be written into a posted status. Automations come from the
// settings file only (and later IT policy), never from what the marketplace sends.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import {
  AUTOMATION_LIMITS,
  AUTOMATION_NAME,
  AUTOMATION_NAME_RULE,
  type AutomationAction,
  type AutomationSetting,
  automationNamed,
} from '../../../preload/automations';

/** Why an address cannot receive a webhook, or undefined when it can. */
export function webhookUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an address (such as https://hooks.example.com/seller-tray)';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return 'must use https:// (plain http:// only to this computer: 127.0.0.1, [::1] or localhost)';
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** An account's id as account-ref.ts makes it: 16 hex digits, or the demo's. */
const ACCOUNT_ID = /^(?:[0-9a-f]{16}|demo)$/;

const argument = z
  .string()
  .min(1, { message: 'an argument must not be empty' })
  .refine((a) => !a.includes('\u0000'), { message: 'an argument must not contain a NUL character' });

const { min, max } = AUTOMATION_LIMITS.timeoutSeconds;
const TIME_LIMIT = `the time limit is a whole number of seconds from ${min} to ${max}`;

const Action: z.ZodType<AutomationAction> = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('command'),
    command: z.array(argument).min(1, { message: 'a command needs at least its program' }),
    cwd: z.string().refine(isAbsolute, { message: 'cwd must be an absolute folder' }).optional(),
    timeoutSeconds: z
      .int({ message: TIME_LIMIT })
      .min(AUTOMATION_LIMITS.timeoutSeconds.min, { message: TIME_LIMIT })
      .max(AUTOMATION_LIMITS.timeoutSeconds.max, { message: TIME_LIMIT })
      .default(AUTOMATION_LIMITS.timeoutSeconds.default),
  }),
  z.strictObject({
    type: z.literal('webhook'),
    url: z.string().superRefine((url, context) => {
      const problem = webhookUrlProblem(url);
      if (problem) context.addIssue({ code: 'custom', message: `the address ${problem}` });
    }),
  }),
  // The incoming webhook's address is a credential: it is in the keychain, never here.
  z.strictObject({ type: z.enum(['slack', 'teams']) }),
]);

const Automation: z.ZodType<AutomationSetting> = z.strictObject({
  name: z
    .string()
    .max(AUTOMATION_LIMITS.nameMax, { message: `a name is at most ${AUTOMATION_LIMITS.nameMax} characters` })
    .regex(AUTOMATION_NAME, { message: AUTOMATION_NAME_RULE }),
  enabled: z.boolean().default(true),
  products: z.array(z.string().trim().min(1)).default([]),
  orderTypes: z.array(z.string().trim().min(1)).default([]),
  // Absent in files from before accounts were chosen: those automations meant every account.
  accounts: z
    .union([
      z.literal('all'),
      z
        .array(
          z.string().regex(ACCOUNT_ID, { message: 'an account is named by its id (seller-tray accounts)' }),
        )
        .min(1, { message: 'accounts must name at least one account, or be "all"' }),
    ])
    .default('all'),
  action: Action,
  reportStatus: z.enum(['in-progress', 'completed']).nullable().default(null),
});

/** The settings' `automations`: at most AUTOMATION_LIMITS.count, each name once. */
export const AutomationList = z
  .array(Automation)
  .max(AUTOMATION_LIMITS.count)
  .superRefine((list, context) => {
    list.forEach(({ name }, index) => {
      if (automationNamed(list.slice(0, index), name))
        context.addIssue({ code: 'custom', message: `automations name ${name} twice` });
    });
  });

/**
 * The automations a new order of this account queues a run of: none unless this laptop runs
 * them; of those on, the ones for every account or naming this one.
 */
export function automationsToQueue(
  settings: {
    automationsEnabled?: boolean | undefined;
    automations?: readonly AutomationSetting[] | undefined;
  },
  account: string | undefined,
): string[] {
  if (!settings.automationsEnabled) return [];
  return (settings.automations ?? []).filter((a) => a.enabled && runsFor(a, account)).map((a) => a.name);
}

/** Whether an automation runs for the account (one with no id, a bare core, only under 'all'). */
export function runsFor(a: Pick<AutomationSetting, 'accounts'>, account: string | undefined): boolean {
  return a.accounts === 'all' || (account !== undefined && a.accounts.includes(account));
}
