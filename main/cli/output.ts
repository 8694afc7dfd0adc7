// Standard output that can take no more: its reader gone (`| head`, a closed terminal: EPIPE) or
// its file unwritable (a full disk: ENOSPC). Node would end the process with its stack trace at
// any moment; the command ends in words and a documented exit status instead, and `watch`, `run`
// and `listen` stop as on SIGTERM, their stores closed.

import { plural } from '../../preload/counted';

/** The exit status once the reader left, as a shell reports a command ended by SIGPIPE (128 + 13). */
export const READER_LEFT = 141;

let failure: NodeJS.ErrnoException | undefined;
let closed = () => {};

/** Resolves once standard output failed: nothing more can be printed. */
export const outputClosed = new Promise<void>((resolve) => {
  closed = resolve;
});

/** Thrown where a line could not be printed: what it announced is then not marked announced. */
export class OutputClosed extends Error {}

/** Lines printLine took that have not reached the system yet (a stalled reader: past its pipe's 64 KiB). */
let undelivered = 0;

/**
 * Prints a line that must not be lost: a new order of `watch`. A write that fails fails at once
 * (the stream's 'error' event comes later), so the core, which marks an order announced once its
 * line is printed, leaves it to be printed again by the next watch. A line taken is counted until
 * the system has it: those still queued when the output fails are told by `outputFailure`.
 */
export function printLine(line: string): void {
  process.stdout.write(line, (error) => {
    if (!error) undelivered -= 1;
  });
  if (isOutputClosed()) throw new OutputClosed('standard output was closed');
  undelivered += 1;
}

/** Whether standard output failed, known at once (its 'error' event, and outputClosed, come later). */
export const isOutputClosed = (): boolean => process.stdout.errored !== null;

/** Heard from the start: a write's failure reaches the stream as an 'error' event, later. */
export function guardOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= error;
    closed();
  });
  // Standard error gone too (`2>&1 | head`): nothing can be told there, and nothing thrown.
  process.stderr.on('error', () => {});
}

/**
 * The exit status standard output's failure gives (undefined while it has not failed): the reader
 * leaving is no error of the command's, told by the status alone, unless it left before lines
 * printLine took reached it (marked announced, they are lost to the next watch); any other is
 * said on stderr. What the system took and the reader did not read is beyond knowing.
 */
export function outputFailure(): number | undefined {
  if (failure === undefined) return undefined;
  if (undelivered > 0) {
    const reason =
      failure.code === 'EPIPE'
        ? 'the reader of the output left'
        : `the output could not be written (${writeFailure(failure)})`;
    process.stderr.write(
      `seller-tray: ${reason} before ${plural(undelivered, "new order's line", "new orders' lines")} reached it: ${undelivered === 1 ? 'it is' : 'they are'} not printed again; \`seller-tray orders list\` shows the newest orders\n`,
    );
    return 1;
  }
  if (failure.code === 'EPIPE') return READER_LEFT;
  process.stderr.write(`seller-tray: the output could not be written: ${writeFailure(failure)}\n`);
  return 1;
}

/** Node's words end with the call that failed (", write"): no help to the reader. */
const writeFailure = (error: Error): string => error.message.replace(/, write$/, '');
