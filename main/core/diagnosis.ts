// `seller-tray doctor` and Settings' "Diagnose connection": every Seller API operation the app
// reads with, tried once, with what answered, how long it took, where the answer differs from
// the spec and what the app does about each difference. Its report is what a user pastes into
// a support ticket: the server's words and request ids, never a secret or a token, even where
// the server echoes them in its words (the log's scrub, given every credential the run sent).

import { plural } from '../../preload/counted';
import { capped, plainText } from '../../preload/marketplace-text';
import { lastReadAgoText } from '../../preload/status-words';
import type { TokenLifetime } from './api/access-token';
import {
  declaredOver,
  MAX_ANSWER_BYTES,
  mebibytes,
  OVER_CAP_KEPT,
  SellerApiClient,
  type SellerApiClientOptions,
} from './api/client';
import { SellerApiError } from './api/errors';
import { type Operation, PAGE, routes } from './api/routes';
import type { Transport } from './api/transport';
import {
  EVENT_TYPE_CODES,
  EventListEnvelope,
  type ItemKind,
  losesDigits,
  type MarketplaceEvent,
  ORDER_TYPE_CODES,
  Order,
  OrderListEnvelope,
  orderIdOf,
  PingResponse,
  parseJson,
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
  /** The account's label, where it has one: the report names it so (the CLI names an account by its label). */
  account?: string | undefined;
  baseUrl: string;
  clientId: string;
  /** The page size the marketplace allows, as found. */
  pageSize: number;
  steps: DiagnosisStep[];
  /**
   * When this laptop's app (or `seller-tray watch`) last read the marketplace, from its store:
   * null when it never did; absent when not known (the caller did not look).
   */
  lastSuccessfulPoll?: string | null;
}

interface RawAnswer {
  status: number;
  /** Of an answer over the cap, only its start (`OVER_CAP_KEPT`), for its words. */
  text: string;
  /** Longer than the client reads (said so by its Content-Length, or as it came): the client did not read it. */
  over: boolean;
}

/** At most this many notes per step: one per field and kind of difference is enough to act on. */
const MAX_NOTES = 16;
/** Items kept aside named one by one in a step; the rest are counted. */
const MAX_ASIDE_NOTES = 3;

/**
 * `seen` is what the app's own client learned of the token's lifetime while it polled (hours
 * of use, where a diagnosis lasts seconds): the youngest refusal of either counts.
 */
