// The one way the CLI reads a secret (a client secret for `login` and `accounts add`, an
// automation's signing secret or chat address for `automations secret`). Piped, it is standard
// input whole, its one trailing line break dropped. At a terminal it is typed or pasted without
// echo, as ssh and sudo read a password: raw mode, Enter ends it, Backspace takes back a
// character, Ctrl+U the whole line, Ctrl+C cancels, and the terminal is always given back as it was
// (also when a signal or a hang-up ends the prompt).

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
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'end', listener: () => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
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
  const setRawMode = input.setRawMode.bind(input);
  const wasRaw = input.isRaw ?? false;
  // Ended by a signal at the prompt (`kill`, a closed terminal, a wrapper's timeout), the process
  // gives the terminal back first, or echo stays off for whatever runs next in it; then the signal
  // is raised again, to end the process as it would have (unless others listen for it).
  const onSignal = (signal: NodeJS.Signals) => {
    stopListening();
    setRawMode(wasRaw);
    output.write('\n');
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const stopListening = () => {
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
  // Echo off before the prompt shows: what is typed once it shows is never echoed.
  setRawMode(true);
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
      // A terminal that hangs up or fails ends the read: nothing half typed is taken as the secret.
      const onEnd = () =>
        done(() => reject(new Error('standard input ended before Enter: nothing was stored')));
      const onError = (error: Error) =>
        done(() =>
          reject(new Error(`standard input failed at the prompt (${error.message}): nothing was stored`)),
        );
      const done = (end: () => void) => {
        input.off('data', onData);
        input.off('end', onEnd);
        input.off('error', onError);
        input.pause();
        end();
      };
      input.on('data', onData);
      input.on('end', onEnd);
      input.on('error', onError);
      input.resume();
    });
  } finally {
    stopListening();
    setRawMode(wasRaw);
    // The Enter that ended it was not echoed either: the next line starts on its own.
    output.write('\n');
  }
}

/** The signals that end a process by default, given the terminal back first at the prompt (Ctrl+C is a key there). */
const ENDING_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];

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
