// Whether a process runs, for tests and the commands they run (`require`d by path): a zombie,
// ended but not yet waited for by whoever inherited it, does not (signal 0 would say it does).
const { existsSync, readFileSync } = require('node:fs');

exports.alive = (pid) => {
  if (!existsSync('/proc')) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
