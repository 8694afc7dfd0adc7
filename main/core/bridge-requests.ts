// The bridge's requests as the main process checks them: one zod schema per channel of the
// contract (preload/contract.ts), which declares what each takes. The compiler holds the two
// together: a channel missing here, one too many, or a schema that reads another shape fails to build.
import { z } from 'zod';
import { AUTOMATION_LIMITS, type AutomationSetting } from '../../preload/automations';
import { type Channel, INBOX_FILTERS, INBOX_PAGE_ROWS, LIMITS, type Requests } from '../../preload/contract';
import { INBOX_SORTS } from '../../preload/inbox-sort';
import { INSIGHT_BUCKETS, INSIGHT_MAX_DAYS } from '../../preload/insights';
import type { SettingsChange } from '../../preload/model';
import { canonicalOrderId } from '../../preload/order-link';
import { MARKABLE_STATUSES } from '../../preload/order-status';
import { RUNBOOK_LIMITS } from '../../preload/runbooks';
import type { Mutual } from './same-type';

/** An order id from outside (the window, a link, the command line), in the one form the store compares. */
const OrderId = z
  .string()
  .trim()
  .min(1, 'an order id is required')
  .max(LIMITS.orderId)
  .transform(canonicalOrderId);

/** An automation by its name, as the settings name it. */
const AutomationName = z.string().min(1).max(AUTOMATION_LIMITS.nameMax);

/** The account a row carries (OrderListItem.account). */
const AccountOf = z.string().min(1).max(LIMITS.accountId);

/** The issue a mark of a failure without its words and its reason raises (the CLI names its flags for it). */
export const FAILURE_NEEDS_REASON = {
  code: 'custom',
  path: ['detailedDescription'],
  message: 'a failure needs a description and a detailed description of the reason',
} as const;

