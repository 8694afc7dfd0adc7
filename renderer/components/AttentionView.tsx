// Needs attention: what should not wait unseen, in one place. New orders nobody started after the
// reminder delay, orders in progress past the in-progress limit, statuses this laptop sent that
// the marketplace's listing did not show after a few polls ("Send again" checks first that it is
// really absent, then sends it through the outbox), statuses the marketplace refused, and items
// it sent that could not be read. Read from the store alone (getAttention): holding the view open
// costs the marketplace nothing; it is read again when the app's state or its orders change.
import { useCallback, useEffect, useRef, useState } from 'react';
import { plainText } from '../../preload/marketplace-text';
import type { Attention, AttentionMark, Explained, InboxRow } from '../../preload/model';
import { attentionTotal } from '../../preload/model';
import { type PauseChoice, SNOOZE_CHOICES } from '../../preload/pause';
import { call, explained } from '../bridge/call';
import { type BridgeEvent, useBridge, useBridgeEvents } from '../bridge/context';
import { formatAge, formatDateTime, plural, statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';

const REFRESHING_EVENTS: ReadonlySet<BridgeEvent['type']> = new Set([
  'app-state',
  'orders-arrived',
  'orders-updated',
]);

export function AttentionView({ onOpen }: { onOpen: (orderId: string) => void }) {
  const bridge = useBridge();
  const now = useNow();
  const [attention, setAttention] = useState<Attention | null>(null);
  const [problem, setProblem] = useState<Explained | null>(null);
  /** What the last action came to, said once. */
  const [said, setSaid] = useState('');
  const reading = useRef<{ again: boolean } | null>(null);

  const load = useCallback(async () => {
    // One read at a time: a burst of events (a poll's) reads once more after it, not once each.
    if (reading.current) {
      reading.current.again = true;
      return;
    }
    reading.current = { again: false };
    try {
      do {
        reading.current.again = false;
        setAttention(await call(bridge, 'getAttention', undefined));
        setProblem(null);
      } while (reading.current.again);
    } catch (failure) {
      setProblem(explained(failure));
    } finally {
      reading.current = null;
    }
  }, [bridge]);
  useEffect(() => {
    void load();
  }, [load]);
  useBridgeEvents((event) => {
    if (REFRESHING_EVENTS.has(event.type)) void load();
  });

  async function act(work: () => Promise<string>): Promise<void> {
    setSaid('');
    try {
      setSaid(await work());
    } catch (failure) {
      setProblem(explained(failure));
    }
    await load();
  }

  const resend = (mark: AttentionMark) =>
    act(async () => {
      const { outcome } = await call(bridge, 'resendStatus', { requestId: mark.item.requestId });
      return outcome === 'found'
        ? `${statusLabel(mark.item.statusCode)} was in the marketplace after all: nothing was sent again.`
        : `${statusLabel(mark.item.statusCode)} is being sent again.`;
    });
  const retry = (mark: AttentionMark) =>
    act(async () => {
      await call(bridge, 'retryDelivery', { requestId: mark.item.requestId });
      return `${statusLabel(mark.item.statusCode)} is being sent again.`;
    });
  const snooze = (row: InboxRow, choice: PauseChoice) =>
    act(async () => {
      const until = choice.until(new Date()).toISOString();
      await call(bridge, 'snoozeOrder', { orderId: row.orderId, until });
      return `${plainText(row.buyer ?? row.orderId)}: not announced as urgent on this laptop before ${formatDateTime(until)}.`;
    });
  const seen = (upToId: number) =>
    act(async () => {
      await call(bridge, 'markAsideSeen', { upToId });
      return 'The unreadable items are marked as seen.';
    });

  if (!attention) {
    return problem ? <ErrorAlert problem={problem} /> : <p role="status">Reading…</p>;
  }
  const { counts } = attention;
  const newestAside = attention.keptAside[0]?.id;
  const orderItems = (rows: InboxRow[], detail: (row: InboxRow) => string, snoozable = false) =>
    rows.map((row) => (
      <OrderItem key={row.orderId} row={row} onOpen={onOpen} detail={detail(row)}>
        {snoozable && attention.escalateAfterMinutes > 0 && (
          <Snooze
            until={attention.snoozed[row.orderId]}
            buyer={row.buyer ?? row.orderId}
            onSnooze={(choice) => snooze(row, choice)}
          />
        )}
      </OrderItem>
    ));
  const markItems = (
    marks: AttentionMark[],
    send: (mark: AttentionMark) => Promise<void>,
    detail: (mark: AttentionMark) => React.ReactNode,
  ) =>
    marks.map((mark) => (
      <MarkItem key={mark.item.requestId} mark={mark} onOpen={onOpen} onSend={send}>
        {detail(mark)}
      </MarkItem>
    ));
  /** Each kind, in the order of what to do first: its heading, how many, why, its first items. */
  const kinds: { title: string; count: number; why: string; items: React.ReactNode[] }[] = [
    {
      title: 'New orders not started',
      count: counts.notStarted,
      why:
        attention.reminderAfterMinutes > 0
          ? `Waiting for longer than the reminder delay (${plural(attention.reminderAfterMinutes, 'minute')}).`
          : 'The reminder is off in Settings, so no order is listed here.',
      items: orderItems(attention.notStarted, (row) => `waiting ${formatAge(row.since, now)}`, true),
    },
    {
      title: 'In progress without a final status',
      count: counts.stalled,
      why:
        attention.stalledAfterDays > 0
          ? `In progress for longer than ${plural(attention.stalledAfterDays, 'day')} (the in-progress limit in Settings).`
          : 'The in-progress limit is off in Settings, so no order is listed here.',
      items: orderItems(attention.stalled, (row) => `in progress for ${formatAge(row.statusSince, now)}`),
    },
    {
      title: 'Statuses the marketplace did not show',
      count: counts.unconfirmed,
      why: "Sent from this laptop and accepted, but the marketplace's list of events has not shown them after several checks. Send again checks the list first, and sends only a status that is really missing.",
      items: markItems(
        attention.unconfirmed,
        resend,
        (mark) => `sent ${mark.item.sentAt ? formatDateTime(mark.item.sentAt) : ''}, not listed since`,
      ),
    },
    {
      title: 'Statuses the marketplace refused',
      count: counts.failed,
      why: 'The marketplace did not take them: they are not recorded there.',
      items: markItems(
        attention.failed,
        retry,
        (mark) => mark.item.problem && <ServerText text={mark.item.problem.message} />,
      ),
    },
    {
      title: 'Unreadable items kept aside',
      count: counts.keptAside,
      why: 'The marketplace sent these in a form Seller Tray cannot read; everything else was read. Diagnose connection in Settings puts them in a report for the marketplace.',
      items: attention.keptAside.map((item) => (
        <li key={item.id}>
          <span className="attention-what">
            {item.kind} <ServerText text={item.key} />
          </span>
          <span className="attention-detail">
            <ServerText text={item.fieldPath} />: <ServerText text={item.reason} /> (
            {formatDateTime(item.seenAt)})
          </span>
        </li>
      )),
    },
  ];
  return (
    <div className="attention">
      {problem && <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />}
      <p className="attention-said" role="status">
        {said}
      </p>
      {attentionTotal(counts) === 0 && (
        <p className="empty">
          Nothing needs attention: every order is started in time, every status is confirmed.
        </p>
      )}
      {kinds.map((kind) => (
        <Section
          key={kind.title}
          title={kind.title}
          count={kind.count}
          shown={kind.items.length}
          why={kind.why}
        >
          {kind.items}
        </Section>
      ))}
      {newestAside !== undefined && (
        <button type="button" onClick={() => void seen(newestAside)}>
          Mark the unreadable items as seen
        </button>
      )}
    </div>
  );
}

/** One kind of what needs attention: its heading with how many, why they are here, the first of them. */
function Section({
  title,
  count,
  shown,
  why,
  children,
}: {
  title: string;
  count: number;
  shown: number;
  why: string;
  children: React.ReactNode;
}) {
  if (count === 0) return null;
  return (
    <section className="attention-section" aria-label={title}>
      <h2>
        {title} <span className="count">{count}</span>
      </h2>
      <p className="attention-why">{why}</p>
      <ul className="attention-list">{children}</ul>
      {count > shown && <p className="attention-more">and {count - shown} more</p>}
    </section>
  );
}

/** An order as the list names it: buyer and product (the marketplace's words), and why it is here. */
function OrderItem({
  row,
  onOpen,
  detail,
  children,
}: {
  row: InboxRow;
  onOpen: (orderId: string) => void;
  detail: string;
  /** What can be done about it here (Snooze). */
  children?: React.ReactNode;
}) {
  return (
    <li>
      <button type="button" className="link-button attention-what" onClick={() => onOpen(row.orderId)}>
        <ServerText text={row.buyer ?? row.orderId} />
      </button>
      <span className="attention-detail">
        {row.product && (
          <>
            <ServerText text={row.product} />,{' '}
          </>
        )}
        {detail}
      </span>
      {children}
    </li>
  );
}

/** A new order's urgent announcement on this laptop: snoozed until when, or the choices to snooze it. */
function Snooze({
  until,
  buyer,
  onSnooze,
}: {
  until: string | undefined;
  buyer: string;
  onSnooze: (choice: PauseChoice) => Promise<void>;
}) {
  if (until)
    return (
      <span className="attention-detail">urgent announcement snoozed until {formatDateTime(until)}</span>
    );
  return (
    <span className="attention-actions">
      {SNOOZE_CHOICES.map((choice) => (
        <button
          key={choice.label}
          type="button"
          className="snooze-button"
          aria-label={`Snooze ${choice.label.toLowerCase()}: ${plainText(buyer)}`}
          onClick={() => void onSnooze(choice)}
        >
          Snooze {choice.label.toLowerCase()}
        </button>
      ))}
    </span>
  );
}

/** A status marked here: for which order, what became of it, and Send again. */
function MarkItem({
  mark,
  onOpen,
  onSend,
  children,
}: {
  mark: AttentionMark;
  onOpen: (orderId: string) => void;
  onSend: (mark: AttentionMark) => Promise<void>;
  children: React.ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const whose = mark.buyer ?? mark.item.orderId;
  return (
    <li>
      <button type="button" className="link-button attention-what" onClick={() => onOpen(mark.item.orderId)}>
        {statusLabel(mark.item.statusCode)} for <ServerText text={whose} />
      </button>
      <span className="attention-detail">{children}</span>
      <button
        type="button"
        disabled={busy}
        aria-label={`Send again: ${statusLabel(mark.item.statusCode)} for ${plainText(whose)}`}
        onClick={() => {
          setBusy(true);
          void onSend(mark).finally(() => setBusy(false));
        }}
      >
        {busy ? 'Checking…' : 'Send again'}
      </button>
    </li>
  );
}
