// A command for kill -9 tests, run as an automation's command with a file as its argument. Its
// first run starts a child and waits a minute (its runner is killed meanwhile), writing
// "<delivery id> <its pid> <its child's pid>"; a later run writes "<delivery id> <its pid>
// old-gone" or "old-still-running": whether the first and its child still ran as it started.
const { spawn } = require('node:child_process');
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const { alive } = require('./alive.cjs');

// The order first, as a provisioning script takes it: nothing is done before it came.
readFileSync(0);
const file = process.argv[2];
const before = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
const id = process.env.SELLER_TRAY_DELIVERY_ID;
if (before.length === 0) {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  appendFileSync(file, `${id} ${process.pid} ${child.pid}\n`);
  setTimeout(() => {}, 60_000);
} else {
  const [, pid, childPid] = before[0].split(' ').map(Number);
  const old = alive(pid) || alive(childPid) ? 'old-still-running' : 'old-gone';
  appendFileSync(file, `${id} ${process.pid} ${old}\n`);
}
