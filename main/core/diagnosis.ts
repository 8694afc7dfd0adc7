// `seller-tray doctor` and Settings' "Diagnose connection": every Seller API operation the app
// reads with, tried once, with what answered, how long it took, where the answer differs from
// the spec and what the app does about each difference. Its report is what a user pastes into
// a support ticket: the server's words and request ids, never a secret or a token, even where
// the server echoes them in its words (the log's scrub, given every credential the run sent).

import { plainText } from '../../preload/marketplace-text';
import { SellerApiClient, type SellerApiClientOptions } from './api/client';
import { SellerApiError } from './api/errors';
import { type Operation, PAGE, routes } from './api/routes';
import type { Transport } from './api/transport';
import {
  EVENT_TYPE_CODES,
  EventListEnvelope,
  type ItemKind,
  ORDER_TYPE_CODES,
  Order,
  OrderListEnvelope,
  orderIdOf,
  PingResponse,
  readItems,
  STATUS_CODES,
  TokenResponse,
} from './api/wire';
import { credentialsIn, withoutCredentials } from './log';

export interface DiagnosisStep {
  operation: Operation;
  outcome: 'ok' | 'tolerated' | 'failed' | 'skipped';
  /** The HTTP status of the answer read, when there was one. */
  status: number | null;
  ms: number;
  /** What differed from the spec and what the app does about it, or why the step failed. */
  notes: string[];
}

export interface Diagnosis {
  at: string;
  baseUrl: string;
  clientId: string;
  /** The page size the marketplace allows, as found. */
  pageSize: number;
  steps: DiagnosisStep[];
}

interface RawAnswer {
  status: number;
  text: string;
}

/** At most this many notes per step: one per field and kind of difference is enough to act on. */
const MAX_NOTES = 16;
/** Items kept aside named one by one in a step; the rest are counted. */
const MAX_ASIDE_NOTES = 3;

export async function diagnose(
  options: SellerApiClientOptions,
  now: () => number = Date.now,
): Promise<Diagnosis> {
  const answers: RawAnswer[] = [];
  /** Every credential the run sent (the secret, the token): the notes (answers that succeeded too) are scrubbed of them. */
  const sent = new Set<string>();
  const send: Transport = options.transport ?? ((url, init) => fetch(url, init));
  // Keeps each answer's status and text as it came, for comparing with what the client read.
  const transport: Transport = async (url, init) => {
    for (const value of credentialsIn(new Headers(init.headers).get('authorization'))) sent.add(value);
    const response = await send(url, init);
    const text = await response.text();
    answers.push({ status: response.status, text });
    const bodyless = response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(bodyless ? null : text, { status: response.status, headers: response.headers });
  };
  const client = new SellerApiClient({ ...options, transport, retry: { maxAttempts: 1 } });
  const steps: DiagnosisStep[] = [];

  async function step<T>(
    operation: Operation,
    run: () => Promise<T>,
    differences: (raw: unknown, result: T) => string[],
  ): Promise<T | undefined> {
    const first = answers.length;
    const sizeBefore = client.pageSize;
    const started = performance.now();
    // The answer the step is about: its first success (after a refused page size, before a probe).
    const answered = () => {
      const read = answers.slice(first);
      return read.find((a) => a.status >= 200 && a.status <= 299) ?? read.at(-1);
    };
    const done = (outcome: DiagnosisStep['outcome'], notes: string[]) => {
      steps.push({
        operation,
        outcome,
        status: answered()?.status ?? null,
        ms: Math.round(performance.now() - started),
        notes: [...new Set(notes)].slice(0, MAX_NOTES),
      });
    };
    try {
      const result = await run();
      const main = answered();
      const notes = [
        ...statusNotes(operation, answers.slice(first), main),
        ...(client.pageSize < sizeBefore &&
        main?.status !== 400 &&
        !answers.slice(first).some((a) => a.status === 400)
          ? [
              `pages come back with at most ${client.pageSize} items while saying there is more: pages of ${client.pageSize} are read`,
            ]
          : []),
        ...(main ? differences(parseJson(main.text), result) : []),
      ];
      done(notes.length > 0 ? 'tolerated' : 'ok', notes);
      return result;
    } catch (error) {
      // The "new" listing is an accelerator: without it the app reads the full list.
      if (operation === 'listNewEvents' && !callerProblem(error)) {
        done('tolerated', [
          failureNote(error),
          'Seller Tray reads the full event list instead: no order is missed',
        ]);
      } else {
        done('failed', [failureNote(error)]);
      }
      return undefined;
    }
  }

  await step(
    'ping',
    () => client.ping(),
    (raw) => differencesIn(raw, PingResponse.safeParse(raw).data),
  );
  const token = await step(
    'createToken',
    () => client.authenticate(),
    (raw) => differencesIn(raw, TokenResponse.safeParse(raw).data),
  );
  if (token === undefined) {
    for (const operation of [
      'listNewEvents',
      'listEvents',
      'listOrders',
      'getOrder',
      'listLicenses',
    ] as const) {
      steps.push({ operation, outcome: 'skipped', status: null, ms: 0, notes: ['needs a token'] });
    }
  } else {
    // One event only: in consume mode the "new" listing hands out what it shows once.
    await step('listNewEvents', () => client.listNewEvents({ limit: 1 }), listingNotes('event'));
    const events = await step(
      'listEvents',
      () => client.listEvents({ limit: client.pageSize }),
      listingNotes('event'),
    );
    const orders = await step(
      'listOrders',
      async () => {
        const page = await client.listOrders({ limit: client.pageSize });
        if (await ignoresOffset(client, page.keys)) {
          throw new Error(
            'listOrders: offset=1 answered the first order again: the marketplace ignores the offset, so no listing can be read past its first page',
          );
        }
        return page;
      },
      listingNotes('order'),
    );
    const orderId =
      orders?.items.find((o) => o.orderId)?.orderId ??
      events?.items.map(orderIdOf).find((id) => id !== undefined);
    if (orderId === undefined) {
      for (const operation of ['getOrder', 'listLicenses'] as const) {
        steps.push({ operation, outcome: 'skipped', status: null, ms: 0, notes: ['no order to read'] });
      }
    } else {
      await step(
        'getOrder',
        () => client.getOrder(orderId),
        (raw) => [...differencesIn(raw, Order.safeParse(raw).data), ...unknownCodes(raw, '')],
      );
      await step(
        'listLicenses',
        () => client.listLicenses(orderId),
        (raw) => (Array.isArray(raw) ? itemNotes('license', raw) : []),
      );
    }
  }
  return {
    at: new Date(now()).toISOString(),
    baseUrl: client.baseUrl,
    clientId: options.credentials.clientId,
    pageSize: client.pageSize,
    steps: steps.map((s) => ({ ...s, notes: s.notes.map((note) => withoutCredentials(note, sent)) })),
  };
}

