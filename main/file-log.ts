// The log file of the desktop app and the browser preview: `logs/main.log` in the user data
// folder, written by electron-log, which also rotates it (past LOG_MAX_BYTES the file becomes
// main.old.log and a new one starts, so at most twice that is kept). Both use electron-log's Node
// entry: its Electron entry would add IPC listeners that answer any frame without the sender
// check every channel of this app has, and the window logs nothing of its own.
//
// The log is never written through a link (a symlink planted at logs/ or main.log would make the
// app append to, or create, a file of the planter's choosing): a link found there at start is
// removed (the app never makes one), and every write opens the file with O_NOFOLLOW, so a link
// planted while the app runs makes the writes fail instead (Windows has no such flag: there the
// check at start is the guard).
import { constants, lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import electronLog from 'electron-log/node';
import { PRODUCT_NAME } from './core/app-identity';
import { type Log, type LogLevel, logLine } from './core/log';
import { ensurePrivateDir, FolderOfAnotherUserError } from './core/paths';

export const LOG_FILE_NAME = 'main.log';
/** A few weeks of polls every minute; the previous file is kept beside it as main.old.log. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;

/** The folder of the log file, in the user data folder. */
export function logsDir(dataRoot: string): string {
  return join(dataRoot, 'logs');
}

export interface FileLog extends Log {
  /** The file written now (rotation moves it aside and starts it again). */
  readonly file: string;
  /** Why nothing is written (its folder is another user's), for the user, once. */
  readonly problem: string | undefined;
}

/** Append, creating the file, and fail rather than follow a link at the file itself. */
const APPEND_NO_FOLLOW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0);

/** A log writing `dir`/main.log, readable by its user only, one line per entry. */
export function fileLog(dir: string, maxBytes: number = LOG_MAX_BYTES): FileLog {
  const file = join(dir, LOG_FILE_NAME);
  const linkAtDir = removeLink(dir);
  let problem: string | undefined;
  try {
    ensurePrivateDir(dir);
  } catch (error) {
    // A folder that cannot be made (a read-only disk): its writes fail and are dropped, as
    // electron-log drops any it cannot make; a log never stops what it logs. One of another
    // user's is not written at all.
    if (error instanceof FolderOfAnotherUserError) problem = error.message;
  }
  const removed = linkAtDir ? dir : removeLink(file) ? file : undefined;
  const logger = electronLog.create({ logId: `seller-tray ${file}` });
  // Only the file: no console, no IPC to windows, nothing sent anywhere.
  for (const [name, transport] of Object.entries(logger.transports)) {
    if (transport && name !== 'file') transport.level = false;
  }
  const transport = logger.transports.file;
  transport.level = problem ? false : 'info';
  transport.maxSize = maxBytes;
  transport.resolvePathFn = () => file;
  // Node's fs takes numeric flags, which electron-log passes on; its type lists the strings only.
  transport.writeOptions = { flag: APPEND_NO_FOLLOW as unknown as 'a', mode: 0o600, encoding: 'utf8' };
  transport.format = '[{iso}] [{level}] {text}';
  // Its path variables start from the app's name, which it would otherwise look for in a package.json.
  transport.setAppName(PRODUCT_NAME);
  const at = (level: LogLevel) => (message: string, fields?: Parameters<Log['info']>[1]) =>
    logger[level](logLine(message, fields));
  const log = { file, problem, info: at('info'), warn: at('warn'), error: at('error') };
  if (removed)
    log.warn('a link found at the log was removed: the log is written only to its own file', { removed });
  return log;
}

/** Removes `path` if it is a symbolic link; whether it was one. */
function removeLink(path: string): boolean {
  try {
    if (!lstatSync(path).isSymbolicLink()) return false;
  } catch {
    return false; // not there yet
  }
  unlinkSync(path);
  return true;
}
