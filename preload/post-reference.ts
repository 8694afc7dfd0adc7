// How a status Seller Tray posts names itself, and the step of its order it was marked after, in
// the description of its `orderId` property (the one property the spec allows):
// "Seller Tray request <request id> after <id>". The request id lets a read-back recognise the
// post exactly (main/core/status-post.ts). The id after it names what the order's status came
// from when the person marked it (an event's id, or an earlier mark's request id while that mark
// was not in the history yet): every laptop then counts the status after that step, whatever the
// clocks that stamped the two say (causalOrder). Written and read here only.
import { canonicalOrderId } from './order-link';

const REFERENCE = 'Seller Tray request ';
const AFTER = ' after ';

/** What a post's reference says: its request id, and the step it was marked after, if it names one. */
export interface PostReference {
  requestId: string;
  after?: string | undefined;
}

/**
 * A step's id as a post may name it: printable, no spaces, and short (a UUID is 36 characters). A
 * marketplace's id of another kind is not named (the post then counts by its time, as any other
 * status does): a long one would swell every post, and a space would misread the reference.
 */
const NAMEABLE = /^[\x21-\x7e]{1,64}$/;

/** The reference a post carries. */
export function postReference(requestId: string, after: string | undefined): string {
  return `${REFERENCE}${requestId}${after !== undefined && NAMEABLE.test(after) ? `${AFTER}${after}` : ''}`;
}

/** The reference an event carries as a post of Seller Tray's, if it carries one. */
export function readPostReference(event: {
  additionalProperties?: readonly { description?: string | undefined }[] | undefined;
}): PostReference | undefined {
  const said = event.additionalProperties
    ?.map((property) => property.description)
    .find((description) => description?.startsWith(REFERENCE));
  if (said === undefined) return undefined;
  const [requestId = '', after] = said.slice(REFERENCE.length).split(AFTER);
  return {
    requestId: canonicalOrderId(requestId).toLowerCase(),
    ...(after?.trim() ? { after: canonicalOrderId(after) } : {}),
  };
}
