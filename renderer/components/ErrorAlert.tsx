// An error for the user, in an alert region so assistive technology reads it at once; what
// it is about in detail (when there is more to say) one click away. Its message and details
// may quote the server, so they are shown as the server's text.
import { ServerText } from './ServerText';

export function ErrorAlert({
  message,
  details,
  onDismiss,
}: {
  message: string | null;
  details?: readonly string[] | undefined;
  onDismiss?: () => void;
}) {
  if (!message) return null;
  return (
    <div className="alert" role="alert">
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
