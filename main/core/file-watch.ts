// Watching one file for changes another process makes (the CLI writing the settings file while the
// app runs). Its folder is watched, not the file: an atomic write replaces the file, and a watch on
// the file would follow the replaced one. An editor's or a writer's save is several events: they
// settle into one call. A watch that fails leaves the file unwatched, never a crash.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How long to wait after a change for more before calling. */
const SETTLE_MS = 200;

/** Calls `changed` after the file at `path` changed (settled); returns the stop function. */
export function watchFile(path: string, changed: () => void, settleMs = SETTLE_MS): () => void {
  const name = basename(path);
  let settle: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), (_event, file) => {
      // Some platforms do not say which file; then any change in the folder is read.
      if (file !== null && file !== name) return;
      clearTimeout(settle);
      settle = setTimeout(changed, settleMs);
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // The folder is not there: nothing to watch (the app made it before it got here).
  }
  return () => {
    clearTimeout(settle);
    watcher?.close();
  };
}
