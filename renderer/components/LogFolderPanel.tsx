// "Open log folder": the log file is what support asks for with a problem (every failed call
// with its request id, each check, each status sent). The desktop app opens its folder in the
// file manager; the browser preview cannot reach one, so the folder's path is shown to copy.
import { useId } from 'react';
import { useBridgeCall } from '../hooks/useBridgeCall';
import { CopyButton } from './CopyButton';
import { ErrorAlert } from './ErrorAlert';

export function LogFolderPanel() {
  const headingId = useId();
  const { run, answer: folder, error, dismissError } = useBridgeCall('openLogFolder', undefined);

  return (
    <section className="log-folder" aria-labelledby={headingId}>
      <h3 id={headingId}>Log file</h3>
      <p className="hint">
        Seller Tray keeps a log of its checks, failed calls (with the request ids support asks for) and the
        statuses it sent; never your secret. Attach it to a support ticket.
      </p>
      <button type="button" onClick={() => void run()}>
        Open log folder
      </button>
      <ErrorAlert problem={error} onDismiss={dismissError} />
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
