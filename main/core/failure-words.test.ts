import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import type { FailureKind } from '../../preload/model';
import { TRIES_AGAIN } from '../../preload/status-words';
import { adviceFor } from './advice';
import { SellerApiError } from './api/errors';
import { PaginationError } from './api/pagination';
import { explainFailure as explainWith, failureKind } from './failure-words';
import { KeychainUnavailableError } from './secrets';

/** As the app words it (advice.test.ts has the terminal's). */
const explainFailure = (error: unknown) => explainWith(error, adviceFor('app'));

const REQUEST_ID = '5c1d7e4a-1b2c-4d3e-8f90-0a1b2c3d4e5f';
const http = (operation: string, status: number, errorCode?: string, description?: string) =>
  new SellerApiError(
    { kind: 'http', operation, status, errorCode, description, requestId: REQUEST_ID },
    `HTTP ${status} ${errorCode ?? ''}`,
  );

describe('a failure, in words for people', () => {
  it.each<[Error, FailureKind]>([
    [new SellerApiError({ kind: 'network', operation: 'listNewEvents' }, 'ECONNREFUSED'), 'offline'],
    [new SellerApiError({ kind: 'timeout', operation: 'listEvents' }, 'no answer'), 'offline'],
    [http('listNewEvents', 503, 'ServiceUnavailable'), 'server-problem'],
    [http('listEvents', 500), 'server-problem'],
    [http('listEvents', 429, 'TooManyRequests'), 'server-problem'],
    [http('createToken', 401, 'Unauthorized'), 'credentials-rejected'],
    [http('listEvents', 400, 'BadRequest'), 'failing'],
    [new SellerApiError({ kind: 'tls', operation: 'ping' }, 'certificate'), 'failing'],
    [new SellerApiError({ kind: 'schema', operation: 'listEvents' }, 'unexpected'), 'failing'],
    [new PaginationError('listEvents: the server seems to ignore the offset'), 'failing'],
  ])('%s leaves the connection %s', (error, kind) => {
    expect(failureKind(error)).toBe(kind);
    // Its words say Seller Tray tries again exactly where the status line counts on them to (status-words.ts).
    expect(/keeps trying|tries again/.test(explainFailure(error).message)).toBe(TRIES_AGAIN[kind] === 'told');
  });

  it('says "offline" only when the marketplace could not be reached, and what to do', () => {
    const offline = explainFailure(
      new SellerApiError({ kind: 'network', operation: 'listNewEvents', requestId: REQUEST_ID }, 'x'),
    );
    expect(offline.message).toMatch(/^The marketplace could not be reached\. Check your internet connection/);
    const down = explainFailure(http('listNewEvents', 503, 'ServiceUnavailable', 'Try later'));
    expect(down.message).toMatch(/^The marketplace is having problems/);
    expect(down.message).toMatch(/keeps trying/);
  });

  it('keeps the operation, HTTP status, the server words and the request id apart from the sentence', () => {
    const { message, details } = explainFailure(
      http('listNewEvents', 503, 'ServiceUnavailable', 'Maintenance \u202ewindow\n'),
    );
    expect(message).not.toMatch(/listNewEvents|503|request id/i);
    expect(details).toEqual([
      'Operation: listNewEvents',
      'HTTP status: 503 ServiceUnavailable',
      'The marketplace said: Maintenance window',
      `Request id: ${REQUEST_ID}`,
      `Message: listNewEvents: HTTP 503 ServiceUnavailable (request id ${REQUEST_ID})`,
    ]);
  });

  it('tells what to do about rejected credentials, an unknown order, a refused status and an unreadable answer', () => {
    expect(explainFailure(http('createToken', 401)).message).toMatch(
      /Enter the current secret with Replace secret in Settings → Accounts/,
    );
    expect(explainFailure(http('getOrder', 404)).message).toMatch(/does not know this order/);
    expect(explainFailure(http('sendEvent', 400, 'BadRequest')).message).toMatch(
      /^The marketplace refused this status, .*send it again once the cause is fixed\.$/,
    );
    expect(
      explainFailure(
        new SellerApiError({ kind: 'schema', operation: 'listEvents', fieldPath: 'events' }, 'x'),
      ).message,
    ).toMatch(/run Diagnose connection in Settings/);
  });

  it('says the rest is read as usual only of an order over the answer cap, not of the sign-in, ping or licenses', () => {
    const tooLarge = (operation: string) =>
      explainFailure(new SellerApiError({ kind: 'too-large', operation, status: 200 }, 'x')).message;
    expect(tooLarge('getOrder')).toMatch(
      /^The marketplace's answer for this order is larger .*; the rest is read as usual\./,
    );
    for (const operation of ['createToken', 'ping', 'listLicenses']) {
      expect(tooLarge(operation)).toMatch(
        /^The marketplace's answer is larger than Seller Tray reads, so it was not read\./,
      );
      expect(tooLarge(operation)).not.toMatch(/the rest is read/);
    }
  });

  it('tells a refused permission in plain words, and a refused status with the fields the marketplace named', () => {
    const forbidden = new SellerApiError(
      { kind: 'http', operation: 'listEvents', status: 403, description: 'Insufficient scope: events.read' },
      'HTTP 403',
    );
    expect(explainFailure(forbidden).message).toBe(
      'The marketplace does not allow this API client to read events, also with a fresh sign-in (it said: “Insufficient scope: events.read”). Ask whoever manages your Seller Console to give the client that permission, or enter another client in Settings.',
    );
    const refused = new SellerApiError(
      {
        kind: 'http',
        operation: 'sendEvent',
        status: 400,
        description: 'One or more validation errors occurred.',
        fields: [{ field: 'statusCode', reason: 'Unknown status.' }],
      },
      'HTTP 400',
    );
    const { message, details } = explainFailure(refused);
    expect(message).toMatch(
      /^The marketplace refused this status, so it is not recorded there \(it said: “statusCode: Unknown status\.”\)\./,
    );
    expect(details).toContain('The marketplace said: One or more validation errors occurred.');
    expect(details).toContain('Field statusCode: Unknown status.');
  });

  it("says what to fix when the keychain cannot be reached, the keychain's own error behind the words", () => {
    const cause = new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    expect(explainFailure(new KeychainUnavailableError(cause, 'linux'))).toEqual({
      message:
        'No OS keychain is available (Secret Service over D-Bus): install and unlock gnome-keyring or KWallet; ' +
        'Seller Tray keeps its secrets nowhere else.',
      details: ['Keychain error: Cannot autolaunch D-Bus without X11 $DISPLAY'],
    });
    expect(explainFailure(new KeychainUnavailableError(cause, 'darwin')).message).toMatch(
      /^The macOS Keychain is not available: unlock your login keychain/,
    );
  });

  it.each([
    [
      'EACCES',
      'open',
      /^Seller Tray is not allowed to write its files on this computer\. Check that its folder/,
    ],
    ['ENOSPC', 'write', /^The disk is full, so Seller Tray could not save its files\. Free some space/],
    ['EROFS', 'mkdir', /read-only disk/],
    [
      'EISDIR',
      'rename',
      /^Seller Tray could not read or write its files on this computer\. Try again; if it stays, send the log/,
    ],
  ])(
    'says what a %s from the file system means for the user, its code and call in the details',
    (code, syscall, words) => {
      const error = Object.assign(
        new Error(`${code}: failed, ${syscall} '/home/anna/.config/Seller Tray/config.json'`),
        {
          code,
          syscall,
        },
      );
      const explained = explainFailure(error);
      expect(explained.message).toMatch(words);
      expect(explained.message).not.toContain(code);
      expect(explained.details).toEqual([
        `Error code: ${code}`,
        `File operation: ${syscall}`,
        `Message: ${error.message}`,
      ]);
    },
  );

  it.each([
    [
      'SQLITE_FULL',
      (db: import('node:sqlite').DatabaseSync) => {
        // A database that may not grow: full as a disk is.
        db.exec('CREATE TABLE t (x); PRAGMA max_page_count = 2');
        for (;;) db.exec(`INSERT INTO t VALUES (randomblob(1000))`);
      },
      /^The disk is full, so Seller Tray could not save its files\. Free some space/,
      {},
    ],
    [
      'SQLITE_READONLY',
      (db: import('node:sqlite').DatabaseSync) => db.exec('CREATE TABLE t (x)'),
      /^Seller Tray is not allowed to write its files on this computer/,
      { readOnly: true },
    ],
  ])(
    "says what SQLite's %s means for the user, its code in the details",
    (code, fail, words, options: { readOnly?: boolean }) => {
      const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
      const folder = mkdtempSync(join(tmpdir(), 'failure-words-'));
      try {
        new DatabaseSync(join(folder, 'store.db')).close();
        const db = new DatabaseSync(join(folder, 'store.db'), options);
        let error: unknown;
        try {
          fail(db);
        } catch (caught) {
          error = caught;
        } finally {
          db.close();
        }
        const explained = explainFailure(error);
        expect(explained.message).toMatch(words);
        expect(explained.details).toEqual([`Error code: ${code}`, `Message: ${(error as Error).message}`]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it('says SQLITE_BUSY is another process holding the store, to try again (the app and watch share it)', () => {
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
    const folder = mkdtempSync(join(tmpdir(), 'failure-words-'));
    const holder = new DatabaseSync(join(folder, 'store.db'));
    const waiter = new DatabaseSync(join(folder, 'store.db'));
    try {
      holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
      let error: unknown;
      try {
        waiter.exec('INSERT INTO t VALUES (2)');
      } catch (caught) {
        error = caught;
      }
      const explained = explainFailure(error);
      expect(explained.message).toMatch(
        /^Another Seller Tray on this computer .* kept its files busy.* Try again/,
      );
      expect(explained.details).toEqual(['Error code: SQLITE_BUSY', `Message: ${(error as Error).message}`]);
    } finally {
      holder.close();
      waiter.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('tells a failure already worded for people (a CodedError) once, as it is', () => {
    const worded = new CodedError(
      'no-secret',
      'No client secret is stored for client c at https://m. Store it.',
      {
        details: ['Keychain entry: c@https://m'],
      },
    );
    expect(explainFailure(worded)).toEqual({ message: worded.message, details: worded.details });
  });

  it('says anything else went wrong in its own words, and keeps them as the detail', () => {
    // A failure with a code but not from a file (here a socket's) is not taken for a file's.
    const error = Object.assign(new Error('ECONNRESET: socket hang up'), {
      code: 'ECONNRESET',
      syscall: 'connect',
    });
    expect(explainFailure(error)).toEqual({
      message: `Something went wrong: ${error.message}`,
      details: [`Message: ${error.message}`],
    });
  });
});
