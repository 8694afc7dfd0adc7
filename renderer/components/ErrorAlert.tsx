// An error for the user, in an alert region so assistive technology reads it at once: what
// happened and what to do, and the technical detail one click away behind "Details"
// (FailureDetails: right after the words, so a banner stays short), and when Seller Tray tries
// again by itself, if it does. Its message may quote the server, so it is shown as the server's text.
import { FailureDetails } from './FailureDetails';
import { ServerText } from './ServerText';
import { triesAgain, WordedTimes, wordedText } from './Time';

export function ErrorAlert({
  problem,
  onDismiss,
  id,
}: {
  /** A failure as explained (preload/model.ts `Explained`) or a message alone; nothing is shown without one. */
  problem:
    | { message: string; details?: readonly string[] | undefined; retryAt?: string | undefined }
    | null
    | undefined;
  onDismiss?: (() => void) | undefined;
  /** For a field's `aria-describedby`. */
  id?: string | undefined;
}) {
  if (!problem?.message) return null;
  const { message, details = [], retryAt } = problem;
  const again = retryAt === undefined ? undefined : triesAgain(retryAt);
  return (
    <div className="alert" role="alert" id={id}>
      <div className="alert-text">
        <ServerText text={message} />
        {again && (
          <>
            {' '}
            <WordedTimes words={again} />
          </>
        )}
        {details.length > 0 && ' '}
        <FailureDetails message={again ? `${message} ${wordedText(again)}` : message} details={details} />
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss this message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}
