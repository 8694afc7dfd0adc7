// What went wrong, for people: one sentence that says what happened and what to do, and the
// technical detail (operation, HTTP status, the server's words, request id) as separate lines
// for a "Details" disclosure, a support ticket or the CLI's stderr. One place, so the header,
// banners, bridge answers and the CLI say the same thing about the same failure.

import { CodedError } from '../../preload/coded-error';
import { capped, plainText } from '../../preload/marketplace-text';
import type { Explained, FailureKind } from '../../preload/model';
import { type Advice, capitalized } from './advice';
import { SellerApiError } from './api/errors';
import { PaginationError } from './api/pagination';
import { FolderOfAnotherUserError } from './paths';
import { KeychainUnavailableError } from './secrets';
import { StoreVersionError, sqliteCode } from './store/database';

export function failureKind(error: unknown): FailureKind {
  if (!(error instanceof SellerApiError)) return 'failing';
  if (error.credentialsRejected) return 'credentials-rejected';
  if (error.kind === 'network' || error.kind === 'timeout') return 'offline';
  if (error.kind === 'http' && (error.status === 429 || (error.status ?? 0) >= 500)) return 'server-problem';
  return 'failing';
}

/** What to do about a failure that lasts: the diagnosis, for the marketplace's support. */
const diagnoseAdvice = (advice: Advice): string =>
  `If it lasts, ${advice.diagnose} and send the result to the marketplace.`;

/** The sentence for a failure of an API call, by what kind of failure it is. */
function sentence(error: SellerApiError, advice: Advice): string {
  const lasting = diagnoseAdvice(advice);
  if (error.credentialsRejected || (error.kind === 'http' && error.status === 401)) {
    return `The marketplace rejected the client id or secret. ${capitalized(advice.enterSecret)}.`;
  }
  switch (error.kind) {
    case 'network':
      return `The marketplace could not be reached. Check your internet connection (and VPN, if you use one); ${advice.oneTry ?? 'Seller Tray keeps trying'}.`;
    case 'timeout':
      return `The marketplace did not answer in time${advice.oneTry ? `; ${advice.oneTry}` : '. Seller Tray tries again by itself'}.`;
    case 'tls':
      return `The marketplace's security certificate was refused, so Seller Tray did not connect. ${capitalized(advice.checkBaseUrl)}, or ask your IT team about the certificate.`;
    case 'config':
      return `Seller Tray could not call the marketplace at the account's address. ${capitalized(advice.checkBaseUrl)}. ${lasting}`;
    case 'schema':
      return `The marketplace answered in a form Seller Tray cannot read. ${lasting}`;
    case 'too-large':
      // Only an order's own answer is one among others read as usual; a sign-in's stops everything.
      return error.operation === 'getOrder'
        ? `The marketplace's answer for this order is larger than Seller Tray reads, so it was not read; the rest is read as usual. ${lasting}`
        : `The marketplace's answer is larger than Seller Tray reads, so it was not read. ${lasting}`;
    case 'http':
      break;
  }
  const status = error.status ?? 0;
  if (status === 429)
    return `The marketplace asked Seller Tray to slow down${advice.oneTry ? `; ${advice.oneTry}` : '. It tries again later by itself'}.`;
  if (status >= 500) {
    return `The marketplace is having problems (a server error)${advice.oneTry ? `; ${advice.oneTry}` : '. Seller Tray keeps trying'}; nothing you marked is lost.`;
  }
  if (status === 404) {
    return error.operation === 'getOrder'
      ? 'The marketplace does not know this order (it may belong to another seller account).'
      : `The marketplace has no such operation at this address: the account's base URL (its path) is probably wrong. ${capitalized(advice.checkBaseUrl)}: compare it with what the marketplace gave you. ${lasting}`;
  }
  if (error.permissionRefused) {
    return `The marketplace does not allow this API client to ${ACTIONS[error.operation] ?? 'do this'}, also with a fresh sign-in${quoted(error)}. Ask whoever manages your Seller Console to give the client that permission, or ${advice.anotherClient}.`;
  }
  if (error.operation === 'sendEvent') {
    return `The marketplace refused this status, so it is not recorded there${quoted(error)}. Copy the details for the marketplace's support; send it again once the cause is fixed.`;
  }
  return `The marketplace refused Seller Tray's request. ${lasting}`;
}

/** What each operation does, for saying what the marketplace did not allow. */
const ACTIONS: Readonly<Record<string, string>> = {
  listNewEvents: 'read new events',
  listEvents: 'read events',
  sendEvent: 'post order statuses',
  listOrders: 'read orders',
  getOrder: 'read this order',
  listLicenses: 'read licenses',
  getLicense: 'read this license',
};

/** The server's own words, short, for the sentence itself (where they name what to fix). */
function quoted(error: SellerApiError): string {
  const said = error.fields.length > 0 ? fieldsSaid(error) : (error.detailedDescription ?? error.description);
  return said ? ` (it said: “${capped(plainText(said), 160)}”)` : '';
}

const fieldsSaid = (error: SellerApiError): string =>
  error.fields.map(({ field, reason }) => (field ? `${field}: ${reason}` : reason)).join('; ');