export async function diagnose(
  options: SellerApiClientOptions,
  now: () => number = Date.now,
  seen?: TokenLifetime,
): Promise<Diagnosis> {
  const answers: RawAnswer[] = [];
  /** Every credential the run sent (the secret, the token): the notes (answers that succeeded too) are scrubbed of them. */
  const sent = new Set<string>();
  const send: Transport = options.transport ?? ((url, init) => fetch(url, init));
  const maxBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  // Keeps each answer's status and text as the client reads it (no further than its cap), for
  // comparing with what the client made of it.
  const transport: Transport = async (url, init) => {
    for (const value of credentialsIn(new Headers(init.headers).get('authorization'))) sent.add(value);
    const response = await send(url, init);
    const answer: RawAnswer = { status: response.status, text: '', over: declaredOver(response, maxBytes) };
    answers.push(answer);
    const bodyless = response.status === 204 || response.status === 205 || response.status === 304;
    if (response.body === null || bodyless) return response;
    const decoder = new TextDecoder();
    let bytes = 0;
    const kept = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (!answer.over) answer.text += decoder.decode(chunk, { stream: true });
        if (bytes > maxBytes && !answer.over) {
          answer.over = true;
          answer.text = answer.text.slice(0, OVER_CAP_KEPT);
        }
        controller.enqueue(chunk);
      },
      flush() {
        if (!answer.over) answer.text += decoder.decode();
      },
    });
    return new Response(response.body.pipeThrough(kept), {
      status: response.status,
      headers: response.headers,
    });
  };
  const client = new SellerApiClient({ ...options, transport, retry: { maxAttempts: 1 } });
  const steps: DiagnosisStep[] = [];

  /** Where each step's answers begin. */
  const starts = new Map<Operation, number>();

  async function step<T>(
    operation: Operation,
    run: () => Promise<T>,
    differences: (raw: unknown, result: T) => string[],
  ): Promise<T | undefined> {
    const first = answers.length;
    starts.set(operation, first);
    const sizeBefore = client.pageSize;
    const started = performance.now();
    // The answer the step is about: its first success read whole (after a refused page size or
    // an answer over the cap, before a probe).
    const answered = () => {
      const read = answers.slice(first);
      return read.find((a) => a.status >= 200 && a.status <= 299 && !a.over) ?? read.at(-1);
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
        ...statusNotes(operation, answers.slice(first), main, client.pageSize < sizeBefore),
        ...(client.pageSize < sizeBefore &&
        main?.status !== 400 &&
        !answers.slice(first).some((a) => a.status === 400)
          ? [
              `pages come back with at most ${client.pageSize} items while saying there is more: pages of ${client.pageSize} are read`,
            ]
          : []),
        ...(answers.slice(first).some((a) => a.over)
          ? [
              `an answer was larger than ${mebibytes(maxBytes)}, more than Seller Tray reads: a page so is asked again in smaller pages, an item so alone is kept aside`,
            ]
          : []),
        ...(main && !main.over ? differences(readAnswer(main.text), result) : []),
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

  /**
   * What can break polling later, at a listing's far end: a result window refusing deep pages,
   * a "more" that never ends. Told on the listing's step, with what the app does about it.
   */
  async function farEnd(operation: 'listEvents' | 'listOrders', answered: boolean): Promise<void> {
    const listed = steps.findLast((s) => s.operation === operation);
    if (!listed || !answered) return;
    const first = answers.length;
    const started = performance.now();
    const notes: string[] = [];
    const noun = operation === 'listEvents' ? 'events' : 'orders';
    try {
      const length = await (operation === 'listEvents' ? client.eventPlaces() : client.orderPlaces());
      const window = client.resultWindows[operation];
      const refusal = answers.slice(starts.get(operation) ?? first).find((a) => a.status >= 400);
      if (window !== undefined) {
        notes.push(
          `pages past its first ${window} ${noun} are refused (a result window${refusal ? `, HTTP ${refusal.status}: ${wordsOf(refusal)}` : ''}): Seller Tray reads the listing within it`,
          length >= window
            ? operation === 'listEvents'
              ? `the listing reaches the window: newer events cannot be read from it, so new orders past it are announced only on the laptop that takes them from the "new" listing, until older events expire`
              : 'the listing reaches the window: newer orders cannot be listed from it (each is still read by its id)'
            : `the listing holds ${length} ${noun}: within the window for now`,
        );
      }
      const page = client[operation]({ offset: length, limit: 1 });
      const past = await page;
      if (past.hasMore && past.keys.length === 0 && (window === undefined || length < window)) {
        notes.push(
          `it says there is more past its last ${noun.slice(0, -1)} (empty pages that say more): Seller Tray reads empty pages at its end as the end`,
        );
      }
    } catch (error) {
      notes.push(`its far end could not be read: ${failureNote(error)}`);
    }
    listed.ms += Math.round(performance.now() - started);
    listed.notes.push(...notes);
    if (notes.length > 0 && listed.outcome === 'ok') listed.outcome = 'tolerated';
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
      async () => {
        const page = await client.listEvents({ limit: client.pageSize });
        // The next page too: a short page that says there is more shows a maximum only when it is not the end.
        if (page.hasMore && page.keys.length > 0) {
          await client.listEvents({ offset: page.keys.length, limit: client.pageSize });
        }
        return page;
      },
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
    await farEnd('listEvents', events !== undefined);
    await farEnd('listOrders', orders !== undefined);
    const expired = events && orders ? retentionNote(events.items, orders.items) : undefined;
    if (expired) {
      const listed = steps.findLast((s) => s.operation === 'listEvents');
      listed?.notes.push(expired);
      if (listed?.outcome === 'ok') listed.outcome = 'tolerated';
    }
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
  // What the token's lifetime turned out to be, once every other step has used it.
  const tokenStep = steps.find((s) => s.operation === 'createToken' && s.outcome !== 'failed');
  const measured = client.tokenLifetime();
  const refusals = [measured.refusedAfterMs, seen?.refusedAfterMs].filter((ms) => ms !== undefined);
  const lifetime = tokenNotes({
    statedMs: measured.statedMs ?? seen?.statedMs,
    refusedAfterMs: refusals.length > 0 ? Math.min(...refusals) : undefined,
  });
  if (tokenStep && lifetime.length > 0) {
    tokenStep.notes.push(...lifetime);
    tokenStep.outcome = 'tolerated';
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
    `${diagnosis.account === undefined ? 'Marketplace' : `Account ${plainText(diagnosis.account)}: marketplace`} ${diagnosis.baseUrl}, client ${diagnosis.clientId}, page size ${diagnosis.pageSize}`,
    ...(diagnosis.lastSuccessfulPoll === undefined
      ? []
      : [lastReadLine(diagnosis.lastSuccessfulPoll, diagnosis.at)]),
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
      ? `${plural(failed, 'operation')} failed: Seller Tray cannot work fully with this marketplace until they answer.`
      : tolerated > 0
        ? `Every operation answered; ${plural(tolerated, 'answer')} ${tolerated === 1 ? 'differs' : 'differ'} from the spec in ways Seller Tray reads as shown.`
        : 'Every operation answered as the spec describes.',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * When this laptop last read the marketplace, as of the diagnosis: the header's words, and the
 * time. Only that moment is known, not whether the polls fail now, so never "Checked".
 */
function lastReadLine(lastSuccessfulPoll: string | null, at: string): string {
  if (lastSuccessfulPoll === null)
    return 'This laptop: Seller Tray has not read this marketplace here yet (the app or `seller-tray watch` does).';
  return `This laptop: ${lastReadAgoText(lastSuccessfulPoll, Date.parse(at))} (${lastSuccessfulPoll}) by the app or seller-tray watch.`;
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

/** The spec's token lifetime (4.2). */
const SPEC_TOKEN_MS = 30 * 60_000;

/**
 * Where the token's lifetime differs from the spec's: what `exp` says, and the age at which the
 * marketplace refused a token during this diagnosis (a gateway may let tokens lapse early).
 */
function tokenNotes({ statedMs, refusedAfterMs }: TokenLifetime): string[] {
  const notes: string[] = [];
  if (statedMs === undefined) {
    notes.push(
      'the token does not say how long it lasts (no readable iat and exp): Seller Tray renews it every 5 minutes, and at once when it is refused',
    );
  } else if (statedMs !== SPEC_TOKEN_MS) {
    notes.push(
      `the token says it lasts ${duration(statedMs)} (exp - iat), where the spec says 30 min: Seller Tray renews it before then`,
    );
  }
  if (refusedAfterMs !== undefined) {
    notes.push(
      `a token was refused ${duration(refusedAfterMs)} after it came${statedMs === undefined ? '' : `, though it says it lasts ${duration(statedMs)}`}: Seller Tray renews a refused token once and repeats the call, and renews later tokens before that age`,
    );
  }
  return notes;
}

/** "1.2 s", "29 min", "2 h". */
function duration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

function statusNotes(
  operation: Operation,
  read: readonly RawAnswer[],
  main: RawAnswer | undefined,
  pageShrank: boolean,
): string[] {
  const notes: string[] = [];
  if (pageShrank && read.some((a) => a.status === 400) && main && main.status !== 400) {
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
      const found = leafDifference(raw, read, path);
      const key = found && `${path} ${found.kind}`;
      if (found && key && !notes.has(key))
        notes.set(key, `${path === '' ? '(the answer)' : path}: ${found.text}`);
    }
  };
  compare(raw, read, '');
  return [...notes.values()];
}

/** A field that holds an id (sellerId, lineId, orderID): text to the app, whether written as a number or not. */
const ID_FIELD = /id$/i;
/** The fields the reader adds beside a number of more digits than a double holds. */
const EXACT_FIELD = /exact(Amount|Value)$/;

/** How a single value as sent (at `path`) differs from the value read, if it does. */
function leafDifference(
  raw: unknown,
  read: unknown,
  path: string,
): { kind: string; text: string } | undefined {
  if (raw === read) return undefined;
  if (raw === undefined && EXACT_FIELD.test(path)) return undefined;
  if (typeof raw === 'string' && typeof read === 'number' && losesDigits(raw)) {
    return {
      kind: 'long',
      text: `${raw} has more digits than a number holds: read with its exact text beside it`,
    };
  }
  if (raw === null && read === undefined) return { kind: 'null', text: 'null: read as absent' };
  if (raw !== undefined && read === undefined) {
    const written = JSON.stringify(raw) ?? String(raw);
    return {
      kind: 'unreadable',
      text: `${written.length > 40 ? `${written.slice(0, 40)}…` : written} cannot be read: taken as absent (the app can do without it)`,
    };
  }
  if (ID_FIELD.test(path) && typeof raw === 'number' && read === String(raw)) return undefined;
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

/** An answer's JSON as the client reads it (wire.ts's parseJson), or undefined when it is none. */
function readAnswer(text: string): unknown {
  try {
    return text === '' ? undefined : parseJson(text);
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

/** Events listed after a purchase's this much are of a later time than it. */
const HOUR_MS = 3_600_000;

/**
 * The events listing's old end, against the orders listing's: when its first events are later
 * than the oldest order and none of them is that order's, older events have expired (retention).
 */
function retentionNote(events: readonly MarketplaceEvent[], orders: readonly Order[]): string | undefined {
  const oldest = orders[0];
  const firstTime = events[0]?.eventTime;
  if (oldest?.orderId === undefined || oldest.issueTime === undefined || firstTime === undefined)
    return undefined;
  if (events.some((event) => orderIdOf(event) === oldest.orderId)) return undefined;
  if (Date.parse(firstTime) - Date.parse(oldest.issueTime) < HOUR_MS) return undefined;
  return `the oldest events have expired (retention): the listing begins at ${firstTime}, after the oldest order (issued ${oldest.issueTime}): Seller Tray finds its place by the events' ids, so events expiring while it polls lose nothing`;
}

/** The words of a refusal as it came: its description, else the start of its text. */
function wordsOf(answer: RawAnswer): string {
  const body = parseJson(answer.text);
  const words = isObject(body)
    ? [body.description ?? body.title, body.detailedDescription ?? body.detail]
        .filter((w) => typeof w === 'string')
        .join(': ')
    : answer.text;
  return capped(plainText(words), 240);
}

function failureNote(error: unknown): string {
  return error instanceof SellerApiError || error instanceof Error ? error.message : String(error);
}
