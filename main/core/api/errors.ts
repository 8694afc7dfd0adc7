// The one error type of Seller API calls. It carries what a person needs to act (the
// operation, the server's code and description, the request id for support) and never a
// secret or token: messages are built from these fields only. Every shape of error answer
// is read here, in one place (`serverWords`).
import { capped, plainText } from '../../../preload/marketplace-text';

/**
 * http: the server answered with an error status; network: no answer (refused, reset,
 * dropped, cut body); timeout: no answer in time; tls: the certificate was refused;
 * schema: the answer is not what the API promises; too-large: the answer is longer than the
 * client reads (MAX_ANSWER_BYTES), so it was not read; config: the call could not be made
 * as configured (bad base URL).
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'tls' | 'schema' | 'too-large' | 'config';

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  operation: string;
  requestId?: string | undefined;
  status?: number | undefined;
  errorCode?: string | undefined;
  description?: string | undefined;
  detailedDescription?: string | undefined;
  /** Seconds the server asked to wait (429, 503). */
  retryAfterSeconds?: number | undefined;
  /** For schema errors: where in the answer the violation is. */
  fieldPath?: string | undefined;
  /** The fields the server named as wrong, with its reasons. */
  fields?: FieldProblem[] | undefined;
  /** For too-large: the start of the answer as it came (none when its Content-Length said so first). */
  answerStart?: string | undefined;
  cause?: unknown;
}

