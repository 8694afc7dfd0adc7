// The banner for what keeps the app from reading the marketplace, in words (main/core/failure-words.ts):
// the account's problem; serving several accounts, each account's own, named, so one account down
// is told as that account's and no other's.
import type { AppState } from '../../preload/contract';
import { servedAccounts } from '../../preload/served-account';
import { ErrorAlert } from './ErrorAlert';

export function ConnectionProblems({ state }: { state: AppState }) {
  const accounts = servedAccounts(state.accounts);
  if (accounts.length === 0) return <ErrorAlert problem={state.problem} />;
  return accounts.map(
    (account) =>
      account.problem && (
        <ErrorAlert
          key={account.id}
          problem={{ ...account.problem, message: `${account.label}: ${account.problem.message}` }}
        />
      ),
  );
}
