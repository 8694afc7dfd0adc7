// What Save does with a connection test's outcome: save when the marketplace took the
// credentials; refuse when it rejected them or the address cannot work (nothing is saved); and
// only when it could not be reached at all, offer to save without the check, saying so.
import type { ConnectionTest } from '../preload/contract';

export type SaveVerdict = 'save' | 'offer-unchecked' | 'refuse';

export function saveVerdict(test: ConnectionTest): SaveVerdict {
  if (test.ok) return 'save';
  return test.reason === 'unreachable' ? 'offer-unchecked' : 'refuse';
}

/** Why "Save anyway" is offered: the check could not be made, and what happens after. */
export const UNCHECKED_OFFER =
  'The marketplace could not be reached, so the secret could not be checked. You can save anyway: Seller Tray keeps trying and says so if the marketplace rejects it.';
