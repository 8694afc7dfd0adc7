// Advice worded for the surface it is read on (advice.ts): every kind for the app and for a
// terminal, the terminal's naming only commands the CLI has; and every message the core builds
// for a terminal (failures, outages, automations) never sends a person to the app's screens.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../preload/model';
import { everyKind } from '../../test/support/advice-kinds';
import { accountRef } from './account/account-ref';
import { adviceFor, type Locked, type TerminalSurface } from './advice';
import { SellerApiError } from './api/errors';
import { PaginationError } from './api/pagination';
import { explainFailure } from './failure-words';
import { livenessNotification, startLiveness } from './liveness';

const EU = accountRef({ baseUrl: 'https://api.example.test', clientId: 'c-1', label: 'EU' });
const UNLISTED = accountRef({ baseUrl: 'https://api.example.test', clientId: 'c-2' });
const DEMO = accountRef({ baseUrl: 'http://127.0.0.1:4010', clientId: 'demo', demo: true, label: 'Demo' });

/** A terminal: by default a keychain secret, no account saved, no policy setting the client. */
const terminalWith = (facts: Partial<TerminalSurface> = {}): TerminalSurface => ({
  surface: 'terminal',
  secretFrom: 'keychain',
  accountsSaved: false,
  locked: [],
  ...facts,
});

/** Words that name the app's screens: read in a terminal they point nowhere. */
const APP_ONLY = /Settings|order page|Diagnose connection|Check now|window/;

