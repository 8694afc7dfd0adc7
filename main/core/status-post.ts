// A status as Seller Tray posts it, and its delivery exactly once without the server's help.
// The marketplace need not deduplicate X-Request-ID (design notes §2 hopes it does), so a post
// whose answer was lost (a cut connection, a timeout, a server error after it may have stored
// the event) is never sent again blindly: the marketplace's newest events are read back first,
// and the status is posted again only when it is not among them. Each post carries its request
// id in the description of its `orderId` property (the one property the spec allows), so the
// read-back recognises it exactly, while what people read (description, detailed description)
// stays as they wrote it; a marketplace that drops that description is matched by content.
// That description also names the step the mark was made after (preload/post-reference.ts).
import { postReference, readPostReference } from '../../preload/post-reference';
import type { SellerApiClient } from './api/client';
import { SellerApiError } from './api/errors';
import {
  type MarketplaceEvent,
  type NewMarketplaceEvent,
  ORDER_ID_PROPERTY,
  orderIdOf,
  type PostAnswer,
} from './api/wire';

export interface StatusMark {
  orderId: string;
  statusCode: NewMarketplaceEvent['statusCode'];
  description: string;
  detailedDescription?: string | undefined;
  /** The step of the order the mark was made after (an event's id, or an earlier mark's request id). */
  after?: string | undefined;
}

/** The event a mark posts: `orderId` its only property, naming the post's request id and the step it follows. */
export function eventBody(mark: StatusMark, requestId: string): NewMarketplaceEvent {
  return {
    eventTypeCode: 'ServicePurchased',
    statusCode: mark.statusCode,
    description: mark.description,
    ...(mark.detailedDescription ? { detailedDescription: mark.detailedDescription } : {}),
    additionalProperties: [
      { name: ORDER_ID_PROPERTY, value: mark.orderId, description: postReference(requestId, mark.after) },
    ],
  };
}

const same = (a: string | undefined, b: string | undefined) => (a ?? '').trim() === (b ?? '').trim();

/** Whether a listed event is the one this post made: by its reference, else by what it says. */
export function isPostOf(event: MarketplaceEvent, body: NewMarketplaceEvent, requestId: string): boolean {
  const reference = readPostReference(event)?.requestId;
  if (reference !== undefined) return reference === requestId.toLowerCase();
  const orderId = body.additionalProperties?.[0]?.value;
  return (
    orderIdOf(event)?.toLowerCase() === orderId?.toLowerCase() &&
    event.statusCode === body.statusCode &&
    same(event.description, body.description) &&
    same(event.detailedDescription, body.detailedDescription)
  );
}

/**
 * Whether a listed event shows a mark posted as `requestId`: the event its post was answered with
 * (by its id, within the mark's order: another order's event may have that id), or one that is
 * the post by isPostOf.
 */
export function showsMark(
  event: MarketplaceEvent,
  mark: StatusMark & { requestId: string; eventId?: string | undefined },
): boolean {
  return (
    (mark.eventId !== undefined && event.eventId === mark.eventId && orderIdOf(event) === mark.orderId) ||
    isPostOf(event, eventBody(mark, mark.requestId), mark.requestId)
  );
}

export interface PostingPorts {
  post(body: NewMarketplaceEvent, requestId: string): Promise<PostAnswer>;
  /** The marketplace's events where a post of the last minutes is, newest last. */
  recentEvents(orderId: string): AsyncIterable<readonly MarketplaceEvent[]>;
}

/** Delivered: by this post's answer, or found by the read-back (an earlier post had arrived). */
export interface Delivered extends PostAnswer {
  readBack: boolean;
}

/** Posts and read-backs of one delivery at most: each lost answer costs a read-back and a post. */
const MAX_ROUNDS = 3;

/**
 * Delivers a status once. `tries.mayBePosted` says an earlier try may have reached the
 * marketplace unconfirmed (its answer was lost): the status is then read back before it is
 * posted. It is kept up to date as the delivery goes, so a delivery that fails leaves it saying
 * whether the next one must read back first (the outbox stores it with the item).
 */
export async function postOnce(
  ports: PostingPorts,
  mark: StatusMark,
  requestId: string,
  tries: { mayBePosted?: boolean | undefined },
): Promise<Delivered> {
  const body = eventBody(mark, requestId);
  for (let round = 1; ; round++) {
    if (tries.mayBePosted) {
      const found = await readBack(ports, body, requestId, mark.orderId);
      if (found) return { eventId: found.eventId, event: found, readBack: true };
    }
    try {
      return { ...(await ports.post(body, requestId)), readBack: false };
    } catch (error) {
      const apiError = error instanceof SellerApiError ? error : undefined;
      // A 409 to a post repeated with its request id: the server knows the id, so the first may be there.
      const known = tries.mayBePosted === true && apiError?.status === 409;
      tries.mayBePosted = apiError?.mayHaveBeenCarriedOut === true || known;
      if (!tries.mayBePosted || round >= MAX_ROUNDS) throw error;
    }
  }
}

/** The newest event of the marketplace's recent ones that this post made, if it is there. */
async function readBack(
  ports: PostingPorts,
  body: NewMarketplaceEvent,
  requestId: string,
  orderId: string,
): Promise<MarketplaceEvent | undefined> {
  let found: MarketplaceEvent | undefined;
  for await (const events of ports.recentEvents(orderId)) {
    found = events.findLast((event) => isPostOf(event, body, requestId)) ?? found;
  }
  return found;
}

/** The "all" listing from `offset` (or its start) to its end, page by page: where recent posts are. */
export async function* eventsFrom(
  client: SellerApiClient,
  offset: number,
): AsyncIterable<readonly MarketplaceEvent[]> {
  for await (const page of client.allEvents(Math.max(0, offset))) yield page.items;
}
