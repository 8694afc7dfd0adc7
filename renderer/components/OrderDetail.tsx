// One order, with everything it holds: the order's own fields, both parties with their
// addresses and contacts, its lines, its licenses and its provisioning history, and the
// actions to mark its status. All of it is the server's text, rendered as text.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderView } from '../../preload/contract';
import { asBridgeCallError, call } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';
import { formatAmount } from '../format';
import { ContactDetails } from './ContactDetails';
import { CopyButton } from './CopyButton';
import { CopyOrderLink } from './CopyOrderLink';
import { DocumentLines } from './DocumentLines';
import { ErrorAlert } from './ErrorAlert';
import { FieldList } from './FieldList';
import { Licenses } from './Licenses';
import { PartyDetails } from './PartyDetails';
import { ProvisioningActions } from './ProvisioningActions';
import { ProvisioningHistory } from './ProvisioningHistory';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';
import { CalendarDate, Time } from './Time';

export function OrderDetail({ orderId, onBack }: { orderId: string; onBack: () => void }) {
  const bridge = useBridge();
  const [view, setView] = useState<OrderView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retrying, setRetrying] = useState<string | null>(null);
  const latestLoad = useRef(0);
  const headingRef = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    const mine = ++latestLoad.current;
    try {
      const loaded = await call(bridge, 'getOrder', { orderId });
      if (mine !== latestLoad.current) return;
      setView(loaded);
      setError(null);
    } catch (failure) {
      if (mine === latestLoad.current) setError(asBridgeCallError(failure).message);
    }
  }, [bridge, orderId]);

  useEffect(() => {
    setView(null);
    void load();
  }, [load]);

  // Screen readers and the keyboard start at the order once it is shown.
  const shown = view !== null;
  useEffect(() => {
    if (shown) headingRef.current?.focus();
  }, [shown]);

  // While something the user marked is on its way, its delivery state changes with the app's state;
  // a background refresh of this order (fetched, or failed) shows once it has ended.
  const awaitingDelivery = (view?.outbox.length ?? 0) > 0;
  useBridgeEvents((event) => {
    if (event.type === 'orders-updated' && event.orderIds.includes(orderId)) void load();
    if (awaitingDelivery && (event.type === 'app-state' || event.type === 'state-changed')) void load();
  });

  async function retry(requestId: string): Promise<void> {
    setRetrying(requestId);
    try {
      await call(bridge, 'retryDelivery', { requestId });
      await load();
    } catch (failure) {
      setError(asBridgeCallError(failure).message);
    } finally {
      setRetrying(null);
    }
  }

  const back = (
    <button type="button" className="link-button" onClick={onBack}>
      ← Back to inbox
    </button>
  );

  if (!view) {
    return (
      <section className="order-detail" aria-label="Order">
        {back}
        {error ? (
          <>
            <ErrorAlert message={error} />
            <button type="button" onClick={() => void load()}>
              Try again
            </button>
          </>
        ) : (
          <p role="status">Loading the order…</p>
        )}
      </section>
    );
  }

  const { order, licenses, history, outbox, status } = view;
  const buyer = order.buyerCustomerParty;
  const seller = order.sellerSupplierParty;
  const total = order.anticipatedMonetaryTotal;
  const validity = order.validityPeriod;
  const title = buyer.party?.partyName ?? buyer.buyerContact?.name ?? `Order ${order.orderId ?? orderId}`;

  return (
    <section className="order-detail" aria-labelledby="order-heading">
      {back}
      <header className="order-head">
        <h2 id="order-heading" ref={headingRef} tabIndex={-1}>
          <ServerText text={title} />
        </h2>
        <StatusChip status={status} />
        {total?.amount !== undefined && (
          <span className="order-total">
            {formatAmount(total.amount, total.currencyCode ?? order.documentCurrencyCode)}
          </span>
        )}
        <CopyOrderLink orderId={order.orderId ?? orderId} />
      </header>
      <ErrorAlert message={error} onDismiss={() => setError(null)} />
      {view.refreshProblem !== null && (
        <p className="stale-note" role="status">
          {view.fetchedAt === null ? (
            'The marketplace did not answer; this is the order as this laptop has it.'
          ) : (
            <>
              As of <Time iso={view.fetchedAt} />: the marketplace did not answer since, so this may be out of
              date.
            </>
          )}{' '}
          <button type="button" className="link-button" onClick={() => void load()}>
            Try again
          </button>
        </p>
      )}

      <ProvisioningActions orderId={orderId} status={status} outbox={outbox} onMarked={() => void load()} />

      <section aria-labelledby="order-section">
        <h3 id="order-section">Order</h3>
        <FieldList
          label="Order"
          fields={[
            [
              'Order id',
              <>
                <span className="mono">
                  <ServerText text={order.orderId ?? orderId} />
                </span>{' '}
                <CopyButton value={order.orderId ?? orderId} label="order id" />
              </>,
            ],
            ['Issued', order.issueTime !== undefined && <Time iso={order.issueTime} />],
            ['Type', order.orderTypeCode],
            ['Currency', order.documentCurrencyCode],
            [
              'Anticipated total',
              total?.amount !== undefined &&
                formatAmount(total.amount, total.currencyCode ?? order.documentCurrencyCode),
            ],
            ['Total currency', total?.currencyCode],
            ['Note', order.note && <ServerText text={order.note} lines />],
          ]}
        />
        {validity && (
          <>
            <h4>Validity period</h4>
            <FieldList
              label="Validity period"
              fields={[
                ['Starts', validity.startDate !== undefined && <CalendarDate date={validity.startDate} />],
                ['Ends', validity.endDate !== undefined && <CalendarDate date={validity.endDate} />],
                ['Description', validity.description && <ServerText text={validity.description} lines />],
              ]}
            />
          </>
        )}
      </section>

      <section aria-labelledby="buyer-section">
        <h3 id="buyer-section">Buyer</h3>
        <PartyDetails
          label="Buyer"
          party={buyer.party}
          extra={[
            [
              'Account id (ours)',
              buyer.supplierAssignedAccountId !== undefined && (
                <>
                  <span className="mono">
                    <ServerText text={buyer.supplierAssignedAccountId} />
                  </span>{' '}
                  <CopyButton value={buyer.supplierAssignedAccountId} label="buyer account id" />
                </>
              ),
            ],
          ]}
        />
        <ContactDetails label="Buyer contact" contact={buyer.buyerContact} />
      </section>

      <section aria-labelledby="seller-section">
        <h3 id="seller-section">Seller</h3>
        <PartyDetails label="Seller" party={seller.party} />
      </section>

      <section aria-labelledby="lines-section">
        <h3 id="lines-section">Lines</h3>
        <DocumentLines lines={order.documentLines} currency={order.documentCurrencyCode} />
      </section>

      <section aria-labelledby="licenses-section">
        <h3 id="licenses-section">Licenses</h3>
        <Licenses licenses={licenses} />
      </section>

      <section aria-labelledby="history-section">
        <h3 id="history-section">Provisioning history</h3>
        <ProvisioningHistory
          history={history}
          outbox={outbox}
          retrying={retrying}
          onRetry={(requestId) => void retry(requestId)}
        />
      </section>
    </section>
  );
}
