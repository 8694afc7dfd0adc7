// The one way the renderer calls the bridge. A bridge may fail by throwing (the HTTP bridge
// throws an Error with a `code`; an error crossing Electron's contextBridge may arrive as a
// plain object or a bare Error) or by resolving to an `Answer` of `{ok: false, error}`.
// A bridge that passes `Answer`s through whole is unwrapped too (`{ok: true, value}`: no
// response type has exactly these two keys). Either way the caller gets a thrown `BridgeCallError` with a `code` and a message for the
// user, so every view handles failures the same way.
import type { AnswerError, Bridge, Channel, RequestOf, Responses } from '../../preload/contract';
import type { Explained } from '../../preload/model';

/** A failed call: `message` for the user, `details` behind "Details", `fields` for a form's inputs. */
export class BridgeCallError extends Error {
  readonly details: string[];
  readonly fields: NonNullable<AnswerError['fields']>;

  constructor(
    readonly code: string,
    message: string,
    details: readonly string[] = [],
    fields: AnswerError['fields'] = [],
  ) {
    super(message);
    this.name = 'BridgeCallError';
    this.details = [...details];
    this.fields = [...fields];
  }
}

export async function call<C extends Channel>(
  bridge: Bridge,
  channel: C,
  payload: RequestOf<C>,
): Promise<Responses[C]> {
  const method = bridge[channel] as unknown as (request: RequestOf<C>) => Promise<unknown>;
  let result: unknown;
  try {
    result = await method.call(bridge, payload);
  } catch (error) {
    throw asBridgeCallError(error);
  }
  if (isFailedAnswer(result)) {
    const { code, message, details, fields } = result.error;
    throw new BridgeCallError(code, message, stringsOf(details), fieldsOf(fields));
  }
  if (isValueAnswer(result)) return result.value as Responses[C];
  return result as Responses[C];
}

/** Any failure as a `BridgeCallError`, its message fit to show. */
export function asBridgeCallError(error: unknown): BridgeCallError {
  if (error instanceof BridgeCallError) return error;
  if (typeof error === 'object' && error !== null) {
    const { code, message, details, fields } = error as Record<string, unknown>;
    if (typeof message === 'string' && message !== '') {
      return new BridgeCallError(
        typeof code === 'string' ? code : 'internal',
        message,
        stringsOf(details),
        fieldsOf(fields),
      );
    }
  }
  if (typeof error === 'string' && error !== '') return new BridgeCallError('internal', error);
  return new BridgeCallError('internal', 'Something went wrong, and the app could not say what.');
}

/** A failure as an `ErrorAlert` shows it: the message, and the details behind "Details". */
export function explained(error: unknown): Explained {
  const { message, details } = asBridgeCallError(error);
  return { message, details };
}

/** The strings of a `details` list that crossed the bridge; anything else is dropped. */
function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function fieldsOf(value: unknown): NonNullable<AnswerError['fields']> {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is { field: string; message: string } =>
      typeof v?.field === 'string' && typeof v?.message === 'string',
  );
}

/**
 * `{ok: false, error: {code, message}}`. A `ConnectionTest` that failed is `{ok: false, reason,
 * message}`, an answer rather than an error: it has no `error` object, so it is not matched here.
 */
function isFailedAnswer(value: unknown): value is { ok: false; error: AnswerError } {
  if (typeof value !== 'object' || value === null) return false;
  const { ok, error } = value as { ok?: unknown; error?: unknown };
  if (ok !== false || typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && typeof message === 'string';
}

function isValueAnswer(value: unknown): value is { ok: true; value: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && (value as { ok?: unknown }).ok === true && keys.includes('value');
}
