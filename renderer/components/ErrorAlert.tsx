// An error for the user, in an alert region so assistive technology reads it at once. Its
// message may quote the server, so it is shown as the server's text.
import { ServerText } from './ServerText';

export function ErrorAlert({ message, onDismiss }: { message: string | null; onDismiss?: () => void }) {
  if (!message) return null;
  return (
    <div className="alert" role="alert">
      <span className="alert-text">
        <ServerText text={message} />
      </span>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss this message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
