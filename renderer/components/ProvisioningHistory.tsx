// The order's provisioning as a timeline: the events the marketplace holds, each with who
// marked it when Seller Tray posted it (from any laptop: the name is in its description),
// then what this laptop marked and the marketplace has not confirmed yet (held so it can be
// undone, waiting, sent, or failed, to send again; sent but never listed after a few polls, to
// send again once it is checked to be absent), with why its last post failed: plain words, the
// technical detail behind "Details".

import { isHeld } from '../../preload/hold';
import { markPhaseWords } from '../../preload/mark-phase';
import { parseMark } from '../../preload/marked-by';
import type { MarketplaceEvent } from '../../preload/marketplace';
import type { OutboxItem } from '../../preload/model';
import { isPlainPurchase, purchaseTypeLabel } from '../../preload/order-status';
import { statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';
import { Time } from './Time';

export function ProvisioningHistory({
  history,
  outbox,
  unconfirmed = [],
  onRetry,
  onUndo,
  retrying,
}: {
  history: MarketplaceEvent[];
  outbox: OutboxItem[];
  /** Sent statuses the marketplace's listing did not show after a few polls (their request ids). */
  unconfirmed?: readonly string[];
  onRetry: (requestId: string) => void;
  onUndo: (item: OutboxItem) => void;
  retrying: string | null;
}) {
  // Each second while a status is held, so its Undo goes when its grace period ends.
  const now = useNow(outbox.some((item) => isHeld(item, Date.now())) ? 1_000 : 60_000);
  return (
    <>
      {history.length === 0 ? (
        <p className="muted">No provisioning events yet.</p>
      ) : (
        <ol className="timeline" aria-label="Provisioning history">
          {history.map((event, index) => (
            <li className="timeline-item" key={event.eventId ?? `event-${index}`}>
              <div className="timeline-head">
                {event.eventTime !== undefined && <Time iso={event.eventTime} />}
                <StatusChip status={event.statusCode} />
                {!isPlainPurchase(event.eventTypeCode) && (
                  <span className="muted">
                    <ServerText text={purchaseTypeLabel(event.eventTypeCode ?? '')} />
                  </span>
                )}
              </div>
              <MarkText description={event.description} detailed={event.detailedDescription} />
            </li>
          ))}
        </ol>
      )}
      {outbox.length > 0 && (
        <>
          <h4>Not yet confirmed by the marketplace</h4>
          <ol className="timeline timeline-outbox" aria-label="Statuses not yet confirmed">
            {outbox.map((item) => (
              <li className={`timeline-item delivery-${item.state}`} key={item.requestId}>
                <div className="timeline-head">
                  <Time iso={item.createdAt} />
                  <StatusChip status={item.statusCode} />
                  <span className="delivery-state">{markPhaseWords(item, now)}</span>
                </div>
                <MarkText description={item.description} detailed={item.detailedDescription} />
                {isHeld(item, now) && (
                  <div className="timeline-actions">
                    <button
                      type="button"
                      aria-label={`Undo: ${statusLabel(item.statusCode)}`}
                      onClick={() => onUndo(item)}
                    >
                      Undo
                    </button>
                  </div>
                )}
                {item.problem && <ErrorAlert problem={item.problem} />}
                {unconfirmed.includes(item.requestId) && (
                  <p className="timeline-detail">
                    The marketplace has not listed it after several checks. Send again checks first that it is
                    really missing.
                  </p>
                )}
                {(item.state === 'failed' || unconfirmed.includes(item.requestId)) && (
                  <div className="timeline-actions">
                    <button
                      type="button"
                      disabled={retrying === item.requestId}
                      aria-label={`Send again: ${statusLabel(item.statusCode)}`}
                      onClick={() => onRetry(item.requestId)}
                    >
                      {retrying === item.requestId ? 'Sending…' : 'Send again'}
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}

/** A mark's words: who marked it when Seller Tray wrote them, and what they said. */
function MarkText({
  description,
  detailed,
}: {
  description: string | undefined;
  detailed: string | undefined;
}) {
  const mark = parseMark(description);
  return (
    <>
      {mark ? (
        <p className="timeline-text">
          <span className="timeline-actor">
            Marked by <ServerText text={mark.actor} />
          </span>
          {mark.text !== '' && (
            <>
              : <ServerText text={mark.text} lines />
            </>
          )}
        </p>
      ) : (
        description !== undefined && (
          <p className="timeline-text">
            <ServerText text={description} lines />
          </p>
        )
      )}
      {detailed !== undefined && (
        <p className="timeline-detail">
          <ServerText text={detailed} lines />
        </p>
      )}
    </>
  );
}
