// A command run at a real pseudo-terminal (python's pty module: Linux and macOS), keys typed one
// chunk at a time once it prompts (then a signal sent, where asked), for what only a terminal
// shows: echo, raw mode, Ctrl+C, the terminal's mode at the prompt and once the command ended.
import { execFile } from 'node:child_process';
import { REPO_ROOT } from './processes';

/**
 * Forks the command on a pty, waits for `waitFor` in its output, types each chunk, sends the
 * signal if any, reads to its end, and reads the terminal's mode (at the prompt, after the end).
 */
const DRIVER = `
import json, os, pty, select, signal, sys, termios, time
spec = json.load(sys.stdin)
pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec['cwd'])
    os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
out = b''
def read(seconds, until=None):
    global out
    end = time.time() + seconds
    while time.time() < end:
        if until is not None and until in out:
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            out += data
    return True
def echoing():
    flags = termios.tcgetattr(fd)[3]
    return {'echo': bool(flags & termios.ECHO), 'lineByLine': bool(flags & termios.ICANON)}
read(30, spec['waitFor'].encode())
atPrompt = echoing()
for chunk in spec['keys']:
    os.write(fd, chunk.encode())
    read(0.3)
if spec.get('signal'):
    os.kill(pid, getattr(signal, spec['signal']))
read(30)
_, status = os.waitpid(pid, 0)
print(json.dumps({'output': out.decode('utf-8', 'replace'), 'code': os.waitstatus_to_exitcode(status), 'atPrompt': atPrompt, 'after': echoing()}))
`;

/** A terminal's mode: echoing what is typed, and reading it line by line (canonical), as a shell leaves it. */
export interface TerminalMode {
  echo: boolean;
  lineByLine: boolean;
}

export function atTerminal(
  argv: string[],
  env: NodeJS.ProcessEnv,
  waitFor: string,
  keys: string[],
  options: { signal?: NodeJS.Signals } = {},
): Promise<{ output: string; code: number; atPrompt: TerminalMode; after: TerminalMode }> {
  return new Promise((resolve, reject) => {
    const child = execFile('python3', ['-c', DRIVER], { timeout: 90_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
    child.stdin?.end(
      JSON.stringify({ argv, env: { ...process.env, ...env }, cwd: REPO_ROOT, waitFor, keys, ...options }),
    );
  });
}
