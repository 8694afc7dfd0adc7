// The order's provisioning as a timeline: the events the marketplace holds, then what this
// laptop marked and the marketplace has not confirmed yet (waiting, sent, or failed with
// the reason, to send again).
import type { MarketplaceEvent } from '../../preload/marketplace';
import type { OutboxItem } from '../../preload/model';
import { statusLabel } from '../format';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';
import { Time } from './Time';

export function ProvisioningHistory({
  history,
  outbox,
  onRetry,
  retrying,
}: {
  history: MarketplaceEvent[];
  outbox: OutboxItem[];
  onRetry: (requestId: string) => void;
  retrying: string | null;
}) {
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
                {event.eventTypeCode !== undefined && (
                  <span className="muted">
                    <ServerText text={event.eventTypeCode} />
                  </span>
                )}
              </div>
              {event.description !== undefined && (
                <p className="timeline-text">
                  <ServerText text={event.description} lines />
                </p>
              )}
              {event.detailedDescription !== undefined && (
                <p className="timeline-detail">
                  <ServerText text={event.detailedDescription} lines />
                </p>
              )}
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
                  <span className="delivery-state">{deliveryText(item)}</span>
                </div>
                <p className="timeline-text">{item.description}</p>
                {item.detailedDescription !== undefined && (
                  <p className="timeline-detail">{item.detailedDescription}</p>
                )}
                {item.state === 'failed' && (
                  <div className="timeline-actions">
                    {item.lastError !== undefined && (
                      <p className="error-text">
                        <ServerText text={item.lastError} />
                      </p>
                    )}
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

/** Where a marked status is on its way to the marketplace, in words. */
export function deliveryText(item: Pick<OutboxItem, 'state' | 'attempts'>): string {
  switch (item.state) {
    case 'pending':
      return item.attempts > 0 ? 'Waiting to be sent (will try again)' : 'Waiting to be sent';
    case 'sent':
      return 'Sent; waiting for the marketplace to list it';
    case 'failed':
      return 'Not sent';
  }
}
