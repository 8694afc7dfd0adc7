// The one way the renderer calls the bridge, and the one place its `Answer`s are unwrapped: the
// value, or a thrown `CodedError` with the main process's code, message, details and fields, so
// every view handles failures the same way. Every bridge resolves to an `Answer` (preload/contract.ts).
import { CodedError } from '../../preload/coded-error';
import type { Bridge, Channel, RequestOf, Responses } from '../../preload/contract';
import type { Explained } from '../../preload/model';

export async function call<C extends Channel>(
  bridge: Bridge,
  channel: C,
  payload: RequestOf<C>,
): Promise<Responses[C]> {
  // TypeScript cannot call a method of a mapped type through a generic key; the contract holds them together.
  const method = bridge[channel] as unknown as (request: RequestOf<C>) => ReturnType<Bridge[C]>;
  const answer = await method.call(bridge, payload);
  if (answer.ok) return answer.value as Responses[C];
  throw CodedError.of(answer.error);
}

/** Any failure as a `CodedError`, its message fit to show (a view's own code may throw anything). */
export function asCodedError(error: unknown): CodedError {
  if (error instanceof CodedError) return error;
  if (error instanceof Error && error.message !== '') return new CodedError('internal', error.message);
  if (typeof error === 'string' && error !== '') return new CodedError('internal', error);
  return new CodedError('internal', 'Something went wrong, and the app could not say what.');
}

/** A failure as an `ErrorAlert` shows it: the message, and the details behind "Details". */
export function explained(error: unknown): Explained {
  const { message, details, retryAt } = asCodedError(error);
  return { message, details, retryAt };
}
