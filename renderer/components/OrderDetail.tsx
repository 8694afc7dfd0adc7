// One order, in the order a person works it: who bought and where it stands (OrderHeader), the
// actions, what to provision (lines, licenses, delivery contacts) and how (its products'
// runbooks), then the buyer, the seller, the order's own facts and its provisioning history. It opens at once from the inbox's row
// while the whole order loads. Keyboard: Escape goes back to the inbox, ↑/↓ or j/k move to the
// previous or next order of the inbox (beside the inbox, in the split view, the list has those
// keys and the focus stays there). All of it is the server's text, rendered as text.
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { AccountState, OrderListItem, OrderView } from '../../preload/contract';
import type { Explained, OutboxItem } from '../../preload/model';
import { orderTotal } from '../../preload/money';
import type { MarkableStatus } from '../../preload/order-status';
import { type Runbook, type RunbookReason, runbooksOfOrder } from '../../preload/runbooks';
import { call, explained } from '../bridge/call';
import { useBridge, useBridgeEvents } from '../bridge/context';
import { formatTotal } from '../format';
import { useDocumentKey } from '../hooks/useDocumentKey';
import { useSettings } from '../hooks/useSettings';
import { isWindowKey, keyAction } from '../keyboard';
import { lastMark, receivedAt } from '../order-marks';
import { AutomationRuns } from './AutomationRuns';
import { ContactDetails } from './ContactDetails';
import { CopyServerText } from './CopyButton';
import { DeliveryContacts } from './DeliveryContacts';
import { DocumentLines } from './DocumentLines';
import { ErrorAlert } from './ErrorAlert';
import { FailureDetails } from './FailureDetails';
import { FieldList } from './FieldList';
import { Licenses } from './Licenses';
import { type HeaderFacts, OrderHeader } from './OrderHeader';
import { OrderRunbooks } from './OrderRunbooks';
import { PartyDetails } from './PartyDetails';
import { ProvisioningActions } from './ProvisioningActions';
import { ProvisioningHistory } from './ProvisioningHistory';
import { ServerText } from './ServerText';
import { CalendarDate, Time, triesAgain, type Worded, WordedTimes, wordedText } from './Time';
import { useUndo } from './UndoBar';

/** Which way to step through the inbox's orders. */
export type Step = 1 | -1;