export const requests = {
  getState: z.undefined(),
  getSettings: z.undefined(),
  /** Each field is checked by the settings module (parseSettingsPatch), with its own words. */
  setSettings: z.custom<SettingsChange>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'the settings change must be an object of settings',
  ),
  setSecret: z.strictObject({ secret: z.string().min(1, 'the client secret is empty').max(LIMITS.secret) }),
  testConnection: z.strictObject({
    baseUrl: z.string().max(LIMITS.baseUrl),
    clientId: z.string().trim().min(1, 'the client id is empty').max(LIMITS.clientId),
    secret: z.string().min(1).max(LIMITS.secret).optional(),
  }),
  addAccount: z.strictObject({
    label: z.string().trim().min(1, 'the label is empty').max(LIMITS.accountLabel),
    baseUrl: z.string().max(LIMITS.baseUrl).optional(),
    clientId: z.string().trim().min(1).max(LIMITS.clientId).optional(),
    secret: z.string().min(1, 'the client secret is empty').max(LIMITS.secret),
  }),
  renameAccount: z.strictObject({
    account: AccountOf,
    label: z.string().trim().min(1, 'the label is empty').max(LIMITS.accountLabel),
  }),
  removeAccount: z.strictObject({ account: AccountOf, discardUndelivered: z.boolean().default(false) }),
  listOrders: z.strictObject({
    filter: z.enum(INBOX_FILTERS).default('all'),
    search: z.string().max(LIMITS.search).default(''),
    sort: z.enum(INBOX_SORTS).default('longest-waiting'),
    backlog: z.enum(['shown', 'hidden']).optional(),
    account: AccountOf.optional(),
    offset: z.int().min(0).default(0),
    limit: z.int().min(1).max(LIMITS.page).default(INBOX_PAGE_ROWS),
  }),
  getOrder: z.strictObject({
    orderId: OrderId,
    account: AccountOf.optional(),
    reread: z.boolean().default(false),
  }),
  markStatus: z
    .strictObject({
      orderId: OrderId,
      account: AccountOf.optional(),
      statusCode: z.enum(MARKABLE_STATUSES),
      description: z.string().trim().max(LIMITS.description).default(''),
      detailedDescription: z.string().trim().max(LIMITS.detailedDescription).optional(),
      override: z.boolean().default(false),
    })
    .refine(
      (r) => r.statusCode !== 'ProvisioningFailed' || (r.description !== '' && !!r.detailedDescription),
      { message: FAILURE_NEEDS_REASON.message, path: [...FAILURE_NEEDS_REASON.path] },
    ),
  retryDelivery: z.strictObject({ requestId: z.guid(), account: AccountOf.optional() }),
  runAutomation: z.strictObject({
    orderId: OrderId,
    automation: AutomationName,
    account: AccountOf.optional(),
  }),
  getAutomations: z.undefined(),
  /** The automation itself is checked whole by the settings file's rules (automation-editing.ts). */
  saveAutomation: z.strictObject({
    automation: z.custom<AutomationSetting>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'the automation must be an object',
    ),
    replaces: AutomationName.optional(),
  }),
  removeAutomation: z.strictObject({ automation: AutomationName }),
  setAutomationSecret: z.strictObject({
    automation: AutomationName,
    secret: z.string().trim().min(1, 'the secret is empty').max(LIMITS.secret),
  }),
  testAutomation: z.strictObject({
    automation: AutomationName,
    orderId: OrderId,
    account: AccountOf.optional(),
  }),
  undoMark: z.strictObject({ requestId: z.guid() }),
  getAttention: z.undefined(),
  getInsights: z
    .strictObject({
      account: z.union([z.literal('all'), AccountOf]),
      product: z.string().max(LIMITS.productName).nullable(),
      from: z.iso.date(),
      to: z.iso.date(),
      bucket: z.enum(INSIGHT_BUCKETS),
      // The offsets in use run from UTC-12 to UTC+14.
      utcOffsetMinutes: z
        .int()
        .min(-12 * 60)
        .max(14 * 60),
    })
    .refine((r) => r.from <= r.to && daysBetween(r.from, r.to) < INSIGHT_MAX_DAYS, {
      message: `the period must end on or after its first day and span at most ${INSIGHT_MAX_DAYS} days`,
      path: ['to'],
    }),
  resendStatus: z.strictObject({ requestId: z.guid(), account: AccountOf.optional() }),
  markAsideSeen: z.strictObject({ upToId: z.int().min(0), account: AccountOf.optional() }),
  snoozeOrder: z.strictObject({
    orderId: OrderId,
    until: z.iso.datetime({ offset: true }),
    account: AccountOf.optional(),
  }),
  tickRunbookStep: z.strictObject({
    orderId: OrderId,
    account: AccountOf.optional(),
    itemId: z.string().trim().min(1).max(RUNBOOK_LIMITS.itemId),
    step: z.string().trim().min(1).max(RUNBOOK_LIMITS.step),
    ticked: z.boolean(),
  }),
  checkNow: z.undefined(),
  startDemo: z.undefined(),
  pauseNotifications: z.strictObject({
    until: z.iso.datetime({ offset: true }).nullable(),
    account: AccountOf.optional(),
  }),
  diagnose: z.undefined(),
  getUpdateStatus: z.undefined(),
  checkForUpdates: z.undefined(),
  openLogFolder: z.undefined(),
  openInWindow: z.undefined(),
  exportStatuses: z.strictObject({ since: z.iso.date().optional() }),
} satisfies Record<Channel, z.ZodType>;

function daysBetween(from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / 86_400_000;
}

/** A channel's request once checked: defaults filled in. */
export type CheckedRequest<C extends Channel> = z.output<(typeof requests)[C]>;

// Fails to compile when a schema takes another shape than the contract declares for its channel.
void ({} as { [C in Channel]: Mutual<z.input<(typeof requests)[C]>, Requests[C]> } satisfies Record<
  Channel,
  true
>);
