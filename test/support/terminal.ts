// A command run at a real pseudo-terminal (python's pty module: Linux and macOS), keys typed one
// chunk at a time once it prompts, for what only a terminal shows: echo, raw mode, Ctrl+C.
import { execFile } from 'node:child_process';
import { REPO_ROOT } from './processes';

/** Forks the command on a pty, waits for `waitFor` in its output, types each chunk, reads to its end. */
const DRIVER = `
import json, os, pty, select, sys, time
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
read(30, spec['waitFor'].encode())
for chunk in spec['keys']:
    os.write(fd, chunk.encode())
    read(0.3)
read(30)
_, status = os.waitpid(pid, 0)
print(json.dumps({'output': out.decode('utf-8', 'replace'), 'code': os.waitstatus_to_exitcode(status)}))
`;

export function atTerminal(
  argv: string[],
  env: NodeJS.ProcessEnv,
  waitFor: string,
  keys: string[],
): Promise<{ output: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = execFile('python3', ['-c', DRIVER], { timeout: 90_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
    child.stdin?.end(
      JSON.stringify({ argv, env: { ...process.env, ...env }, cwd: REPO_ROOT, waitFor, keys }),
    );
  });
}