export function OrderDetail({
  orderId,
  account,
  named,
  preview,
  onBack,
  onStep,
  onNextWaiting,
  beside = false,
  pressOnOpen,
  automationsAllowed = true,
}: {
  orderId: string;
  /** The account the order is in (its id): it is read, and marked, there (an id may be in two). */
  account?: string | undefined;
  /** That account, while the app serves several: the page names it (preload/served-account.ts). */
  named?: AccountState | undefined;
  /** The inbox's row of the order, shown until the whole order is read. */
  preview?: OrderListItem | undefined;
  onBack: () => void;
  /** Opens the previous or next order of the inbox. */
  onStep?: ((step: Step) => void) | undefined;
  /** Opens the order that has waited longest (after a mark, the way on). */
  onNextWaiting?: (() => void) | undefined;
  /** Beside the inbox (the split view): no way back, no focus taken, the list's arrows. */
  beside?: boolean;
  /** Whether automations may run on this computer (a policy may forbid them): Run again is offered. */
  automationsAllowed?: boolean;
  /** A step to take as it opens (the inbox's "f" on a row). */
  pressOnOpen?: MarkableStatus | undefined;
}) {
  const bridge = useBridge();
  const undo = useUndo();
  const runbooks = useSettings().settings?.runbooks ?? NO_RUNBOOKS;
  const [view, setView] = useState<OrderView | null>(null);
  const [error, setError] = useState<Explained | null>(null);
  const [retrying, setRetrying] = useState<string | null>(null);
  const latestLoad = useRef(0);
  const headingRef = useRef<HTMLHeadingElement>(null);

  /** The view shown, as JSON: a reload that brings the same order (a refresh that changed nothing) redraws nothing. */
  const shownJson = useRef('');

  /**
   * Reads the order: opening it (or Try again) may refresh it from the marketplace; `reread`, the
   * page following a change it was told of, reads the app's copy only, so a page left open costs
   * the marketplace nothing.
   */
  const load = useCallback(
    async (reread = false) => {
      const mine = ++latestLoad.current;
      try {
        const loaded = await call(bridge, 'getOrder', { orderId, account, ...(reread ? { reread } : {}) });
        if (mine !== latestLoad.current) return;
        const json = JSON.stringify(loaded);
        if (json !== shownJson.current) {
          shownJson.current = json;
          setView(loaded);
        }
        setError(null);
      } catch (failure) {
        if (mine === latestLoad.current) setError(explained(failure));
      }
    },
    [bridge, orderId, account],
  );
  const reread = useCallback(() => void load(true), [load]);

  useEffect(() => {
    setView(null);
    setError(null);
    void load();
  }, [load]);

  const facts = view ? headerOf(view, orderId) : preview ? headerOfRow(preview) : undefined;
  // Screen readers and the keyboard start at the order, as soon as it is shown (from the row).
  const shown = facts !== undefined;
  useEffect(() => {
    if (shown && !beside) headingRef.current?.focus();
  }, [shown, beside]);

  // Escape: back to the inbox; ↑/↓, j/k: the previous or next order. Not while typing, not in a
  // dialog or a group that handles the key itself (they stop it).
  useDocumentKey((event) => {
    if (!isWindowKey(event)) return;
    const action = keyAction(event, 'order');
    if (action === 'back') {
      event.preventDefault();
      // A held Escape that closed something over the order (Help, a menu) does not leave it too.
      if (!event.repeat) onBack();
      return;
    }
    const step = action === 'next' ? 1 : action === 'previous' ? -1 : undefined;
    if (step && onStep && !beside) {
      event.preventDefault();
      onStep(step);
    }
  });

  // While something the user marked is on its way, its delivery state changes with the app's state;
  // a background refresh of this order (fetched, or failed) shows once it has ended.
  const awaitingDelivery = (view?.outbox.length ?? 0) > 0;
  useBridgeEvents((event) => {
    if (event.type === 'orders-updated' && event.orderIds.includes(orderId)) reread();
    if (awaitingDelivery && event.type === 'app-state') reread();
  });

  /** Send again: a refused status through the outbox; one the marketplace never listed, once checked absent. */
  async function retry(requestId: string): Promise<void> {
    setRetrying(requestId);
    try {
      if (view?.unconfirmed?.includes(requestId)) await call(bridge, 'resendStatus', { requestId, account });
      else await call(bridge, 'retryDelivery', { requestId, account });
      await load(true);
    } catch (failure) {
      setError(explained(failure));
    } finally {
      setRetrying(null);
    }
  }

  const back = (
    <button type="button" className="link-button back-link" onClick={onBack}>
      ← Back to inbox <kbd>Esc</kbd>
    </button>
  );
  const actions = (view || preview) && (
    <ProvisioningActions
      orderId={orderId}
      account={account}
      status={facts?.status}
      outbox={view?.outbox ?? []}
      settled={view?.settled ?? []}
      subject={facts?.title ?? orderId}
      onMarked={reread}
      onNextWaiting={onNextWaiting}
      pressOnOpen={pressOnOpen}
      reasons={view ? reasonsOf(view, runbooks) : []}
    />
  );

  // One tree whether the order is read yet or not: the actions keep their state (a mark on its
  // way, where the focus goes next) when the whole order arrives.
  return (
    <section
      className="order-detail"
      aria-labelledby={facts ? 'order-heading' : undefined}
      aria-label={facts ? undefined : 'Order'}
    >
      {!beside && back}
      {facts && <OrderHeader ref={headingRef} facts={facts} account={named} />}
      {view || !error ? (
        <ErrorAlert problem={error} onDismiss={() => setError(null)} />
      ) : (
        <>
          <ErrorAlert problem={error} />
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </>
      )}
      {view && view.refreshProblem !== null && (
        <RefreshProblem
          problem={view.refreshProblem}
          fetchedAt={view.fetchedAt}
          againAt={view.refreshAgainAt}
          onTryAgain={() => void load()}
        />
      )}
      {view?.statusReversal !== undefined && (
        // Another laptop moved the status back: said, never silent (docs/api-client.md, "An order's status").
        <p className="stale-note" role="status">
          <ServerText text={`${view.statusReversal}.`} />
        </p>
      )}
      {(view || !error) && actions}
      {view && (
        <AutomationRuns
          orderId={orderId}
          account={account}
          runs={view.automationRuns}
          onRan={reread}
          allowed={automationsAllowed}
        />
      )}
      {!view && !error && <p role="status">Loading the order…</p>}
      {view && (
        <OrderSections
          view={view}
          orderId={orderId}
          retrying={retrying}
          onRetry={(requestId) => void retry(requestId)}
          onUndo={(item) => void undo.undo(item)}
          runbooks={<OrderRunbooks orderId={orderId} account={account} view={view} runbooks={runbooks} />}
        />
      )}
    </section>
  );
}

/**
 * A refresh that failed, beside the stored order it leaves shown: since when that is the order, when
 * Seller Tray reads it again by itself, what to do, and the failure behind Details.
 */
function RefreshProblem({
  problem,
  fetchedAt,
  againAt,
  onTryAgain,
}: {
  problem: Explained;
  fetchedAt: string | null;
  againAt: string | null;
  onTryAgain: () => void;
}) {
  const words: Worded = [
    'Could not read this order from the marketplace: ',
    ...(fetchedAt === null
      ? ['this is the order as this laptop has it.']
      : ['this is the order as read at ', { iso: fetchedAt }, '.']),
    ...(againAt === null ? [] : [' ', ...triesAgain(againAt)]),
    ` ${problem.message}`,
  ];
  const message = wordedText(words);
  return (
    <div className="stale-note" role="status">
      <WordedTimes words={words} /> <FailureDetails message={message} details={problem.details} />{' '}
      <button type="button" className="link-button" onClick={onTryAgain}>
        Try again
      </button>
    </div>
  );
}

