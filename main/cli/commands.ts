// The CLI's commands: each turns its arguments into client calls and returns what to print.
import type { SellerApiClient } from '../core/api/client';
import type { PageOf, WalkedPage } from '../core/api/pagination';
import { type Listed, STATUS_CODES, type StatusCode, type UnreadableItem } from '../core/api/wire';
import type { Printable } from './format';

export class UsageError extends Error {}

export interface CommandOptions {
  all: boolean;
  offset: number;
  limit: number;
  order?: string | undefined;
  description?: string | undefined;
  detail?: string | undefined;
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

/** One page, or with --all every item; both print as the list of items. */
async function list<T>(
  all: boolean,
  aside: UnreadableItem[],
  page: () => Promise<PageOf<T>>,
  walk: () => AsyncIterable<WalkedPage<T>>,
): Promise<T[]> {
  if (!all) return readable(await page(), aside);
  const items: T[] = [];
  for await (const walked of walk()) items.push(...readable(walked, aside));
  return items;
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
      return { kind: 'ping', value: await client.ping() };
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
    case 'orders list':
      return {
        kind: 'orders',
        value: await list(
          options.all,
          aside,
          () => client.listOrders(page),
          () => client.allOrders(),
        ),
      };
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
  return client.sendEvent({
    eventTypeCode: 'ServicePurchased',
    statusCode,
    description: options.description,
    ...(options.detail === undefined ? {} : { detailedDescription: options.detail }),
    additionalProperties: [{ name: 'orderId', value: orderId }],
  });
}
