// An error for the user, in an alert region so assistive technology reads it at once: what
// happened and what to do, and the technical detail one click away behind "Details"
// (FailureDetails: right after the words, so a banner stays short). Its message may quote the
// server, so it is shown as the server's text.
import { FailureDetails } from './FailureDetails';
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
  if (!problem?.message) return null;
  const { message, details = [] } = problem;
  return (
    <div className="alert" role="alert" id={id}>
      <div className="alert-text">
        <ServerText text={message} />
        {details.length > 0 && ' '}
        <FailureDetails message={message} details={details} />
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss this message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
