// "Open log folder": the log file is what support asks for with a problem (every failed call
// with its request id, each check, each status sent). The desktop app opens its folder in the
// file manager; the browser preview cannot reach one, so the folder's path is shown to copy.
import { useId, useState } from 'react';
import type { LogFolder } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { CopyButton } from './CopyButton';
import { ErrorAlert } from './ErrorAlert';

export function LogFolderPanel() {
  const bridge = useBridge();
  const headingId = useId();
  const [folder, setFolder] = useState<LogFolder | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function open(): Promise<void> {
    setError(null);
    setFolder(null);
    try {
      setFolder(await call(bridge, 'openLogFolder', undefined));
    } catch (failure) {
      setError(asBridgeCallError(failure).message);
    }
  }

  return (
    <section className="log-folder" aria-labelledby={headingId}>
      <h3 id={headingId}>Log file</h3>
      <p className="hint">
        Seller Tray keeps a log of its checks, failed calls (with the request ids support asks for) and the
        statuses it sent; never your secret. Attach it to a support ticket.
      </p>
      <button type="button" onClick={() => void open()}>
        Open log folder
      </button>
      <ErrorAlert message={error} onDismiss={() => setError(null)} />
      <p role="status">
        {folder && (
          <>
            {folder.opened ? 'Opened the log folder: ' : 'The log file is in this folder: '}
            <code>{folder.path}</code> <CopyButton value={folder.path} label="log folder path" />
          </>
        )}
      </p>
    </section>
  );
}
