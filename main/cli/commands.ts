// The CLI's commands: each turns its arguments into client calls and returns what to print.

import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  causalOrder,
  isNewPurchase,
  isUsualTransition,
  MARKABLE_STATUSES,
  type MarkableStatus,
} from '../../preload/order-status';
import { statusLabel } from '../../preload/status-words';
import type { SellerApiClient } from '../core/api/client';
import { SellerApiError } from '../core/api/errors';
import { newestEvents, newestOrders } from '../core/api/newest';
import type { PageOf, WalkedPage } from '../core/api/pagination';
import {
  type Listed,
  linkedOrderId,
  type MarketplaceEvent,
  orderIdOf,
  type UnreadableItem,
} from '../core/api/wire';
import { FAILURE_NEEDS_REASON, requests } from '../core/bridge-requests';
import { signedMark } from '../core/mark';
import { eventsFrom, postOnce } from '../core/status-post';
import { type CredentialsCheck, type Printable, refusedMarkText } from './format';
import { orderIdArgument, resolveOrderId } from './order-id';
import { Refusal, UsageError } from './refusals';

export interface CommandOptions {
  all: boolean;
  offset: number;
  limit: number;
  order?: string | undefined;
  description?: string | undefined;
  detail?: string | undefined;
  /** Who a status is marked by (--as, else as the app has it); asked only when marking. */
  actor: () => string;
  /** JSON output: the API's objects only (an order list then needs no statuses). */
  json?: boolean | undefined;
  /** Post a status even where the window would ask first (an unusual transition, the same status again). */
  force?: boolean | undefined;
}

/** `InProgress` on the command line is `ProvisioningInProgress` on the wire. */
const STATUS_WORDS: Readonly<Record<string, MarkableStatus>> = Object.fromEntries(
  MARKABLE_STATUSES.map((code) => [code.replace('Provisioning', ''), code]),
);

/** A word as matched: any case, without spaces, hyphens or underscores ("In progress", "in-progress"). */
const folded = (word: string): string => word.toLowerCase().replace(/[\s_-]/g, '');

/**
 * The status a word names: its command-line word, or the words `orders list` and `orders get`
 * print ("In progress"), so a status copied from them is taken.
 */
const statusNamed = (word: string): MarkableStatus | undefined =>
  Object.entries(STATUS_WORDS).find(([name, code]) =>
    [name, statusLabel(code)].some((each) => folded(each) === folded(word)),
  )?.[1];

/** The words `status` takes, for a refusal: 'InProgress ("In progress"), Completed or Failed'. */
const STATUS_CHOICES = Object.entries(STATUS_WORDS)
  .map(([name, code]) => (statusLabel(code) === name ? name : `${name} ("${statusLabel(code)}")`))
  .join(', ')
  .replace(/, (?=[^,]*$)/, ' or ');

/** What a command printed, and what it read that could not be read (told on stderr). */
export interface Outcome {
  result: Printable;
  /** The unreadable items among those printed, and the unreadable events of the orders printed. */
  aside: UnreadableItem[];
  /** Unreadable events read along that name no order that can be read: they may be of one printed. */
  ofUnknownOrder: UnreadableItem[];
}

/** What could not be read, as a command collects it. */
type Unread = Omit<Outcome, 'result'>;

export async function runCommand(
  client: SellerApiClient,
  args: string[],
  options: CommandOptions,
): Promise<Outcome> {
  const unread: Unread = { aside: [], ofUnknownOrder: [] };
  // What the command started and no longer waits for ends with it: the search for where the
  // events end when the order could not be read, a page read ahead. Nothing then holds the
  // process open after a failure.
  const command = new AbortController();
  try {
    return { result: await printable(client, args, options, unread, command.signal), ...unread };
  } catch (error) {
    if (error instanceof Refusal) error.unread = unread;
    throw error;
  } finally {
    command.abort();
  }
}

/** A list's readable items; those that could not be read are told. */
function readable<T>(listed: Omit<Listed<T>, 'keys'>, unread: Unread): T[] {
  unread.aside.push(...listed.unreadable);
  return listed.items;
}

/** Every item of a walk; those that could not be read are told. */
async function walked<T>(walk: AsyncIterable<WalkedPage<T>>, unread: Unread): Promise<T[]> {
  const items: T[] = [];
  for await (const page of walk) items.push(...readable(page, unread));
  return items;
}

/**
 * Events read back to say what printed orders' statuses are: their readable ones. Of those that
 * could not be read, the ones of a printed order are told, and those that name no order that
 * can be read, apart; those of other orders (read along in the same windows) are not.
 */
