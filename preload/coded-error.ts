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
}

export class CodedError<Code extends string = string> extends Error {
  readonly details: string[];
  readonly fields: { field: string; message: string }[];

  constructor(
    readonly code: Code,
    message: string,
    { details = [], fields = [] }: Pick<AnswerError, 'details' | 'fields'> = {},
  ) {
    super(message);
    this.name = 'CodedError';
    this.details = [...details];
    this.fields = [...fields];
  }

  /** As it crosses the bridge: plain data, empty lists left out. */
  toAnswerError(): AnswerError {
    return {
      code: this.code,
      message: this.message,
      ...(this.details.length > 0 ? { details: this.details } : {}),
      ...(this.fields.length > 0 ? { fields: this.fields } : {}),
    };
  }

  /** An `Answer`'s error back as a thrown error. */
  static of({ code, message, details, fields }: AnswerError): CodedError {
    return new CodedError(code, message, { details: details ?? [], fields: fields ?? [] });
  }
}
