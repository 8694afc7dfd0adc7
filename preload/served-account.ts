// The one decision whether the app names an order's account (its order page, Copy link, links a
// notification copies, the inbox's rows and its filter by account) and shows each account's state
// (the header, the tray): only while it serves more than one account, for one is never ambiguous.
import type { AccountState } from './contract';

/** The accounts served, while there are more than one (each then shown by name); else none. */
export function servedAccounts(accounts: readonly AccountState[]): readonly AccountState[] {
  const served = accounts.filter((account) => account.open);
  return served.length > 1 ? served : [];
}

/** The order's account, to be named, while more than one account is served; else undefined. */
export function namedAccount(
  accounts: readonly AccountState[],
  accountId: string | undefined,
): AccountState | undefined {
  return servedAccounts(accounts).find((account) => account.id === accountId);
}
