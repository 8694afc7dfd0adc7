// The one decision whether the app names an order's account (its order page, Copy link, links a
// notification copies, the inbox's rows and its filter by account): only while it serves more than
// one account, for one is never ambiguous.
import type { AccountState } from './contract';

/** The served accounts, while more than one is served (each then named); else none. */
export function namedAccounts(accounts: readonly AccountState[]): AccountState[] {
  const served = accounts.filter((account) => account.open);
  return served.length > 1 ? served : [];
}

/** The order's account, to be named, while more than one account is served; else undefined. */
export function namedAccount(
  accounts: readonly AccountState[],
  accountId: string | undefined,
): AccountState | undefined {
  return namedAccounts(accounts).find((account) => account.id === accountId);
}
