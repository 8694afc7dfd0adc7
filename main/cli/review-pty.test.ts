// REVIEW (s36): the secret prompt at a real pseudo-terminal (python's pty module) gives the
// terminal back when the command is ended by SIGTERM at the prompt (`kill`, a wrapper's timeout),
// not only on Enter or Ctrl+C: echo off would stay for whatever runs next in that terminal.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/support/processes';

/** Forks the command on a pty, waits for its prompt, sends the signal, and reads the terminal's mode after its end. */
const DRIVER = `
import json, os, pty, select, sys, time, termios
spec = json.load(sys.stdin)
pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec['cwd'])
    os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
out = b''
end = time.time() + 30
while time.time() < end and spec['waitFor'].encode() not in out:
    ready, _, _ = select.select([fd], [], [], 0.05)
    if ready:
        try:
            out += os.read(fd, 4096)
        except OSError:
            break
before = termios.tcgetattr(fd)[3]
os.kill(pid, spec['signal'])
os.waitpid(pid, 0)
after = termios.tcgetattr(fd)[3]
print(json.dumps({'prompted': spec['waitFor'].encode() in out, 'rawAtPrompt': not (before & termios.ECHO), 'echoAfter': bool(after & termios.ECHO), 'canonicalAfter': bool(after & termios.ICANON)}))
`;

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-rev-pty-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

it.skipIf(process.platform === 'win32').each([['SIGTERM', 15]])(
  'REVIEW test (fails): %s at the secret prompt leaves the terminal echoing, line by line',
  async (_, signal) => {
    const argv = [
      process.execPath,
      '--import',
      'tsx',
      'main/cli/seller-tray.ts',
      'login',
      '--base-url',
      'http://127.0.0.1:9',
      '--client-id',
      'someone',
    ];
    const env = {
      ...process.env,
      XDG_CONFIG_HOME: home,
      SELLER_API_BASE_URL: '',
      SELLER_CLIENT_ID: '',
      SELLER_CLIENT_SECRET: '',
    };
    const result = await new Promise<Record<string, boolean>>((resolve, reject) => {
      const child = execFile('python3', ['-c', DRIVER], { timeout: 60_000 }, (error, stdout) =>
        error ? reject(error) : resolve(JSON.parse(stdout)),
      );
      child.stdin?.end(JSON.stringify({ argv, env, cwd: REPO_ROOT, waitFor: 'then Enter', signal }));
    });
    expect(result).toMatchObject({ prompted: true, rawAtPrompt: true });
    expect(result).toMatchObject({ echoAfter: true, canonicalAfter: true });
  },
  60_000,
);
