// An error for the user, in an alert region so assistive technology reads it at once: what
// happened and what to do, and the technical detail (operation, HTTP status, request id) one
// click away behind "Details" (right after the words, so a banner stays short), with a
// button that copies it all for a support ticket. Its message and details may quote the
// server, so they are shown as the server's text.
import { useId, useState } from 'react';
import { CopyButton } from './CopyButton';
import { ServerText } from './ServerText';

export function ErrorAlert({
  problem,
  onDismiss,
  id,
}: {
  /** A failure as explained (preload/model.ts `Explained`) or a message alone; nothing is shown without one. */
  problem: { message: string; details?: readonly string[] | undefined } | null | undefined;
  onDismiss?: (() => void) | undefined;
  /** For a field's `aria-describedby`. */
  id?: string | undefined;
}) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  if (!problem?.message) return null;
  const { message, details } = problem;
  const hasDetails = details !== undefined && details.length > 0;
  return (
    <div className="alert" role="alert" id={id}>
      <div className="alert-text">
        <ServerText text={message} />
        {hasDetails && (
          <>
            {' '}
            <button
              type="button"
              className="link-button alert-toggle"
              aria-expanded={open}
              aria-controls={detailsId}
              onClick={() => setOpen((o) => !o)}
            >
              Details
            </button>
          </>
        )}
        {hasDetails && (
          <div className="alert-details" id={detailsId} hidden={!open}>
            <ul>
              {details.map((detail) => (
                <li key={detail}>
                  <ServerText text={detail} />
                </li>
              ))}
            </ul>
            <CopyButton value={[message, ...details].join('\n')} label="the details" />
          </div>
        )}
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss this message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