describe('each kind of advice', () => {
  it('names the app’s places for the app', () => {
    const app = adviceFor('app', EU);
    // Each kind sends a person to a place of the app's.
    for (const words of everyKind(app)) expect(words).toMatch(APP_ONLY);
    // The account's own row: the one secret field above it is the first account's, where a second
    // account's secret is checked against the first's client and refused.
    expect(app.enterSecret).toBe('enter the current secret with Replace secret in Settings → Accounts');
    expect(app.automationSecret('billing hook')).toBe(
      `set it in Settings → Automations, or run seller-tray automations secret "billing hook" --id ${EU.id}`,
    );
    expect(adviceFor('app', DEMO).automationSecret('hook')).toBe(
      'set it in Settings → Automations (the demo runs only in the app)',
    );
    expect(app.orderRuns('hook', 'o-1')).toBe('The order page shows its output and can run it again.');
    expect(app.markAnyway('o-1', 'ProvisioningCompleted')).toBe('on the order page');
  });

  it('names the CLI’s commands for a saved account at a terminal, by its id', () => {
    const terminal = adviceFor(terminalWith({ accountsSaved: true }), EU);
    expect(terminal).toMatchObject({
      enterSecret: `store the current client secret with seller-tray accounts add --id ${EU.id} (it reads the secret from standard input: piped, or typed at its prompt)`,
      diagnose: `run seller-tray doctor --id ${EU.id}`,
      checkBaseUrl: 'check the base URL the account was added with (seller-tray accounts list shows it)',
      anotherClient: `add another client with seller-tray accounts add LABEL --base-url ${EU.baseUrl} --client-id ID`,
      sendLog: 'send what the command prints with --verbose to your IT support',
    });
    // A terminal's watch polls on its own: no control to press.
    expect(terminal.checkNow).toBeUndefined();
    expect(terminal.automationSecret('billing hook')).toBe(
      `run seller-tray automations secret "billing hook" --id ${EU.id}`,
    );
    expect(terminal.orderRuns('billing hook', 'o-1')).toBe(
      `Its output is in the lines below; seller-tray automations run-again "billing hook" --order o-1 --id ${EU.id} runs it again; seller-tray automations runs --id ${EU.id} lists the runs waiting or failed.`,
    );
    // As `status` takes it: the word without "Provisioning", and a Failed mark's what and why.
    expect(terminal.markAnyway('o-1', 'ProvisioningCompleted')).toBe(
      `with seller-tray status o-1 Completed --force --id ${EU.id}`,
    );
    expect(terminal.markAnyway('o-1', 'ProvisioningFailed')).toBe(
      `with seller-tray status o-1 Failed --force --description TEXT --detail TEXT --id ${EU.id}`,
    );
  });

  it('names the flags and variables for an account that is not saved (no --id chooses it)', () => {
    const terminal = adviceFor(terminalWith(), UNLISTED);
    expect(terminal.enterSecret).toBe(
      // Whole: the flags or variables the account came from are not the advice's to guess.
      'set SELLER_CLIENT_SECRET to the current client secret, or store it with seller-tray login --base-url https://api.example.test --client-id c-2',
    );
    expect(terminal.diagnose).toBe('run seller-tray doctor');
    expect(terminal.checkBaseUrl).toBe('check the base URL (--base-url or SELLER_API_BASE_URL)');
    expect(everyKind(terminal).join('\n')).not.toContain('--id');
  });

  it('adds an account not saved beside those saved: login would replace the first', () => {
    const terminal = adviceFor(terminalWith({ accountsSaved: true }), UNLISTED);
    expect(terminal.enterSecret).toBe(
      `set SELLER_CLIENT_SECRET to the current client secret, or store it with seller-tray accounts add LABEL --base-url ${UNLISTED.baseUrl} --client-id c-2`,
    );
  });

  it.each([
    [EU, `seller-tray accounts add --id ${EU.id}`],
    [UNLISTED, 'seller-tray login'],
  ])(
    'says to fix or unset SELLER_CLIENT_SECRET where the secret came from it (it wins over the keychain)',
    (account, store) => {
      const { enterSecret } = adviceFor(terminalWith({ secretFrom: 'variable' }), account);
      expect(enterSecret).toMatch(
        /^set SELLER_CLIENT_SECRET to the current client secret .*, or unset it and store/,
      );
      expect(enterSecret).toContain(store);
    },
  );

  it('never advises another client where a policy sets the client: IT gives one', () => {
    // The policy's account is the saved first one: its secret is stored again by its id.
    const locked = adviceFor(terminalWith({ locked: ['baseUrl', 'clientId'], accountsSaved: true }), EU);
    expect(locked.anotherClient).toBe(
      'ask your IT support for another client (a policy sets the client on this computer)',
    );
    expect(locked.checkBaseUrl).toBe(
      'ask your IT support to check the base URL (a policy sets the marketplace on this computer)',
    );
    expect(locked.enterSecret).toContain(`seller-tray accounts add --id ${EU.id}`);
    expect(everyKind(locked).join('\n')).not.toMatch(/accounts add LABEL|--base-url|--client-id|login/);
  });

  it('stores no account beside a list a policy sets: the variable, or IT adds it', () => {
    const terminal = adviceFor(terminalWith({ locked: ['accounts'], accountsSaved: true }), UNLISTED);
    expect(terminal.enterSecret).toBe(
      'set SELLER_CLIENT_SECRET to the current client secret, or ask your IT support to add this account (a policy sets the accounts on this computer)',
    );
    expect(everyKind(terminal).join('\n')).not.toMatch(/accounts add|login/);
  });

  it('asks IT in the app where Settings shows the field locked, from the moment a policy locks it', () => {
    let locked: Locked[] = [];
    const app = adviceFor({ surface: 'app', locked: () => locked }, EU);
    expect(app.anotherClient).toBe('enter another client in Settings');
    expect(app.checkBaseUrl).toBe('check the base URL in Settings');
    locked = ['accounts', 'automations'];
    expect(app.anotherClient).toBe(
      'ask your IT support for another client (a policy sets the accounts on this computer)',
    );
    expect(app.checkBaseUrl).toBe(
      'ask your IT support to check the base URL (a policy sets the accounts on this computer)',
    );
    // Settings shows the automations read only: their secret is stored from the command line.
    expect(app.automationSecret('billing hook')).toBe(
      `run seller-tray automations secret "billing hook" --id ${EU.id} (a policy sets the automations on this computer)`,
    );
    // The secret is never a policy: Settings takes it under every policy.
    expect(app.enterSecret).toBe('enter the current secret with Replace secret in Settings → Accounts');
  });

  it('never names the app’s screens at a terminal, for any account', () => {
    for (const account of [EU, UNLISTED, DEMO, undefined]) {
      for (const words of everyKind(adviceFor(terminalWith(), account))) expect(words).not.toMatch(APP_ONLY);
    }
  });
});