/** The report as text: what a user pastes into a support ticket. */
export function formatDiagnosis(diagnosis: Diagnosis, version: string): string {
  const lines = [
    `Seller Tray ${version} diagnosis, ${diagnosis.at}`,
    `Marketplace ${diagnosis.baseUrl}, client ${diagnosis.clientId}, page size ${diagnosis.pageSize}`,
    '',
  ];
  for (const s of diagnosis.steps) {
    const status = s.status === null ? '-' : `HTTP ${s.status}`;
    lines.push(`${s.operation.padEnd(14)} ${s.outcome.padEnd(9)} ${status.padEnd(8)} ${s.ms} ms`);
    for (const note of s.notes) lines.push(`    ${plainText(note)}`);
  }
  const failed = diagnosis.steps.filter((s) => s.outcome === 'failed').length;
  const tolerated = diagnosis.steps.filter((s) => s.outcome === 'tolerated').length;
  lines.push(
    '',
    failed > 0
      ? `${failed} operation(s) failed: Seller Tray cannot work fully with this marketplace until they answer.`
      : tolerated > 0
        ? `Every operation answered; ${tolerated} differ(s) from the spec in ways Seller Tray reads as shown.`
        : 'Every operation answered as the spec describes.',
  );
  return `${lines.join('\n')}\n`;
}

function listingNotes(kind: ItemKind) {
  return (raw: unknown): string[] => {
    const envelope = (kind === 'order' ? OrderListEnvelope : EventListEnvelope).safeParse(raw);
    if (!envelope.success) return [];
    const items = (kind === 'order' ? envelope.data.orders : envelope.data.marketplaceEvents) as unknown[];
    const notes: string[] = [];
    if (raw === undefined) notes.push('no body: read as an empty page');
    else if (isObject(raw) && typeof raw.hasMore !== 'boolean') {
      notes.push(
        `hasMore is ${JSON.stringify(raw.hasMore) ?? 'missing'}: "true"/"false" are read as such, and when it is absent there are more pages only after a full one`,
      );
    }
    return [...notes, ...itemNotes(kind, items)];
  };
}

/** Each item read on its own, as the app does: what it tolerated, what it kept aside. */
function itemNotes(kind: ItemKind, items: readonly unknown[]): string[] {
  const readable: { raw: unknown; read: unknown }[] = [];
  const aside: string[] = [];
  for (const [i, raw] of items.entries()) {
    const listed = readItems(kind, [raw]);
    const unreadable = listed.unreadable[0];
    if (unreadable) {
      const id = unreadable.key.length > 64 ? `item ${i}` : unreadable.key;
      aside.push(
        `${kind} ${id}: ${unreadable.fieldPath}: ${unreadable.reason}: kept aside, the others are read`,
      );
    } else {
      readable.push({ raw, read: listed.items[0] });
    }
  }
  const notes = aside.slice(0, MAX_ASIDE_NOTES);
  if (aside.length > MAX_ASIDE_NOTES)
    notes.push(`and ${aside.length - MAX_ASIDE_NOTES} more ${kind}s kept aside`);
  const differences = differencesIn(
    readable.map((r) => r.raw),
    readable.map((r) => r.read),
  );
  const links = kind === 'order' ? [] : items.flatMap(orderLinkNotes);
  return [...notes, ...differences, ...items.flatMap((raw) => unknownCodes(raw, '[].')), ...links];
}