/** What the whole order holds, in the order a person works it after the actions. */
function OrderSections({
  view,
  orderId,
  retrying,
  onRetry,
  onUndo,
  runbooks,
}: {
  view: OrderView;
  orderId: string;
  retrying: string | null;
  onRetry: (requestId: string) => void;
  onUndo: (item: OutboxItem) => void;
  /** The runbooks of the order's products: how to provision, after what to provision. */
  runbooks: ReactNode;
}) {
  const { order, licenses, history, outbox } = view;
  const buyer = order.buyerCustomerParty;
  const total = orderTotal(order);
  const validity = order.validityPeriod;
  return (
    <>
      <section aria-labelledby="provision-section">
        <h3 id="provision-section">To provision</h3>
        <DocumentLines lines={order.documentLines} currency={order.documentCurrencyCode} />
        <h4>Licenses</h4>
        <Licenses licenses={licenses} />
        {order.documentLines.some((line) => line.lineItem?.delivery?.contact) && (
          <>
            <h4>Delivery contacts</h4>
            <DeliveryContacts lines={order.documentLines} />
          </>
        )}
      </section>
      {runbooks}

      <section aria-labelledby="buyer-section">
        <h3 id="buyer-section">Buyer</h3>
        <PartyDetails
          label="Buyer"
          party={buyer.party}
          extra={[
            [
              'Our account id',
              buyer.supplierAssignedAccountId !== undefined && (
                <>
                  <span className="mono">
                    <ServerText text={buyer.supplierAssignedAccountId} />
                  </span>{' '}
                  <CopyServerText text={buyer.supplierAssignedAccountId} label="buyer account id" />
                </>
              ),
            ],
          ]}
        />
        <ContactDetails label="Buyer contact" contact={buyer.buyerContact} />
      </section>

      <section aria-labelledby="seller-section">
        <h3 id="seller-section">Seller</h3>
        {/* Our own company, the same on every order: folded away, one click to check it. */}
        <details className="seller-details">
          <summary>
            <ServerText text={order.sellerSupplierParty.party?.partyName ?? 'Your company'} /> (your company)
          </summary>
          <PartyDetails label="Seller" party={order.sellerSupplierParty.party} />
        </details>
      </section>

      <section aria-labelledby="order-section">
        <h3 id="order-section">Order details</h3>
        <FieldList
          label="Order details"
          fields={[
            [
              'Order id',
              <>
                <span className="mono">
                  <ServerText text={order.orderId ?? orderId} />
                </span>{' '}
                <CopyServerText text={order.orderId ?? orderId} label="order id" />
              </>,
            ],
            ['Issued', order.issueTime !== undefined && <Time iso={order.issueTime} />],
            ['Type', order.orderTypeCode],
            ['Valid from', validity?.startDate !== undefined && <CalendarDate date={validity.startDate} />],
            ['Valid until', validity?.endDate !== undefined && <CalendarDate date={validity.endDate} />],
            ['Validity', validity?.description && <ServerText text={validity.description} lines />],
            ['Anticipated total', total && formatTotal(total)],
            ['Currency', order.documentCurrencyCode],
            ['Note', order.note && <ServerText text={order.note} lines />],
          ]}
        />
      </section>

      <section aria-labelledby="history-section">
        <h3 id="history-section">Provisioning history</h3>
        <ProvisioningHistory
          history={history}
          outbox={outbox}
          unconfirmed={view.unconfirmed}
          retrying={retrying}
          onRetry={onRetry}
          onUndo={onUndo}
        />
      </section>
    </>
  );
}

const NO_RUNBOOKS: Runbook[] = [];

/** The Failed reasons the order's runbooks offer, each once. */
function reasonsOf(view: OrderView, runbooks: readonly Runbook[]): RunbookReason[] {
  const reasons = runbooksOfOrder(view.order, runbooks).flatMap(({ runbook }) => runbook.reasons);
  return reasons.filter((r, i) => reasons.findIndex((o) => o.description === r.description) === i);
}

/** The header's facts from the whole order. */
function headerOf(view: OrderView, orderId: string): HeaderFacts {
  const { order } = view;
  const buyer = order.buyerCustomerParty;
  return {
    orderId: order.orderId ?? orderId,
    title: buyer.party?.partyName ?? buyer.buyerContact?.name ?? `Order ${order.orderId ?? orderId}`,
    status: view.status,
    total: orderTotal(order),
    receivedAt: receivedAt(view.history, order),
    waitingSince: view.waitingSince,
    lastMark: lastMark(view.history, view.outbox),
  };
}

/** The header's facts from the inbox's row, until the whole order is read. */
function headerOfRow(row: OrderListItem): HeaderFacts {
  return {
    orderId: row.orderId,
    title: row.buyer ?? `Order ${row.orderId}`,
    status: row.status,
    total: row.total,
    receivedAt: row.since,
    waitingSince: row.waitingSince,
    lastMark: undefined,
  };
}
