// The CLI's one secret reader (secret-input.ts) on streams: at a terminal, keys as a password
// prompt takes them (raw mode on and given back, nothing echoed, Backspace, Ctrl+U, escape
// sequences ignored, Enter or Ctrl+D ending, Ctrl+C cancelling); piped, standard input whole.
// A real terminal (test/support/terminal.ts) here for signals at the prompt, and in
// automations.test.ts and seller-tray.test.ts for what is typed.
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { atTerminal } from '../../test/support/terminal';
import { readSecret, SecretCancelled, type SecretSource } from './secret-input';

/** A terminal's standard input: raw mode recorded, these chunks sent once it is read. */
function terminal(chunks: string[]) {
  const modes: boolean[] = [];
  const stream = Object.assign(new EventEmitter(), {
    isTTY: true,
    isRaw: false,
    setRawMode(raw: boolean) {
      modes.push(raw);
      stream.isRaw = raw;
    },
    resume() {
      queueMicrotask(() => {
        for (const chunk of chunks) stream.emit('data', Buffer.from(chunk));
      });
    },
    pause() {},
    [Symbol.asyncIterator]: () => {
      throw new Error('a terminal is not read to its end');
    },
  });
  return { stream: stream as unknown as SecretSource, modes };
}

function screen() {
  let shown = '';
  return { output: { write: (text: string) => (shown += text) }, shown: () => shown };
}

describe('at a terminal', () => {
  it.each([
    ['typed, then Enter', ['s3cret\r'], 's3cret'],
    ['pasted in pieces', ['whsec_ab', 'cd\n'], 'whsec_abcd'],
    ['Backspace takes back a character (DEL or Ctrl+H), a whole one', ['ab😀x\u007f', '\b\r'], 'ab'],
    ['Ctrl+U takes back the line', ['wrong\u0015right\r'], 'right'],
    [
      'arrow keys and a paste’s brackets are no part of it',
      ['\u001b[200~pa\u001b[Dste\u001b[201~\r'],
      'paste',
    ],
    ['Ctrl+D ends it', ['abc\u0004'], 'abc'],
    ['nothing typed: empty', ['\r'], ''],
    ['what follows Enter is left', ['abc\rdef'], 'abc'],
  ])('%s', async (_, chunks, secret) => {
    const { stream, modes } = terminal(chunks);
    const { output, shown } = screen();
    expect(await readSecret('Secret: ', stream, output)).toBe(secret);
    // Raw (no echo) while reading, then given back; only the prompt and a line end shown.
    expect(modes).toEqual([true, false]);
    expect(shown()).toBe('Secret: \n');
  });

  it.each([
    ['ends (the terminal hung up)', (stream: EventEmitter) => stream.emit('end')],
    ['fails', (stream: EventEmitter) => stream.emit('error', new Error('EIO'))],
  ])(
    'standard input that %s before Enter ends the read: nothing half typed is the secret',
    async (_, end) => {
      const { stream, modes } = terminal(['half']);
      const { output, shown } = screen();
      const read = readSecret('Secret: ', stream, output);
      await new Promise((resolve) => setTimeout(resolve, 10));
      end(stream as unknown as EventEmitter);
      await expect(read).rejects.toThrow('nothing was stored');
      expect(modes).toEqual([true, false]);
      expect(shown()).toBe('Secret: \n');
    },
  );

  it('Ctrl+C cancels, giving the terminal back as it was', async () => {
    const { stream, modes } = terminal(['half', '\u0003', 'more\r']);
    const { output, shown } = screen();
    await expect(readSecret('Secret: ', stream, output)).rejects.toBeInstanceOf(SecretCancelled);
    expect(modes).toEqual([true, false]);
    expect(shown()).toBe('Secret: \n');
  });
});

describe('piped', () => {
  it.each([
    ['s3cret\n', 's3cret'],
    ['s3cret\r\n', 's3cret'],
    ['s3cret', 's3cret'],
    ['two\nlines\n', 'two\nlines'],
    ['', ''],
  ])('%j reads as %j, without a prompt', async (piped, secret) => {
    const { output, shown } = screen();
    expect(await readSecret('Secret: ', Readable.from([Buffer.from(piped)]) as SecretSource, output)).toBe(
      secret,
    );
    expect(shown()).toBe('');
  });
});

describe('a terminal sends bytes in chunks of its own choosing', () => {
  /** A terminal sending exactly these byte chunks (a long paste is cut wherever the pty's buffer ends). */
  function bytes(chunks: Buffer[]) {
    const stream = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      setRawMode(raw: boolean) {
        stream.isRaw = raw;
      },
      resume() {
        queueMicrotask(() => {
          for (const chunk of chunks) stream.emit('data', chunk);
        });
      },
      pause() {},
      [Symbol.asyncIterator]: () => {
        throw new Error('a terminal is not read to its end');
      },
    });
    return stream as unknown as SecretSource;
  }

  it('a multibyte character cut between two chunks is read whole', async () => {
    const typed = Buffer.from('pä😀ss\r');
    // Cut inside "ä" (2 bytes) and inside the emoji (4 bytes).
    const chunks = [typed.subarray(0, 2), typed.subarray(2, 5), typed.subarray(5)];
    const { output } = screen();
    expect(await readSecret('Secret: ', bytes(chunks), output)).toBe('pä😀ss');
  });

  it("a paste's end marker cut between two chunks is no part of the secret", async () => {
    const { output } = screen();
    const chunks = [Buffer.from('\u001b[200~whsec_abc\u001b[20'), Buffer.from('1~\r')];
    expect(await readSecret('Secret: ', bytes(chunks), output)).toBe('whsec_abc');
  });

  it('an Escape alone at the end of a chunk takes nothing typed after it', async () => {
    const { output } = screen();
    const chunks = [Buffer.from('ab\u001b'), Buffer.from('c\u001b'), Buffer.from('[Dd\r')];
    expect(await readSecret('Secret: ', bytes(chunks), output)).toBe('abcd');
  });
});

describe('at a real terminal, ended by a signal at the prompt', () => {
  it.skipIf(process.platform === 'win32').each(['SIGTERM', 'SIGHUP'] as const)(
    '%s gives the terminal back echoing, line by line, and ends the command as the signal does',
    async (signal) => {
      const home = await mkdtemp(join(tmpdir(), 'cli-secret-signal-'));
      try {
        const login = [process.execPath, '--import', 'tsx', 'main/cli/seller-tray.ts', 'login'];
        const env = {
          XDG_CONFIG_HOME: home,
          SELLER_API_BASE_URL: '',
          SELLER_CLIENT_ID: '',
          SELLER_CLIENT_SECRET: '',
        };
        const ended = await atTerminal(
          [...login, '--base-url', 'http://127.0.0.1:9', '--client-id', 'someone'],
          env,
          'then Enter',
          ['half typed'],
          { signal },
        );
        expect(ended.atPrompt).toEqual({ echo: false, lineByLine: false });
        expect(ended.after).toEqual({ echo: true, lineByLine: true });
        expect(ended.output).not.toContain('half typed');
        // Ended by the signal itself (re-raised), as a shell reports it.
        expect(ended.code).toBe(signal === 'SIGTERM' ? -15 : -1);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