/** The server's words and the facts support needs, a line each. */
function apiDetails(error: SellerApiError): string[] {
  const said = [error.description, error.detailedDescription]
    .filter((text): text is string => !!text)
    .map((text) => capped(plainText(text), 300))
    .join(' — ');
  return [
    `Operation: ${error.operation}`,
    ...(error.status === undefined
      ? []
      : [
          `HTTP status: ${error.status}${error.errorCode ? ` ${capped(plainText(error.errorCode), 60)}` : ''}`,
        ]),
    ...(said ? [`The marketplace said: ${said}`] : []),
    ...error.fields.map(({ field, reason }) =>
      field ? `Field ${capped(plainText(field), 100)}: ${capped(plainText(reason), 300)}` : `Also: ${reason}`,
    ),
    ...(error.fieldPath ? [`Field: ${error.fieldPath}`] : []),
    ...(error.requestId ? [`Request id: ${error.requestId}`] : []),
    `Message: ${error.message}`,
  ];
}

/** `advice`: worded for the surface the message is read on (advice.ts). */
export function explainFailure(error: unknown, advice: Advice): Explained {
  if (error instanceof SellerApiError)
    return { message: sentence(error, advice), details: apiDetails(error) };
  if (error instanceof KeychainUnavailableError) {
    return { message: error.advice, details: [`Keychain error: ${error.reason}`] };
  }
  // Worded for people already (preload/coded-error.ts): told once, as it is.
  if (error instanceof CodedError) return { message: error.message, details: error.details };
  const text = error instanceof Error ? error.message : String(error);
  // Its own words name the file and say what to do.
  if (error instanceof StoreVersionError) return { message: text, details: [] };
  if (error instanceof FolderOfAnotherUserError)
    return { message: text, details: [`Folder: ${error.folder}`, `Its owner's user id: ${error.owner}`] };
  if (error instanceof PaginationError) {
    return {
      message: `The marketplace's lists did not page as expected, so Seller Tray could not read them whole. ${diagnoseAdvice(advice)}`,
      details: [`Message: ${text}`],
    };
  }
  const file = fileFailure(error);
  if (file) {
    return {
      message: (FILE_WORDS[file.code] ?? FILE_TROUBLE)(advice),
      details: [`Error code: ${file.code}`, `File operation: ${file.syscall}`, `Message: ${text}`],
    };
  }
  const store = storeFailure(error);
  if (store) {
    return { message: SQLITE_WORDS[store](advice), details: [`Error code: ${store}`, `Message: ${text}`] };
  }
  return { message: `Something went wrong: ${capped(plainText(text), 300)}`, details: [`Message: ${text}`] };
}

type Worded = (advice: Advice) => string;
const NOT_ALLOWED: Worded = (advice) =>
  `Seller Tray is not allowed to write its files on this computer. Check that its folder belongs to you and is writable, then try again; if it stays, ${advice.sendLog}.`;
const FULL: Worded = () =>
  'The disk is full, so Seller Tray could not save its files. Free some space, then try again.';

/** This computer's own files (settings, the store, the log) could not be read or written. */
const FILE_WORDS: Readonly<Record<string, Worded>> = {
  ENOSPC: FULL,
  EDQUOT: FULL,
  EACCES: NOT_ALLOWED,
  EPERM: NOT_ALLOWED,
  EROFS: (advice) =>
    `Seller Tray's folder is on a read-only disk, so it could not save its files; if it stays, ${advice.sendLog}.`,
};
const FILE_TROUBLE: Worded = (advice) =>
  `Seller Tray could not read or write its files on this computer. Try again; if it stays, ${advice.sendLog}.`;

/**
 * SQLite's own failures to write the store's files (by their primary code, sqliteCode): the same
 * words as the file system's, and another process holding them too long.
 */
const SQLITE_CODES = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
} as const;
type SqliteCode = (typeof SQLITE_CODES)[keyof typeof SQLITE_CODES];
const SQLITE_WORDS: Readonly<Record<SqliteCode, Worded>> = {
  SQLITE_PERM: NOT_ALLOWED,
  // Past the store's wait for the other's write (database.ts BUSY_TIMEOUT_MS).
  SQLITE_BUSY: (advice) =>
    `Another Seller Tray on this computer (the app or seller-tray watch) kept its files busy longer than it waits. Try again in a moment; if it stays, ${advice.sendLog}.`,
  SQLITE_READONLY: NOT_ALLOWED,
  SQLITE_IOERR: FILE_TROUBLE,
  SQLITE_FULL: FULL,
  SQLITE_CANTOPEN: FILE_TROUBLE,
};

function storeFailure(error: unknown): SqliteCode | undefined {
  return SQLITE_CODES[sqliteCode(error) as keyof typeof SQLITE_CODES];
}

/** Whether `error` is this computer's files' (the file system's or SQLite's, a store kept busy too): explainFailure words it. */
export function isLocalFileFailure(error: unknown): boolean {
  return fileFailure(error) !== undefined || storeFailure(error) !== undefined;
}

/** The file system calls whose failures are this computer's files' (not a network's). */
const FILE_CALLS = new Set([
  'open',
  'close',
  'read',
  'write',
  'rename',
  'mkdir',
  'rmdir',
  'unlink',
  'stat',
  'lstat',
  'fstat',
  'fsync',
  'copyfile',
  'access',
  'chmod',
  'opendir',
  'scandir',
  'realpath',
  'utime',
]);

/** Node's error from a file system call, with its code (EACCES, ENOSPC, …) and the call's name. */
function fileFailure(error: unknown): { code: string; syscall: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string' && FILE_CALLS.has(syscall)
    ? { code, syscall }
    : undefined;
}