/** An event or license that names its order other than as an `orderId` additional property. */
function orderLinkNotes(raw: unknown): string[] {
  if (!isObject(raw)) return [];
  const properties = Array.isArray(raw.additionalProperties) ? raw.additionalProperties : [];
  const name = properties
    .map((p) => (isObject(p) ? p.name : undefined))
    .find((n): n is string => typeof n === 'string' && n !== 'orderId' && n.toLowerCase() === 'orderid');
  if (name) return ['[].additionalProperties: the order link "orderId" is named in another case: read as it'];
  const linked = properties.some((p) => isObject(p) && p.name === 'orderId');
  if (!linked && typeof raw.orderId === 'string')
    return ['[].orderId: the order link is a top-level field: read as the order link'];
  return [];
}

/** Whether the listing answers offset 1 with its first item again: a server that ignores offsets. */
async function ignoresOffset(client: SellerApiClient, firstPage: readonly string[]): Promise<boolean> {
  if (firstPage.length < 2) return false;
  const second = await client.listOrders({ offset: 1, limit: 1 });
  return second.keys[0] === firstPage[0];
}

function statusNotes(
  operation: Operation,
  read: readonly RawAnswer[],
  main: RawAnswer | undefined,
): string[] {
  const notes: string[] = [];
  if (read.some((a) => a.status === 400) && main && main.status !== 400) {
    notes.push(
      `a page of ${PAGE.maxLimit} was refused (HTTP 400 naming a smaller maximum): smaller pages are read`,
    );
  }
  const expected = routes[operation].success;
  if (main && main.status !== expected) {
    notes.push(`answered ${main.status} where ${expected} was expected: any 2xx is success`);
  }
  return notes;
}

/** Values the spec lists as codes that this app does not know: shown as they are. */
function unknownCodes(raw: unknown, prefix: string): string[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const item = raw as Record<string, unknown>;
  const known: [string, readonly string[]][] = [
    ['eventTypeCode', EVENT_TYPE_CODES],
    ['statusCode', STATUS_CODES],
    ['orderTypeCode', ORDER_TYPE_CODES],
  ];
  return known.flatMap(([field, codes]) => {
    const value = item[field];
    if (typeof value !== 'string' || codes.some((c) => c.toLowerCase() === value.trim().toLowerCase()))
      return [];
    return [`${prefix}${field}: "${value}" is not a code the spec lists: shown as it is`];
  });
}

/**
 * Where the answer as sent differs from what the app read, field by field: one note per field
 * and kind of difference (the first example of it), however many items show it.
 */
export function differencesIn(raw: unknown, read: unknown): string[] {
  const notes = new Map<string, string>();
  const compare = (raw: unknown, read: unknown, path: string): void => {
    if (Array.isArray(raw) && Array.isArray(read)) {
      for (const [i, value] of raw.entries()) compare(value, read[i], `${path}[]`);
    } else if (isObject(raw) && isObject(read)) {
      for (const key of new Set([...Object.keys(raw), ...Object.keys(read)])) {
        compare(raw[key], read[key], path === '' ? key : `${path}.${key}`);
      }
    } else {
      const found = leafDifference(raw, read);
      const key = found && `${path} ${found.kind}`;
      if (found && key && !notes.has(key))
        notes.set(key, `${path === '' ? '(the answer)' : path}: ${found.text}`);
    }
  };
  compare(raw, read, '');
  return [...notes.values()];
}

/** How a single value as sent differs from the value read, if it does. */
function leafDifference(raw: unknown, read: unknown): { kind: string; text: string } | undefined {
  if (raw === read) return undefined;
  if (raw === null && read === undefined) return { kind: 'null', text: 'null: read as absent' };
  if (raw === undefined) {
    return read === undefined
      ? undefined
      : { kind: 'missing', text: `missing: taken as ${JSON.stringify(read)}` };
  }
  if (typeof raw === 'string' && typeof read === 'number') {
    return { kind: 'numeric', text: `a number written as text ("${raw}"): read as the number` };
  }
  if (typeof raw === 'number' && typeof read === 'string') {
    return { kind: 'text', text: 'a number where text belongs: read as text' };
  }
  if (typeof raw === 'string' && typeof read === 'string') {
    return raw.toLowerCase() === read.toLowerCase()
      ? { kind: 'case', text: `"${raw}" in another case: read as "${read}"` }
      : { kind: 'form', text: `written "${raw}": read as "${read}"` };
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Failures about the caller or the way there, which every operation would meet. */
function callerProblem(error: unknown): boolean {
  return (
    !(error instanceof SellerApiError) ||
    error.kind === 'network' ||
    error.kind === 'timeout' ||
    error.kind === 'tls' ||
    error.status === 401 ||
    error.status === 403
  );
}

function failureNote(error: unknown): string {
  return error instanceof SellerApiError || error instanceof Error ? error.message : String(error);
}
