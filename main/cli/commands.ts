// The CLI's commands: each turns its arguments into client calls and returns what to print.

import { compareEventTime } from '../../preload/order-status';
import type { SellerApiClient } from '../core/api/client';
import { SellerApiError } from '../core/api/errors';
import type { PageOf, WalkedPage } from '../core/api/pagination';
import {
  type Listed,
  type MarketplaceEvent,
  orderIdOf,
  STATUS_CODES,
  type StatusCode,
  type UnreadableItem,
} from '../core/api/wire';
import type { CredentialsCheck, Printable } from './format';

export class UsageError extends Error {}

export interface CommandOptions {
  all: boolean;
  offset: number;
  limit: number;
  order?: string | undefined;
  description?: string | undefined;
  detail?: string | undefined;
  /** JSON output: the API's objects only (an order list then needs no statuses). */
  json?: boolean | undefined;
}

/** `InProgress` on the command line is `ProvisioningInProgress` on the wire. */
const STATUS_WORDS: Readonly<Record<string, StatusCode>> = Object.fromEntries(
  STATUS_CODES.filter((code) => code !== 'ProvisioningStarted').map((code) => [
    code.replace('Provisioning', ''),
    code,
  ]),
);

/** What a command printed, and the items it listed that could not be read (told on stderr). */
export interface Outcome {
  result: Printable;
  aside: UnreadableItem[];
}

export async function runCommand(
  client: SellerApiClient,
  args: string[],
  options: CommandOptions,
): Promise<Outcome> {
  const aside: UnreadableItem[] = [];
  return { result: await printable(client, args, options, aside), aside };
}

/** A list's readable items; those that could not be read go to `aside`. */
function readable<T>(listed: Listed<T>, aside: UnreadableItem[]): T[] {
  aside.push(...listed.unreadable);
  return listed.items;
}

/** Every item of a walk; those that could not be read go to `aside`. */
async function walked<T>(walk: AsyncIterable<WalkedPage<T>>, aside: UnreadableItem[]): Promise<T[]> {
  const items: T[] = [];
  for await (const page of walk) items.push(...readable(page, aside));
  return items;
}

/** Each order's status: that of its latest event, as the app reads it. */
function latestStatuses(events: MarketplaceEvent[]): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const event of [...events].sort(compareEventTime)) {
    const orderId = orderIdOf(event);
    if (orderId !== undefined) statuses.set(orderId, event.statusCode);
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
  aside: UnreadableItem[],
  page: () => Promise<PageOf<T>>,
  walk: () => AsyncIterable<WalkedPage<T>>,
): Promise<T[]> {
  if (!all) return readable(await page(), aside);
  return walked(walk(), aside);
}

async function printable(
  client: SellerApiClient,
  args: string[],
  options: CommandOptions,
  aside: UnreadableItem[],
): Promise<Printable> {
  const [noun, verb, ...rest] = args;
  const page = { offset: options.offset, limit: options.limit };
  const argument = (name: string): string => {
    const value = rest[0];
    if (!value || rest.length > 1) throw new UsageError(`${noun} ${verb} takes one ${name}`);
    return value;
  };
  switch (`${noun} ${verb ?? ''}`.trim()) {
    case 'ping':
      return { kind: 'ping', value: await client.ping(), credentials: await checkCredentials(client) };
    case 'events new':
      return {
        kind: 'events',
        value: await list(
          options.all,
          aside,
          () => client.listNewEvents(page),
          () => client.newEvents(),
        ),
      };
    case 'events all':
      return {
        kind: 'events',
        value: await list(
          options.all,
          aside,
          () => client.listEvents(page),
          () => client.allEvents(),
        ),
      };
    case 'orders list': {
      // The listing is oldest first: the newest are at its end, so it is read whole.
      const orders = (await walked(client.allOrders(), aside)).reverse();
      return {
        kind: 'orders',
        value: options.all ? orders : orders.slice(options.offset, options.offset + options.limit),
        ...(options.json ? {} : { statuses: latestStatuses(await walked(client.allEvents(), aside)) }),
      };
    }
    case 'orders get':
      return { kind: 'order', value: await client.getOrder(argument('order id')) };
    case 'licenses list':
      return { kind: 'licenses', value: readable(await client.listLicenses(options.order), aside) };
    case 'licenses get':
      return { kind: 'license', value: await client.getLicense(argument('license id')) };
  }
  if (noun === 'status') return { kind: 'event', value: await postStatus(client, verb, rest, options) };
  throw new UsageError(args.length === 0 ? 'no command given' : `unknown command "${args.join(' ')}"`);
}

async function postStatus(
  client: SellerApiClient,
  orderId: string | undefined,
  rest: string[],
  options: CommandOptions,
) {
  const [word, ...extra] = rest;
  const statusCode = word === undefined ? undefined : STATUS_WORDS[word];
  if (!orderId || !statusCode || extra.length > 0) {
    throw new UsageError(`status takes an order id and one of ${Object.keys(STATUS_WORDS).join(', ')}`);
  }
  if (!options.description?.trim()) throw new UsageError('status needs --description TEXT');
  // As in the app: a failure says what failed and why, for the buyer's sake.
  if (statusCode === 'ProvisioningFailed' && !options.detail?.trim()) {
    throw new UsageError('status Failed needs --detail TEXT: the reason, as the app asks for it');
  }
  return client.sendEvent({
    eventTypeCode: 'ServicePurchased',
    statusCode,
    description: options.description,
    ...(options.detail === undefined ? {} : { detailedDescription: options.detail }),
    additionalProperties: [{ name: 'orderId', value: orderId }],
  });
}
