// Marking an order's provisioning status: Start (in progress), Completed, Failed (with the
// reason). The service refuses an unusual transition (say, Completed straight after the
// purchase) with the code 'unusual-transition': the user is asked, and the status is sent
// again with `override` once confirmed. What was marked is shown on its way: waiting to be
// sent, sent, or not sent and why.
import { useRef, useState } from 'react';
import type { RequestOf } from '../../preload/contract';
import { plainText } from '../../preload/marketplace-text';
import type { OutboxItem } from '../../preload/model';
import { DEFAULT_DESCRIPTIONS } from '../../preload/order-status';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { statusLabel } from '../format';
import { ConfirmDialog } from './ConfirmDialog';
import { ErrorAlert } from './ErrorAlert';
import { FailureForm } from './FailureForm';
import { deliveryText } from './ProvisioningHistory';

type MarkRequest = RequestOf<'markStatus'>;

export function ProvisioningActions({
  orderId,
  status,
  outbox,
  onMarked,
}: {
  orderId: string;
  status: string | undefined;
  /** The order's outbox as last read: how what was marked is doing. */
  outbox: OutboxItem[];
  onMarked: () => void;
}) {
  const bridge = useBridge();
  const [busy, setBusy] = useState(false);
  const [failureFormOpen, setFailureFormOpen] = useState(false);
  const [confirming, setConfirming] = useState<{ request: MarkRequest; message: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [marked, setMarked] = useState<OutboxItem | null>(null);
  /** Whether the outbox has listed the marked item: once gone from it, the marketplace confirmed it. */
  const seenInOutbox = useRef(false);

  async function mark(request: MarkRequest): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      const item = await call(bridge, 'markStatus', request);
      seenInOutbox.current = false;
      setMarked(item);
      setConfirming(null);
      setFailureFormOpen(false);
      onMarked();
    } catch (failure) {
      const { code, message } = asBridgeCallError(failure);
      if (code === 'unusual-transition' && !request.override) {
        setConfirming({ request, message });
      } else {
        setConfirming(null);
        setError(message);
      }
    } finally {
      setBusy(false);
    }
  }

  const current = marked ? outbox.find((item) => item.requestId === marked.requestId) : undefined;
  if (current) seenInOutbox.current = true;
  const delivery = marked
    ? current
      ? deliveryLine(current)
      : seenInOutbox.current
        ? 'Confirmed by the marketplace.'
        : deliveryLine(marked)
    : null;

  return (
    <section className="actions" aria-label="Provisioning actions">
      <div className="button-row">
        <button
          type="button"
          className={status === 'ProvisioningStarted' || status === 'ProvisioningFailed' ? 'primary' : ''}
          disabled={busy}
          title="Mark the order's provisioning as in progress"
          onClick={() =>
            void mark({
              orderId,
              statusCode: 'ProvisioningInProgress',
              description: DEFAULT_DESCRIPTIONS.ProvisioningInProgress,
            })
          }
        >
          Start provisioning
        </button>
        <button
          type="button"
          className={status === 'ProvisioningInProgress' ? 'primary' : ''}
          disabled={busy}
          title="Mark the order's provisioning as completed"
          onClick={() =>
            void mark({
              orderId,
              statusCode: 'ProvisioningCompleted',
              description: DEFAULT_DESCRIPTIONS.ProvisioningCompleted,
            })
          }
        >
          Completed
        </button>
        <button
          type="button"
          className="danger-outline"
          disabled={busy || failureFormOpen}
          aria-expanded={failureFormOpen}
          title="Mark the order's provisioning as failed, with the reason"
          onClick={() => setFailureFormOpen(true)}
        >
          Failed…
        </button>
      </div>
      {failureFormOpen && (
        <FailureForm
          busy={busy}
          onCancel={() => setFailureFormOpen(false)}
          onSubmit={(description, detailedDescription) =>
            void mark({ orderId, statusCode: 'ProvisioningFailed', description, detailedDescription })
          }
        />
      )}
      <p className="delivery" role="status">
        {marked && delivery && (
          <>
            Marked {statusLabel(marked.statusCode)}: {delivery}
          </>
        )}
      </p>
      <ErrorAlert message={error} onDismiss={() => setError(null)} />
      {confirming && (
        <ConfirmDialog
          title="Mark anyway?"
          message={confirming.message}
          confirmLabel={`Mark ${statusLabel(confirming.request.statusCode).toLowerCase()} anyway`}
          onCancel={() => setConfirming(null)}
          onConfirm={() => void mark({ ...confirming.request, override: true })}
        />
      )}
    </section>
  );
}

function deliveryLine(item: OutboxItem): string {
  const text = deliveryText(item);
  // The reason may quote the server: its words, made plain.
  return item.state === 'failed' && item.lastError ? `${text}: ${plainText(item.lastError)}` : `${text}.`;
}
