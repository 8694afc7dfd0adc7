// The one decision whether the app names an order's account (its order page, Copy link, links a
// notification copies): only while it serves more than one account, for one is never ambiguous.
import type { AccountState } from './contract';

/** The order's account, to be named, while more than one account is served; else undefined. */
export function namedAccount(
  accounts: readonly AccountState[],
  accountId: string | undefined,
): AccountState | undefined {
  const served = accounts.filter((account) => account.open);
  return served.length > 1 ? served.find((account) => account.id === accountId) : undefined;
}
