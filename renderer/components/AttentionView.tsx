// Needs attention: what should not wait unseen, in one place. New orders nobody started after the
// reminder delay, orders in progress past the in-progress limit, statuses this laptop sent that
// the marketplace's listing did not show after a few polls ("Send again" checks first that it is
// really absent, then sends it through the outbox), statuses the marketplace refused, and items
// it sent that could not be read. Read from the store alone (getAttention): holding the view open
// costs the marketplace nothing; it is read again when the app's state or its orders change.
// Every served account's items are listed together, each action going to the item's own account;
// with more than one served, each item names its account (served-account.ts).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AccountState } from '../../preload/contract';
import { plainText } from '../../preload/marketplace-text';
import type { Attention, AttentionMark, AttentionOrder, Explained, OfAccount } from '../../preload/model';
import { attentionTotal } from '../../preload/model';
import { type PauseChoice, SNOOZE_CHOICES } from '../../preload/pause';
import { namedAccount } from '../../preload/served-account';
import { call, explained } from '../bridge/call';
import { type BridgeEvent, useBridge, useBridgeEvents } from '../bridge/context';
import { formatAge, formatDateTime, plural, statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { AccountTag } from './AccountTag';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';

const REFRESHING_EVENTS: ReadonlySet<BridgeEvent['type']> = new Set([
  'app-state',
  'orders-arrived',
  'orders-updated',
]);

type Mark = OfAccount<AttentionMark>;
/** Opens an order of an account (its id). */
type OnOpen = (orderId: string, account: string) => void;

export function AttentionView({
  onOpen,
  accounts = [],
}: {
  onOpen: OnOpen;
  /** The accounts (AppState.accounts): with more than one served, each item names its account. */
  accounts?: readonly AccountState[] | undefined;
}) {
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

  const resend = (mark: Mark) =>
    act(async () => {
      const { requestId } = mark.item;
      const { outcome } = await call(bridge, 'resendStatus', { requestId, account: mark.account });
      return outcome === 'found'
        ? `${statusLabel(mark.item.statusCode)} was in the marketplace after all: nothing was sent again.`
        : `${statusLabel(mark.item.statusCode)} is being sent again.`;
    });
  const retry = (mark: Mark) =>
    act(async () => {
      await call(bridge, 'retryDelivery', { requestId: mark.item.requestId, account: mark.account });
      return `${statusLabel(mark.item.statusCode)} is being sent again.`;
    });
  const snooze = (row: AttentionOrder, choice: PauseChoice) =>
    act(async () => {
      const until = choice.until(new Date()).toISOString();
      await call(bridge, 'snoozeOrder', { orderId: row.orderId, until, account: row.account });
      return `${plainText(row.buyer ?? row.orderId)}: not announced as urgent on this laptop before ${formatDateTime(until)}.`;
    });
  // Each account's items kept aside have ids of its own: each is marked up to its newest shown.
  const seen = (newest: ReadonlyMap<string, number>) =>
    act(async () => {
      for (const [account, upToId] of newest) await call(bridge, 'markAsideSeen', { upToId, account });
      return 'The unreadable items are marked as seen.';
    });

  if (!attention) {
    return problem ? <ErrorAlert problem={problem} /> : <p role="status">Reading…</p>;
  }
  const { counts } = attention;
  const newestAside = new Map<string, number>();
  for (const { account, id } of attention.keptAside)
    newestAside.set(account, Math.max(id, newestAside.get(account) ?? 0));
  const label = (account: string) => namedAccount(accounts, account)?.label;
  const orderItems = (rows: AttentionOrder[], detail: (row: AttentionOrder) => string, snoozable = false) =>
    rows.map((row) => (
      <OrderItem
        key={`${row.account}/${row.orderId}`}
        row={row}
        accountLabel={label(row.account)}
        onOpen={onOpen}
        detail={detail(row)}
      >
        {snoozable && attention.escalateAfterMinutes > 0 && (
          <Snooze
            until={row.snoozedUntil}
            whose={spoken(row.buyer ?? row.orderId, label(row.account))}
            onSnooze={(choice) => snooze(row, choice)}
          />
        )}
      </OrderItem>
    ));
  const markItems = (
    marks: Mark[],
    send: (mark: Mark) => Promise<void>,
    detail: (mark: Mark) => React.ReactNode,
  ) =>
    marks.map((mark) => (
      <MarkItem
        key={mark.item.requestId}
        mark={mark}
        accountLabel={label(mark.account)}
        onOpen={onOpen}
        onSend={send}
      >
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
      items: orderItems(attention.notStarted, (row) => `waiting ${formatAge(row.waitingSince, now)}`, true),
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
        <li key={`${item.account}/${item.id}`}>
          <span className="attention-what">
            <AccountTag label={label(item.account)} />
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
      {newestAside.size > 0 && (
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
  accountLabel,
  onOpen,
  detail,
  children,
}: {
  row: AttentionOrder;
  accountLabel: string | undefined;
  onOpen: OnOpen;
  detail: string;
  /** What can be done about it here (Snooze). */
  children?: React.ReactNode;
}) {
  return (
    <li>
      <button
        type="button"
        className="link-button attention-what"
        onClick={() => onOpen(row.orderId, row.account)}
      >
        <AccountTag label={accountLabel} />
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

/** A buyer as a button's name says it: plain, and in which account while accounts are named (the same buyer may be in two). */
const spoken = (buyer: string, accountLabel: string | undefined) =>
  accountLabel === undefined ? plainText(buyer) : `${plainText(buyer)} in ${accountLabel}`;

/** A new order's urgent announcement on this laptop: snoozed until when, or the choices to snooze it. */
function Snooze({
  until,
  whose,
  onSnooze,
}: {
  until: string | undefined;
  /** Whose order, as its buttons' names say it (spoken). */
  whose: string;
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
          aria-label={`Snooze ${choice.label.toLowerCase()}: ${whose}`}
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
  accountLabel,
  onOpen,
  onSend,
  children,
}: {
  mark: Mark;
  accountLabel: string | undefined;
  onOpen: OnOpen;
  onSend: (mark: Mark) => Promise<void>;
  children: React.ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const whose = mark.buyer ?? mark.item.orderId;
  return (
    <li>
      <button
        type="button"
        className="link-button attention-what"
        onClick={() => onOpen(mark.item.orderId, mark.account)}
      >
        <AccountTag label={accountLabel} />
        {statusLabel(mark.item.statusCode)} for <ServerText text={whose} />
      </button>
      <span className="attention-detail">{children}</span>
      <button
        type="button"
        disabled={busy}
        aria-label={`Send again: ${statusLabel(mark.item.statusCode)} for ${spoken(whose, accountLabel)}`}
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
