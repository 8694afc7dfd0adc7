// Real child processes for tests: the simulator and the CLI run exactly as users run them.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export const REPO_ROOT = new URL('../..', import.meta.url).pathname;

/** Runs a TypeScript entry point of this repository with tsx, in a fresh Node process. */
/** How a child is run: as another user, or under a command that runs it (its arguments first). */
export interface RunAs {
  uid?: number;
  under?: string[];
}

export function spawnTs(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  how: RunAs = {},
): ChildProcess {
  const [command = process.execPath, ...rest] = [
    ...(how.under ?? []),
    process.execPath,
    '--import',
    'tsx',
    entry,
    ...args,
  ];
  return spawn(command, rest, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(how.uid === undefined ? {} : { uid: how.uid, gid: how.uid }),
  });
}

/** Resolves with the first stdout line matching `pattern`; rejects if the process exits first. */
export async function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<RegExpExecArray> {
  if (!child.stdout) throw new Error('child has no stdout');
  const lines = createInterface({ input: child.stdout });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no line ${pattern} within ${timeoutMs} ms; stderr: ${stderr}`)),
      timeoutMs,
    );
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}; stderr: ${stderr}`));
    });
  });
}

export async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = await once(child, 'exit');
  return code as number | null;
}

/**
 * Waits for `child` to end, killing it with SIGKILL after `killAfterMs` unless it ended by then:
 * what it printed, and whether the kill landed.
 */
export async function endedOrKilled(
  child: ChildProcess,
  killAfterMs?: number,
): Promise<{ stdout: string; killed: boolean }> {
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const signal = await new Promise<string | null>((resolve) => child.once('exit', (_, sig) => resolve(sig)));
  clearTimeout(timer);
  return { stdout, killed: signal === 'SIGKILL' };
}

/** Runs a simulator process; resolves with its URL once it listens. */
export async function spawnSimulator(args: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnTs('simulator/cli.ts', ['--port', '0', ...args]);
  const match = await waitForLine(child, /^Seller API simulator listening on (http:\/\/\S+)$/);
  return { url: match[1] ?? '', child };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point to its end and returns what it printed. */
export async function runTs(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input = '',
  how: RunAs = {},
): Promise<Finished> {
  const child = spawnTs(entry, args, env, how);
  child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await exitOf(child);
  return { code, stdout, stderr };
}
