// The log file of the desktop app and the browser preview: `logs/main.log` in the user data
// folder, written by electron-log, which also rotates it (past LOG_MAX_BYTES the file becomes
// main.old.log and a new one starts, so at most twice that is kept). Both use electron-log's Node
// entry: its Electron entry would add IPC listeners that answer any frame without the sender
// check every channel of this app has, and the window logs nothing of its own.
import { join } from 'node:path';
import electronLog from 'electron-log/node';
import { PRODUCT_NAME } from './core/app-identity';
import { type Log, type LogLevel, logLine } from './core/log';
import { ensurePrivateDir } from './core/paths';

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
}

/** A log writing `dir`/main.log, readable by its user only, one line per entry. */
export function fileLog(dir: string, maxBytes: number = LOG_MAX_BYTES): FileLog {
  ensurePrivateDir(dir);
  const file = join(dir, LOG_FILE_NAME);
  const logger = electronLog.create({ logId: `seller-tray ${file}` });
  // Only the file: no console, no IPC to windows, nothing sent anywhere.
  for (const [name, transport] of Object.entries(logger.transports)) {
    if (transport && name !== 'file') transport.level = false;
  }
  const transport = logger.transports.file;
  transport.level = 'info';
  transport.maxSize = maxBytes;
  transport.resolvePathFn = () => file;
  transport.writeOptions = { flag: 'a', mode: 0o600, encoding: 'utf8' };
  transport.format = '[{iso}] [{level}] {text}';
  // Its path variables start from the app's name, which it would otherwise look for in a package.json.
  transport.setAppName(PRODUCT_NAME);
  const at = (level: LogLevel) => (message: string, fields?: Parameters<Log['info']>[1]) =>
    logger[level](logLine(message, fields));
  return { file, info: at('info'), warn: at('warn'), error: at('error') };
}
