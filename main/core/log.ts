// The core's log, for support: every failed call with its operation, HTTP status and request id,
// each poll's outcome, each delivery and each announcement. A port: the app and the preview write
// a file (main/file-log.ts), the CLI writes stderr with --verbose, and the default says nothing.
// Entries are a message and fields the caller chose, flat values only (never a request, its
// headers or a body); each line is made safe here, in one place: a server's words cannot forge a
// line (controls escaped), and anything shaped like a credential is removed.
import { capped, escapedControls } from '../../preload/marketplace-text';
import { SellerApiError } from './api/errors';

export type LogValue = string | number | boolean | null | undefined;
export type LogFields = Readonly<Record<string, LogValue>>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = keyof Log;

export const silentLog: Log = { info() {}, warn() {}, error() {} };

/** The longest value a line keeps: a server's description is for reading, not for archiving. */
const VALUE_MAX = 300;

/**
 * An Authorization value ("Bearer …", "Basic …") or a JWT, wherever it hides (a server may echo
 * a header in its error words): removed whole, scheme included.
 */
const CREDENTIALS = /\b(?:Bearer|Basic)\s+[^\s"]+|\beyJ[\w-]*\.[\w-]+\.[\w-]*/gi;
export const CREDENTIALS_REMOVED = '[credentials removed]';

/** `message key=value …`: a value with spaces, quotes or `=` in JSON quotes; absent values left out. */
export function logLine(message: string, fields: LogFields = {}): string {
  const parts = [message];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = capped(String(value), VALUE_MAX);
    parts.push(`${key}=${/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`);
  }
  return escapedControls(parts.join(' ')).replace(CREDENTIALS, CREDENTIALS_REMOVED);
}

/** A log that writes each entry as one line, its level first (the CLI's stderr, tests). */
export function lineLog(write: (line: string) => void): Log {
  const at = (level: LogLevel) => (message: string, fields?: LogFields) =>
    write(`${level} ${logLine(message, fields)}`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

/** What support needs of a failure: for a call, its operation, HTTP status and request id. */
export function failureFields(error: unknown): LogFields {
  if (!(error instanceof SellerApiError)) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
  return {
    operation: error.operation,
    status: error.status,
    requestId: error.requestId,
    kind: error.kind,
    errorCode: error.errorCode,
    reason: error.summary,
  };
}
