// The one error type of Seller API calls. It carries what a person needs to act (the
// operation, the server's code and description, the request id for support) and never a
// secret or token: messages are built from these fields only.

/**
 * http: the server answered with an error status; network: no answer (refused, reset,
 * dropped, cut body); timeout: no answer in time; tls: the certificate was refused;
 * schema: the answer is not what the API promises; config: the call could not be made
 * as configured (bad base URL).
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'tls' | 'schema' | 'config';

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
      message: this.message,
    };
  }
}
