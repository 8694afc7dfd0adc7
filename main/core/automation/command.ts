// Running an automation's command: the program and its arguments as declared (no shell), the
// order's JSON on standard input, a minimal environment, a working folder and a time limit
// (then SIGTERM to its whole process group, SIGKILL 5 s later). Its output is kept bounded (the
// last OUTPUT_KEPT bytes) and cleaned before anyone reads it; its last JSON line may say the
// status to report.
import { spawn } from 'node:child_process';
import { paragraphText } from '../../../preload/marketplace-text';

/** The end of a command's output that is kept: its last line says why it failed. */
export const OUTPUT_KEPT = 16 * 1024;
/** How long a command has after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 5_000;
/** How long a command's output is read after it exited: what it wrote is in the pipes by then. */
const OUTPUT_AFTER_EXIT_MS = 1_000;

export interface CommandResult {
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** It could not be started (no such program, not executable): why. */
  startError?: string | undefined;
  /** The last OUTPUT_KEPT bytes of standard output and error together, cleaned. */
  output: string;
  /** Bytes of output dropped from the start. */
  dropped: number;
  /** The last line of standard output, when it is {"status": ..., "detail": ...}. */
  statusLine?: { status: string; detail: string } | undefined;
}

export function runCommand(
  command: readonly string[],
  options: {
    input: Buffer;
    env: NodeJS.ProcessEnv;
    cwd: string;
    timeoutMs: number;
    signal?: AbortSignal;
    /**
     * Told of the command spawned (its pid, its group's) before it is given its input; answers
     * what to do once it and its group ended. When it throws, the command is killed unheard.
     */
    spawned?: (pid: number) => () => void;
  },
): Promise<CommandResult> {
  const [program = '', ...args] = command;
  // Stopped already: an 'abort' listener would never hear of it, and the command would run on.
  if (options.signal?.aborted)
    return Promise.resolve({
      exitCode: null,
      signal: null,
      timedOut: false,
      startError: 'stopped before it started',
      output: '',
      dropped: 0,
    });
  return new Promise((resolve) => {
    const tail = new Tail(OUTPUT_KEPT);
    const lastStdout = new Tail(4096);
    let timedOut = false;
    let startError: string | undefined;
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      // Its own process group (POSIX): the time limit ends what it started too.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (child.pid === undefined) return;
        if (process.platform !== 'win32') process.kill(-child.pid, signal);
        // Windows has no process groups: taskkill ends the tree (untested here: no Windows runner).
        else
          spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
      } catch {
        // Already gone.
      }
    };
    let ended: (() => void) | undefined;
    try {
      if (child.pid !== undefined) ended = options.spawned?.(child.pid);
    } catch (error) {
      startError = `its start could not be recorded: ${error instanceof Error ? error.message : String(error)}`;
      kill('SIGKILL');
    }
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
    };
    const limit = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', stop, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      lastStdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    // A command that does not read its input closes the pipe: that is its business.
    child.stdin.on('error', () => undefined);
    if (startError) child.stdin.destroy();
    else child.stdin.end(options.input);
    child.on('error', (error) => {
      startError = error.message;
    });
    let drained: NodeJS.Timeout | undefined;
    // Its exit ends the run, not its output's end: a process it left (`nohup server &`, a daemon
    // in a session of its own) may hold the pipes open for as long as it lives.
    child.on('exit', () => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      // What it left running in its group goes with it (Windows: its pid may be another's by now).
      if (!startError && process.platform !== 'win32') kill('SIGKILL');
      drained = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, OUTPUT_AFTER_EXIT_MS);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      clearTimeout(drained);
      options.signal?.removeEventListener('abort', stop);
      try {
        ended?.();
      } catch {
        // A record left behind names a process gone: the next start only removes it.
      }
      resolve({
        exitCode: startError ? null : exitCode,
        signal,
        timedOut,
        startError,
        output: cleanOutput(tail.text()),
        dropped: tail.dropped,
        // Read as its output is shown: a line its progress drew over (\r) is no line of its own.
        statusLine: statusLine(cleanOutput(lastStdout.text())),
      });
    });
  });
}

/** The last non-empty line of `output`, or ''. */
export function lastLine(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  return lines.at(-1)?.trim() ?? '';
}

/** A command's own report: its last line of standard output as {"status": "...", "detail": "..."}. */
function statusLine(stdout: string): CommandResult['statusLine'] {
  try {
    const parsed = JSON.parse(lastLine(stdout)) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { status, detail } = parsed as { status?: unknown; detail?: unknown };
    if (typeof status !== 'string') return undefined;
    return { status, detail: typeof detail === 'string' ? paragraphText(detail) : '' };
  } catch {
    return undefined;
  }
}

/**
 * Output as text anyone may read: terminal escape sequences (colours, titles, cursor moves)
 * and other controls removed, line breaks kept.
 */
export function cleanOutput(text: string): string {
  return (
    paragraphText(
      text
        // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed.
        .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g, '')
        // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed.
        .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, ''),
    )
      // A cut may leave half a character at the start.
      .replace(/^\uFFFD+/, '')
  );
}

/** The last `max` bytes pushed, and how many were dropped before them. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.max;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
