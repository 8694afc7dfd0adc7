// The labels of the accounts served (served-account.ts decides which: none while one is), by id
// in the list's order: the same Map while they are the same, so what shows them (the inbox's rows
// and its filter) draws again when one is renamed, added or closed, not at each poll's state,
// which carries every account's last poll.
import { useMemo } from 'react';
import type { AccountState } from '../../preload/contract';
import { servedAccounts } from '../../preload/served-account';

export function useAccountLabels(accounts: readonly AccountState[] | undefined): ReadonlyMap<string, string> {
  const served = JSON.stringify(servedAccounts(accounts ?? []).map(({ id, label }) => [id, label]));
  return useMemo(() => new Map(JSON.parse(served) as [string, string][]), [served]);
}
