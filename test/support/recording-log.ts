// A Log that keeps its entries, for tests that check what the core tells support.
import type { Log, LogFields, LogLevel } from '../../main/core/log';

export interface LogEntry {
  level: LogLevel;
  message: string;
  fields: LogFields;
}

export function recordingLog(): { log: Log; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}) =>
      void entries.push({ level, message, fields });
  return { log: { info: at('info'), warn: at('warn'), error: at('error') }, entries };
}
