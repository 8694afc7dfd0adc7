// The one error class with a code: what the main process refuses a request with, what crosses the
// bridge as an `Answer`'s error, and what the window's `call` throws. `message` is for people
// (what happened, what to do); `code` is for the program ('invalid-input', 'unusual-transition', …).
// Plain, importing nothing: every process may use it.

/** A failure as it crosses the bridge (the `error` of a failed `Answer`, preload/contract.ts). */
export interface AnswerError {
  code: string;
  message: string;
  /** The technical facts (operation, HTTP status, request id) for a "Details" disclosure. */
  details?: string[];
  /** The settings a refused change got wrong, each with its own message. */
  fields?: { field: string; message: string }[];
  /** When Seller Tray tries again by itself (ISO time), for a failure it retries on its own (an order's fetch). */
  retryAt?: string;
}

export class CodedError<Code extends string = string> extends Error {
  readonly details: string[];
  readonly fields: { field: string; message: string }[];
  readonly retryAt: string | undefined;

  constructor(
    readonly code: Code,
    message: string,
    { details = [], fields = [], retryAt }: Pick<AnswerError, 'details' | 'fields' | 'retryAt'> = {},
  ) {
    super(message);
    this.name = 'CodedError';
    this.details = [...details];
    this.fields = [...fields];
    this.retryAt = retryAt;
  }

  /** As it crosses the bridge: plain data, empty lists left out. */
  toAnswerError(): AnswerError {
    return {
      code: this.code,
      message: this.message,
      ...(this.details.length > 0 ? { details: this.details } : {}),
      ...(this.fields.length > 0 ? { fields: this.fields } : {}),
      ...(this.retryAt === undefined ? {} : { retryAt: this.retryAt }),
    };
  }

  /** An `Answer`'s error back as a thrown error. */
  static of({ code, message, details, fields, retryAt }: AnswerError): CodedError {
    return new CodedError(code, message, {
      details: details ?? [],
      fields: fields ?? [],
      ...(retryAt === undefined ? {} : { retryAt }),
    });
  }
}
