// The CLI's commands: each turns its arguments into client calls and returns what to print.
import type { SellerApiClient } from '../core/api/client';
import type { PageOf } from '../core/api/pagination';
import { STATUS_CODES, type StatusCode } from '../core/api/wire';
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

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

/** One page, or with --all every item; both print as the list of items. */
async function list<T>(options: CommandOptions, page: () => Promise<PageOf<T>>, all: () => AsyncIterable<T>) {
  return options.all ? collect(all()) : (await page()).items;
}

export async function runCommand(
  client: SellerApiClient,
  args: string[],
  options: CommandOptions,
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
          options,
          () => client.listNewEvents(page),
          () => client.newEvents(),
        ),
      };
    case 'events all':
      return {
        kind: 'events',
        value: await list(
          options,
          () => client.listEvents(page),
          () => client.allEvents(),
        ),
      };
    case 'orders list':
      return {
        kind: 'orders',
        value: await list(
          options,
          () => client.listOrders(page),
          () => client.allOrders(),
        ),
      };
    case 'orders get':
      return { kind: 'order', value: await client.getOrder(argument('order id')) };
    case 'licenses list':
      return { kind: 'licenses', value: await client.listLicenses(options.order) };
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