export class SellerApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly operation: string;
  readonly requestId: string | undefined;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly description: string | undefined;
  readonly detailedDescription: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly fieldPath: string | undefined;
  readonly fields: FieldProblem[];
  readonly answerStart: string | undefined;
  /** What went wrong, without the operation and request id the message wraps it in. */
  readonly summary: string;

  constructor(details: ApiErrorDetails, summary: string) {
    super(
      `${details.operation}: ${summary}${details.requestId ? ` (request id ${details.requestId})` : ''}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = 'SellerApiError';
    this.kind = details.kind;
    this.operation = details.operation;
    this.requestId = details.requestId;
    this.status = details.status;
    this.errorCode = details.errorCode;
    this.description = details.description;
    this.detailedDescription = details.detailedDescription;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.fieldPath = details.fieldPath;
    this.fields = details.fields ?? [];
    this.answerStart = details.answerStart;
    this.summary = summary;
  }

  /** The client id and secret were refused: retrying cannot help until they change. */
  get credentialsRejected(): boolean {
    return this.operation === 'createToken' && this.status === 401;
  }

  /** A failure that may pass by itself: no answer, a server error, or a rate limit. */
  get transient(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'timeout' ||
      (this.kind === 'http' && (this.status === 429 || (this.status ?? 0) >= 500))
    );
  }

  /**
   * The server may have carried the call out though no answer said so: the answer was lost (a
   * cut connection, a timeout) or was a server error. Not when the request never left (refused
   * connection, unknown host) or was turned away unhandled (429).
   */
  get mayHaveBeenCarriedOut(): boolean {
    if (this.kind === 'timeout') return true;
    if (this.kind === 'http') return (this.status ?? 0) >= 500;
    return this.kind === 'network' && !causedBy(this.cause, NOT_SENT);
  }

  /** Nothing listens at the address (a marketplace down, a wrong port): the connection was refused. */
  get connectionRefused(): boolean {
    return this.kind === 'network' && causedBy(this.cause, REFUSED);
  }

  /**
   * Refused as not allowed (403): the client repeats a call once with a fresh token before it
   * fails so (a gateway may answer 403 for a token it let lapse early), so this client lacks a
   * permission.
   */
  get permissionRefused(): boolean {
    return this.kind === 'http' && this.status === 403 && this.operation !== 'createToken';
  }

  /** The fields, for machine-readable output (no stack, no cause). */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      operation: this.operation,
      status: this.status,
      errorCode: this.errorCode,
      description: this.description,
      detailedDescription: this.detailedDescription,
      requestId: this.requestId,
      fieldPath: this.fieldPath,
      ...(this.fields.length > 0 ? { fields: this.fields } : {}),
      message: this.message,
    };
  }
}

/** Connection failures that happen before a request is sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
const REFUSED = new Set(['ECONNREFUSED']);

/** Whether an error, or one of its causes, has one of `codes`. */
function causedBy(cause: unknown, codes: ReadonlySet<string>): boolean {
  for (let e: unknown = cause; e instanceof Error; e = e.cause) {
    if (codes.has((e as NodeJS.ErrnoException).code ?? '')) return true;
  }
  return false;
}

// --- What a server said, whatever the shape of its error answer ---------------------------------

/** One field a server named as wrong, with its reason in the server's words. */
export interface FieldProblem {
  field: string;
  reason: string;
}

/** The words of an error answer: the spec's three fields, and each field the server named. */
export interface ServerWords {
  errorCode?: string | undefined;
  description?: string | undefined;
  detailedDescription?: string | undefined;
  fields: FieldProblem[];
}

/** The longest excerpt of a text answer, and of each word field, an error keeps. */
const EXCERPT_MAX = 200;
const WORDS_MAX = 300;
/** Fields named one by one; a server listing more is summed up by the first ones. */
const FIELDS_MAX = 10;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Plain, bounded text from a string or number; anything else says nothing. */
function said(value: unknown, max = WORDS_MAX): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = capped(plainText(String(value)), max);
  return text === '' ? undefined : text;
}

const firstSaid = (...values: unknown[]): string | undefined =>
  values.map((value) => said(value)).find((text) => text !== undefined);

/**
 * Reads every shape of error answer we know servers and gateways write, into one form:
 * the spec's `{errorCode, description, detailedDescription}`; a gateway's `{"message": …}`
 * (`Message` too); OAuth's `{error, error_description}`; `{error: {code, message}}`; Apigee's
 * `{fault: {faultstring, detail: {errorcode}}}`; problem
 * details (RFC 9457: `title`, `detail`, and the fields named in `invalid-params` or `errors`);
 * ASP.NET's validation `errors` map of field names to messages; or a text or HTML page, of
 * which a short plain excerpt is kept.
 */
export function serverWords(body: unknown): ServerWords {
  if (typeof body === 'string') {
    const withoutMarkup = body.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
    return { description: said(withoutMarkup, EXCERPT_MAX), fields: [] };
  }
  if (!isObject(body)) return { fields: [] };
  // {"error": {"code", "message"}} (Google, Azure), or Apigee's {"fault": {"faultstring", "detail": {"errorcode"}}}.
  const nested = isObject(body.error) ? body.error : isObject(body.fault) ? body.fault : {};
  const errorCode = firstSaid(
    body.errorCode,
    body.code,
    typeof body.error === 'string' ? body.error : undefined,
    nested.code,
    isObject(nested.detail) ? nested.detail.errorcode : undefined,
  );
  const description = firstSaid(
    body.description,
    body.title,
    body.message,
    body.Message,
    body.error_description,
    nested.message,
    nested.faultstring,
  );
  const detailed = [body.detailedDescription, body.detail, body.error_description, nested.details]
    .map((value) => said(value))
    .find((text) => text !== undefined && text !== description);
  return {
    errorCode,
    description,
    detailedDescription: detailed,
    fields: [body['invalid-params'], body.errors, body.violations]
      .flatMap(fieldProblems)
      .slice(0, FIELDS_MAX),
  };
}

/**
 * The fields a server named: a list of `{name|field|pointer|parameter, reason|message|detail}`
 * (problem details' `invalid-params` and `errors`, Zalando's `violations`), or a map of field names to a message or a
 * list of messages (ASP.NET). A field named as a JSON pointer or path reads as a dotted name.
 */
function fieldProblems(value: unknown): FieldProblem[] {
  const named = (field: unknown, reasons: unknown): FieldProblem[] => {
    const name =
      said(field, 100)
        ?.replace(/^[#$]?[./]?/, '')
        .replaceAll('/', '.') ?? '';
    const words = (Array.isArray(reasons) ? reasons : [reasons]).map((r) => said(r)).filter(Boolean);
    return words.length === 0 ? [] : [{ field: name, reason: words.join('; ') }];
  };
  if (Array.isArray(value)) {
    return value.flatMap((item) =>
      isObject(item)
        ? named(
            item.name ??
              item.field ??
              item.pointer ??
              item.parameter ??
              (isObject(item.source) ? item.source.pointer : ''),
            item.reason ?? item.message ?? item.detail ?? item.description,
          )
        : named('', item),
    );
  }
  return isObject(value) ? Object.entries(value).flatMap(([field, reasons]) => named(field, reasons)) : [];
}

/** The server's words as one line: "BadRequest: Invalid request (limit too big); limit: at most 50". */
export function wordsLine(words: ServerWords): string {
  const fields = words.fields.map(({ field, reason }) => (field ? `${field}: ${reason}` : reason));
  return [
    [
      words.errorCode && `${words.errorCode}:`,
      words.description,
      words.detailedDescription && `(${words.detailedDescription})`,
    ]
      .filter(Boolean)
      .join(' '),
    ...fields,
  ]
    .filter(Boolean)
    .join('; ');
}

/** An answer with an error status, as an error that keeps what the server said, whatever its shape. */
export function httpError(
  at: Pick<ApiErrorDetails, 'operation' | 'requestId'>,
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
): SellerApiError {
  const words = serverWords(body);
  const line = wordsLine(words);
  return new SellerApiError(
    { ...at, kind: 'http', status, retryAfterSeconds, ...words },
    `HTTP ${status}${line ? `${typeof body === 'string' ? ':' : ''} ${line}` : ''}`,
  );
}
