// An error for the user, in an alert region so assistive technology reads it at once: what
// happened and what to do, and the technical detail (operation, HTTP status, request id) one
// click away under "Details", with a button that copies it for a support ticket. Its message
// and details may quote the server, so they are shown as the server's text.
import { CopyButton } from './CopyButton';
import { ServerText } from './ServerText';

export function ErrorAlert({
  message,
  details,
  onDismiss,
  id,
}: {
  message: string | null;
  details?: readonly string[] | undefined;
  onDismiss?: (() => void) | undefined;
  /** For a field's `aria-describedby`. */
  id?: string | undefined;
}) {
  if (!message) return null;
  return (
    <div className="alert" role="alert" id={id}>
      <div className="alert-text">
        <ServerText text={message} />
        {details && details.length > 0 && (
          <details className="alert-details">
            <summary>Details</summary>
            <ul>
              {details.map((detail) => (
                <li key={detail}>
                  <ServerText text={detail} />
                </li>
              ))}
            </ul>
            <CopyButton value={[message, ...details].join('\n')} label="the details" />
          </details>
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
