// What a person's mark of a status posts, for the app (service.ts) and the CLI alike: who
// marked it (the "Your name" setting, else this computer's account) written into the
// description before the user's own words (preload/marked-by.ts); the detailed description as
// given. The mark itself is checked first as the bridge checks it (bridge-requests.ts).
import { CodedError } from '../../preload/coded-error';
import { describeMark } from '../../preload/marked-by';
import { type UnusualMark, unusualMarkText } from '../../preload/order-status';
import type { CheckedRequest } from './bridge-requests';
import type { MarkRequest } from './seller-core';

/**
 * A mark the order's history makes unusual: a person confirms it (`override`) or leaves it; an
 * automation cannot, so its runner words `unusual` its own way.
 */
export class TransitionError extends CodedError<'unusual-transition'> {
  constructor(readonly unusual: UnusualMark) {
    super('unusual-transition', `${unusualMarkText(unusual)}; confirm to do it anyway.`);
  }
}

/** Who this laptop's marks are by: the settings' "Your name", else the computer account's name. */
export function markActor(actorName: string, accountName: () => string): string {
  return actorName !== '' ? actorName : accountName();
}

/** The mark as posted: "Provisioning started by Anna Virtanen.", the user's words after a colon. */
export function signedMark(mark: CheckedRequest<'markStatus'>, actor: string): MarkRequest {
  return { ...mark, description: describeMark(mark.statusCode, actor, mark.description) };
}
