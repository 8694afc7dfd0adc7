// Why the CLI did not do what it was asked, as its exit status tells it (docs/cli.md): a
// usage error (exit 2) is in the command itself, whatever the marketplace holds; a
// refusal (exit 1, like a failed call) comes from what the marketplace holds, read before
// anything was posted.
import { CodedError } from '../../preload/coded-error';
import type { AsideItem } from '../core/kept-aside';

/** Worded for people, as every CodedError: a poll that meets one (no secret for `watch`) tells it as it is. */
export class UsageError extends CodedError<'usage'> {
  /** `usage`: the usage printed after the message, where the whole help would bury it (one command's). */
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super('usage', message);
  }
}

/** The kinds of refusal, named in `--json`'s error object for scripts. */
export type RefusalCode =
  | 'unusual-transition'
  | 'same-status'
  | 'no-such-order'
  | 'ambiguous-order-id'
  | 'too-many-orders'
  /** A flag or variable that would change what the organization's policies lock. */
  | 'managed'
  | 'undelivered-statuses'
  /** The account is open in another Seller Tray process (the app, `seller-tray run`). */
  | 'in-use'
  /** Another removal under way on this computer did not end within the wait: try again. */
  | 'being-removed'
  /** The file removals take turns on cannot be used (unwritable, or damaged past repair): see the message. */
  | 'lock-unusable'
  /** A removal failed once the account's data was deleted: run it again to finish it. */
  | 'removal-unfinished';

/** Refused given what the marketplace holds; nothing was posted. `details` are lines under the sentence. */
export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }

  /** What the command read that could not be read: a refusal rests on the rest, so it is told too. */
  unread: { aside: readonly AsideItem[]; ofUnknownOrder: readonly AsideItem[] } = {
    aside: [],
    ofUnknownOrder: [],
  };
}