function eventsOfOrders(
  events: Listed<MarketplaceEvent>,
  orderIds: ReadonlySet<string>,
  unread: Unread,
): MarketplaceEvent[] {
  for (const item of events.unreadable) {
    const orderId = linkedOrderId(item.raw);
    if (orderId === undefined) unread.ofUnknownOrder.push(item);
    else if (orderIds.has(orderId)) unread.aside.push(item);
  }
  return events.items;
}

/** One order's readable events in causal order; its unreadable ones are told. */
function historyOf(events: Listed<MarketplaceEvent>, orderId: string, unread: Unread): MarketplaceEvent[] {
  return causalOrder(
    eventsOfOrders(events, new Set([orderId]), unread).filter((event) => orderIdOf(event) === orderId),
  );
}

/** Each order's status: that of its latest event in causal order, as the app reads it. */
function latestStatuses(events: MarketplaceEvent[]): Map<string, string> {
  const byOrder = new Map<string, MarketplaceEvent[]>();
  for (const event of events) {
    const orderId = orderIdOf(event);
    if (orderId !== undefined) byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), event]);
  }
  const statuses = new Map<string, string>();
  for (const [orderId, history] of byOrder) {
    const latest = causalOrder(history).at(-1);
    if (latest) statuses.set(orderId, latest.statusCode);
  }
  return statuses;
}

/** Whether the marketplace takes the credentials, when there are any to try. */
async function checkCredentials(client: SellerApiClient): Promise<CredentialsCheck> {
  try {
    const { sellerId } = await client.authenticate();
    return { outcome: 'accepted', sellerId };
  } catch (error) {
    if (error instanceof UsageError) return { outcome: 'not given', reason: error.message };
    if (error instanceof SellerApiError && error.credentialsRejected) return { outcome: 'rejected' };
    throw error;
  }
}

/** One page, or with --all every item; both print as the list of items. */
async function list<T>(
  all: boolean,
  unread: Unread,
  page: () => Promise<PageOf<T>>,
  walk: () => AsyncIterable<WalkedPage<T>>,
): Promise<T[]> {
  if (!all) return readable(await page(), unread);
  return walked(walk(), unread);
}

async function printable(
  client: SellerApiClient,
  args: string[],
  options: CommandOptions,
  unread: Unread,
  signal: AbortSignal,
): Promise<Printable> {
  const [noun, verb, ...rest] = args;
  const page = { offset: options.offset, limit: options.limit };
  const argument = (name: string): string => {
    const value = rest[0];
    if (!value || rest.length > 1) throw new UsageError(`${noun} ${verb} takes one ${name}`);
    return value;
  };
  // A command of no argument given one (`orders list all` for --all): refused, not ignored.
  const noArgument = () => {
    if (rest.length > 0)
      throw new UsageError(
        `${noun} ${verb} takes no argument, not "${rest.join(' ')}" (options begin with --)`,
      );
  };
  switch (`${noun} ${verb ?? ''}`.trim()) {
    case 'ping':
      return { kind: 'ping', value: await client.ping(), credentials: await checkCredentials(client) };
    case 'events new':
      noArgument();
      return {
        kind: 'events',
        value: await list(
          options.all,
          unread,
          () => client.listNewEvents(page),
          () => client.newEvents({ signal }),
        ),
      };
    case 'events all':
      noArgument();
      return {
        kind: 'events',
        value: await list(
          options.all,
          unread,
          () => client.listEvents(page),
          () => client.allEvents(0, { signal }),
        ),
      };
    case 'orders list': {
      noArgument();
      // Where the events end is looked for while the orders are read (not for JSON: no statuses).
      const eventsBack = options.json ? undefined : newestEvents(client, signal);
      // The listing is oldest first: the newest, printed first, are read from its end.
      const printed = options.all
        ? (await walked(client.allOrders(0, { signal }), unread)).reverse()
        : readable(await newestOrders(client, page, signal), unread);
      if (!eventsBack) return { kind: 'orders', value: printed };
      // Each printed order's latest event says its status: read back until every one has one.
      const ids = new Set(printed.flatMap((order) => order.orderId ?? []));
      const events = await eventsBack((read) => {
        const seen = new Set(read.map(orderIdOf));
        return [...ids].every((id) => seen.has(id));
      });
      return {
        kind: 'orders',
        value: printed,
        statuses: latestStatuses(eventsOfOrders(events, ids, unread)),
      };
    }
    case 'orders get': {
      const given = orderIdArgument(argument('order id'));
      const eventsBack = options.json ? undefined : newestEvents(client, signal);
      const { orderId } = await resolveOrderId(client, given, signal);
      const order = await client.getOrder(orderId);
      if (!eventsBack) return { kind: 'order', value: order };
      // Its history: the events back to its purchase, an order's first event.
      const events = await eventsBack((read) =>
        read.some((event) => orderIdOf(event) === orderId && isNewPurchase(event)),
      );
      return { kind: 'order', value: order, history: historyOf(events, orderId, unread) };
    }
    case 'licenses list': {
      noArgument();
      const given = options.order === undefined ? undefined : orderIdArgument(options.order);
      const orderId = given && (await resolveOrderId(client, given, signal)).orderId;
      return { kind: 'licenses', value: readable(await client.listLicenses(orderId), unread) };
    }
    case 'licenses get':
      return { kind: 'license', value: await client.getLicense(argument('license id')) };
  }
  if (noun === 'status') return postStatus(client, verb, rest, options, unread, signal);
  throw new UsageError(args.length === 0 ? 'no command given' : `unknown command "${args.join(' ')}"`);
}

