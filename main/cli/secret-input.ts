// The one way the CLI reads a secret (a client secret for `login` and `accounts add`, an
// automation's signing secret or chat address for `automations secret`). Piped, it is standard
// input whole, its one trailing line break dropped. At a terminal it is typed or pasted without
// echo, as ssh and sudo read a password: raw mode, Enter ends it, Backspace takes back a
// character, Ctrl+U the whole line, Ctrl+C cancels, and the terminal is always given back as it was.

import { StringDecoder } from 'node:string_decoder';

/** Ctrl+C at the prompt: nothing was read, nothing is stored. */
export class SecretCancelled extends Error {
  constructor() {
    super('cancelled at the prompt: nothing was stored');
  }
}

/** What the reader needs of standard input: a TTY has raw mode, a pipe has none. */
export interface SecretSource extends AsyncIterable<Buffer | string> {
  isTTY?: boolean | undefined;
  setRawMode?: ((raw: boolean) => unknown) | undefined;
  isRaw?: boolean | undefined;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/**
 * The secret, from `input` (standard input by default). `prompt`: what a terminal is told it
 * waits for (on `output`, standard error, so standard output stays the command's own).
 */
export async function readSecret(
  prompt: string,
  input: SecretSource = process.stdin,
  output: { write(text: string): unknown } = process.stderr,
): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return readPiped(input);
  const wasRaw = input.isRaw ?? false;
  // Echo off before the prompt shows: what is typed once it shows is never echoed.
  input.setRawMode(true);
  output.write(prompt);
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed: string[] = [];
      // A terminal cuts its bytes where it likes: a character's bytes, an escape sequence's
      // characters may end one chunk and start the next, so both are read on with the next.
      const decoder = new StringDecoder('utf8');
      let unfinished = '';
      const onData = (chunk: Buffer | string) => {
        const text = unfinished + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
        const cut = UNFINISHED_ESCAPE.exec(text)?.[0] ?? '';
        unfinished = cut;
        for (const key of typedKeys(text.slice(0, text.length - cut.length))) {
          switch (key) {
            case '\r':
            case '\n':
              return done(() => resolve(typed.join('')));
            case '\u0003': // Ctrl+C
              return done(() => reject(new SecretCancelled()));
            case '\u0004': // Ctrl+D: ends the input, as at a shell's prompt
              return done(() => resolve(typed.join('')));
            case '\u007f': // Backspace (DEL) or Ctrl+H
            case '\b':
              typed = typed.slice(0, -1);
              break;
            case '\u0015': // Ctrl+U: the whole line
              typed = [];
              break;
            default:
              // Other control keys (arrows, a paste's brackets) are no part of a secret.
              if (!/^\p{Cc}/u.test(key)) typed.push(key);
          }
        }
      };
      const done = (end: () => void) => {
        input.off('data', onData);
        input.pause();
        end();
      };
      input.on('data', onData);
      input.resume();
    });
  } finally {
    input.setRawMode(wasRaw);
    // The Enter that ended it was not echoed either: the next line starts on its own.
    output.write('\n');
  }
}

/** Standard input to its end, its one trailing line break dropped. */
async function readPiped(input: SecretSource): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of input) chunks.push(chunk.toString());
  return chunks.join('').replace(/\r?\n$/, '');
}

/**
 * The keys in what a terminal sent: characters one by one (a character outside the BMP is one),
 * and an escape sequence (an arrow key, bracketed paste's markers: CSI or SS3) as one key, to be
 * ignored whole. A lone Escape is one key too: what is typed after it is kept.
 */
function typedKeys(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is matched.
  return text.match(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001bO[\s\S]|[\s\S]/gu) ?? [];
}

/** An escape sequence the chunk ends before its final character (`\e[20` of `\e[201~`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is matched.
const UNFINISHED_ESCAPE = /\u001b(?:\[[0-9;?]*[ -/]*|O)?$/u;