describe('the messages the core builds, for a terminal', () => {
  const terminal = adviceFor(terminalWith({ accountsSaved: true }), EU);
  const api = ({ message, ...init }: ConstructorParameters<typeof SellerApiError>[0] & { message: string }) =>
    new SellerApiError(init, message);
  /** A failure of each kind the core words (failure-words.ts). */
  const failures: unknown[] = [
    api({ kind: 'http', operation: 'createToken', status: 401, message: 'refused' }),
    api({ kind: 'network', operation: 'listEvents', message: 'ECONNREFUSED' }),
    api({ kind: 'timeout', operation: 'listEvents', message: 'timed out' }),
    api({ kind: 'tls', operation: 'ping', message: 'self-signed' }),
    api({ kind: 'config', operation: 'ping', message: 'bad URL' }),
    api({ kind: 'schema', operation: 'listEvents', message: 'unreadable' }),
    api({ kind: 'http', operation: 'listEvents', status: 429, message: 'slow down' }),
    api({ kind: 'http', operation: 'listEvents', status: 503, message: 'down' }),
    api({ kind: 'http', operation: 'listEvents', status: 404, message: 'no route' }),
    api({ kind: 'http', operation: 'getOrder', status: 404, message: 'no order' }),
    api({ kind: 'http', operation: 'listOrders', status: 403, message: 'no' }),
    api({ kind: 'http', operation: 'sendEvent', status: 400, message: 'bad' }),
    api({ kind: 'http', operation: 'listOrders', status: 400, message: 'bad' }),
    new PaginationError('pages overlap'),
    Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', syscall: 'open' }),
    Object.assign(new Error('EROFS'), { code: 'EROFS', syscall: 'write' }),
    Object.assign(new Error('EIO'), { code: 'EIO', syscall: 'read' }),
    new Error('anything else'),
  ];

  it('says every failure with the terminal’s advice', () => {
    for (const failure of failures) expect(explainFailure(failure, terminal).message).not.toMatch(APP_ONLY);
    expect(explainFailure(failures[0], terminal).message).toContain(`seller-tray accounts add --id ${EU.id}`);
    expect(explainFailure(failures[5], terminal).message).toContain(`seller-tray doctor --id ${EU.id}`);
    // The same failures read in the app name its Settings.
    expect(explainFailure(failures[0], adviceFor('app', EU)).message).toContain('in Settings');
  });

  it('says every outage with the terminal’s advice', () => {
    const connections: Connection[] = [
      'ok',
      'starting',
      'paused',
      'offline',
      'server-problem',
      'credentials-rejected',
      'failing',
    ];
    for (const connection of connections) {
      const { body } = livenessNotification(
        'down',
        startLiveness(0, null),
        20 * 60_000,
        connection,
        terminal,
      );
      expect(body).not.toMatch(APP_ONLY);
    }
  });

  it('leaves no app-only words in the core’s own sentences: they come from advice.ts', () => {
    // A message written into a core file would reach a terminal as it is: the kind this test catches.
    const sentences: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && entry.name !== 'advice.ts') {
          const code = readFileSync(path, 'utf8')
            .split('\n')
            .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
            .join('\n');
          for (const [literal] of code.matchAll(/'[^'\n]*'|`[^`]*`|"[^"\n]*"/g)) {
            if (/in Settings|Settings →|order page|Diagnose connection/.test(literal))
              sentences.push(`${path}: ${literal}`);
          }
        }
      }
    };
    walk(__dirname);
    expect(sentences).toEqual([]);
  });
});