/**
 * Posts a status as the window marks one, and refuses what the window would ask about first
 * (an unusual transition, the status the order already has) unless --force. The CLI keeps no
 * status: the order's latest event says it, read back from the newest end of the events.
 */
async function postStatus(
  client: SellerApiClient,
  given: string | undefined,
  rest: string[],
  options: CommandOptions,
  unread: Unread,
  signal: AbortSignal,
): Promise<Printable> {
  const [word, ...extra] = rest;
  const statusCode = word === undefined ? undefined : statusNamed(word);
  if (given && word !== undefined && !statusCode && extra.length === 0) {
    throw new UsageError(`"${word}" is not a status to mark: give ${STATUS_CHOICES}`);
  }
  if (!given || !statusCode || extra.length > 0) {
    throw new UsageError(`status takes an order id and one of ${Object.keys(STATUS_WORDS).join(', ')}`);
  }
  // Checked as the app checks a mark: a failure says what failed and why, for the buyer's sake.
  const mark = requests.markStatus.safeParse({
    orderId: given,
    statusCode,
    description: options.description,
    detailedDescription: options.detail,
    override: options.force ?? false,
  });
  if (!mark.success) throw new UsageError(markProblem(mark.error.issues));
  const actor = options.actor();
  const id = orderIdArgument(given);
  const eventsBack = newestEvents(client, signal);
  const resolved = await resolveOrderId(client, id, signal);
  const { orderId } = resolved;
  const buyer = (resolved.order ?? (await client.getOrder(orderId))).buyerCustomerParty.party?.partyName;
  // Its latest event: once one of its events is read back from the end, so are its later ones.
  const events = await eventsBack((read) => read.some((event) => orderIdOf(event) === orderId));
  const latest = historyOf(events, orderId, unread).at(-1);
  const forced = mark.data.override;
  if (!forced && !isUsualTransition(latest?.statusCode, statusCode)) {
    const code = latest?.statusCode === statusCode ? 'same-status' : 'unusual-transition';
    throw new Refusal(code, refusedMarkText({ orderId, buyer }, latest, statusCode));
  }
  // Posted as the app posts it, with who marked it in the description; an answer lost on the
  // way is read back from the listing's end before the status is posted again.
  const posted = await postOnce(
    {
      post: (body, requestId) => client.sendEvent(body, requestId),
      recentEvents: async function* () {
        yield* eventsFrom(client, (await client.eventPlaces()) - client.pageSize);
      },
    },
    signedMark({ ...mark.data, orderId }, actor),
    randomUUID(),
    {},
  );
  return {
    kind: 'mark',
    value: posted.event,
    eventId: posted.eventId,
    mark: { orderId, buyer, from: latest?.statusCode, to: statusCode, actor, forced },
  };
}

/** The flag of each field of the app's mark, for saying what to change. */
const MARK_FLAGS: Readonly<Record<string, string>> = {
  orderId: 'the order id',
  description: '--description',
  detailedDescription: '--detail',
};

/** Why a mark was refused, in the command line's words. */
export function markProblem(issues: readonly z.core.$ZodIssue[]): string {
  const [issue] = issues;
  if (
    issue?.code === FAILURE_NEEDS_REASON.code &&
    issue.path.join('.') === FAILURE_NEEDS_REASON.path.join('.')
  ) {
    return 'status Failed needs --description TEXT and --detail TEXT: what failed, and the reason, as the app asks for them';
  }
  const flag = MARK_FLAGS[String(issue?.path[0])] ?? 'status';
  if (issue?.code === 'too_big') return `${flag} must be at most ${issue.maximum} characters, as in the app`;
  return `${flag}: ${issue?.message ?? 'not accepted'}`;
}
