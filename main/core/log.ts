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
 * Credentials, wherever they hide (a marketplace or a gateway may echo a request's header or
 * form in its error words): an Authorization header's value whatever its scheme, a "Bearer …" or
 * "Basic …" value, a JWT, and the value of a client_secret, token or password field. Each is
 * removed whole, its scheme or key included.
 */
const CREDENTIALS = new RegExp(
  [
    // Quotes may come escaped (a log line quotes values as JSON): `authorization\": \"…`.
    String.raw`\b(?:proxy-)?authorization\b[\\"']*\s*[:=]\s*[\\"']*(?:\w+\s+)?[^\s"'\\,;]+`,
    String.raw`\b(?:Bearer|Basic)\s+[^\s"'\\,;]+`,
    String.raw`\b(?:client_secret|access_token|refresh_token|id_token|password)\b[\\"']*\s*[:=]\s*[\\"']*[^\s"'\\&,;]+`,
    String.raw`\beyJ[\w-]*\.[\w-]+\.[\w-]*`,
  ].join('|'),
  'gi',
);
export const CREDENTIALS_REMOVED = '[credentials removed]';
/** Shorter known values are not looked for: they would cut up ordinary words. */
const KNOWN_MIN = 4;

/**
 * The text without credentials: the one scrub of the log and of the diagnosis report. `known`:
 * values the caller sent as credentials (a secret, a token), removed wherever they appear, as
 * they are or percent-encoded, even without a key or scheme that gives them away.
 */
export function withoutCredentials(text: string, known: Iterable<string> = []): string {
  let scrubbed = text;
  for (const value of known) {
    if (value.length < KNOWN_MIN) continue;
    for (const form of new Set([value, encodeURIComponent(value)])) {
      scrubbed = scrubbed.replaceAll(form, CREDENTIALS_REMOVED);
    }
  }
  return scrubbed.replace(CREDENTIALS, CREDENTIALS_REMOVED);
}

/**
 * What an Authorization value gives away, for `withoutCredentials`' known values: the value, its
 * credential after the scheme, and for Basic the secret it encodes.
 */
export function credentialsIn(authorization: string | null | undefined): string[] {
  if (!authorization) return [];
  const [scheme = '', credential = ''] = authorization.split(/\s+/, 2);
  if (scheme.toLowerCase() !== 'basic') return [authorization, credential];
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  return [authorization, credential, decoded.slice(decoded.indexOf(':') + 1)];
}

/** `message key=value …`: a value with spaces, quotes or `=` in JSON quotes; absent values left out. */
export function logLine(message: string, fields: LogFields = {}): string {
  const parts = [message];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = capped(String(value), VALUE_MAX);
    parts.push(`${key}=${/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`);
  }
  return withoutCredentials(escapedControls(parts.join(' ')));
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
