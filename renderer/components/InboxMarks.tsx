// Marking orders from the inbox: a bulk Start or Complete of the selected rows, and a row's keys
// (s, c). Each order goes through the outbox like any mark (markStatus per order, held and
// undoable; the undo bar offers the whole batch). A bulk step asks first, naming how many orders
// it marks and how many it leaves as they are (only orders for which the step is the usual
// next one are marked); a row's unusual step asks as the order page's buttons do.
import { type ReactNode, useState } from 'react';
import type { OrderListItem } from '../../preload/contract';
import type { Explained, OutboxItem } from '../../preload/model';
import { isUsualTransition, type MarkableStatus } from '../../preload/order-status';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { plural, statusLabel } from '../format';
import { useRepeatGuard } from '../hooks/useRepeatGuard';
import { ConfirmDialog } from './ConfirmDialog';
import { keepStatusLabel, unusualWarning } from './ProvisioningActions';
import { useUndo } from './UndoBar';

/** The steps a bulk action takes, as its buttons say them. */
export const BULK_STEPS = [
  { target: 'ProvisioningInProgress', label: 'Start provisioning' },
  { target: 'ProvisioningCompleted', label: 'Mark completed' },
] as const satisfies readonly { target: MarkableStatus; label: string }[];

interface Asking {
  rows: readonly OrderListItem[];
  target: MarkableStatus;
  override: boolean;
  title: string;
  message: ReactNode;
  safe: ReactNode;
  risky: string;
}

/** The selected rows a step would mark: those for which it is the usual next step. */
export function rowsFor(rows: readonly OrderListItem[], target: MarkableStatus): OrderListItem[] {
  return rows.filter((row) => row.status !== target && isUsualTransition(row.status, target));
}

export function useInboxMarks(onMarked: (marked: readonly OutboxItem[]) => void) {
  const bridge = useBridge();
  const undo = useUndo();
  const repeat = useRepeatGuard();
  const [asking, setAsking] = useState<Asking | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Explained | null>(null);

  async function run(
    rows: readonly OrderListItem[],
    target: MarkableStatus,
    override: boolean,
  ): Promise<void> {
    repeat.marked();
    setAsking(null);
    setBusy(true);
    setProblem(null);
    const marked: OutboxItem[] = [];
    const refused: Explained[] = [];
    for (const row of rows) {
      try {
        // Posted by the row's account: the same order id may be another account's order too.
        const request = {
          orderId: row.orderId,
          account: row.account,
          statusCode: target,
          ...(override ? { override: true } : {}),
        };
        marked.push(await call(bridge, 'markStatus', request));
      } catch (failure) {
        refused.push(explained(failure));
      }
    }
    setBusy(false);
    const only = rows.length === 1 ? rows[0] : undefined;
    if (marked.length > 0)
      undo.offer(marked, only ? (only.buyer ?? only.orderId) : plural(marked.length, 'order'));
    const [first] = refused;
    if (first) {
      setProblem({
        message:
          rows.length === 1
            ? first.message
            : `${refused.length} of ${rows.length} orders could not be marked ${statusLabel(target)}: ${first.message}`,
        details: refused.flatMap((r) => r.details),
      });
    }
    onMarked(marked);
  }

  /** A row's key: straight on when the step is usual, after the question when not. */
  function rowStep(row: OrderListItem, target: MarkableStatus): void {
    if (busy || asking || repeat.tooSoon() || row.status === target) return;
    if (isUsualTransition(row.status, target)) {
      void run([row], target, false);
      return;
    }
    setAsking({
      rows: [row],
      target,
      override: true,
      title: `Mark this order ${statusLabel(target)}?`,
      message: unusualWarning(row.status, target),
      safe: keepStatusLabel(row.status),
      risky: `Mark ${statusLabel(target)}`,
    });
  }

  /** A bulk step of the selected rows: always asks first. */
  function bulkStep(selected: readonly OrderListItem[], step: (typeof BULK_STEPS)[number]): void {
    const rows = rowsFor(selected, step.target);
    if (busy || rows.length === 0) return;
    const left = selected.length - rows.length;
    setAsking({
      rows,
      target: step.target,
      override: false,
      title: `${step.label}: ${plural(rows.length, 'order')}?`,
      message: [
        rows.length === 1
          ? `It is marked ${statusLabel(step.target)} and held a few seconds, so it can be undone, then sent to the marketplace.`
          : `Each is marked ${statusLabel(step.target)} and held a few seconds, so the whole batch can be undone, then sent to the marketplace.`,
        left === 1 ? 'One selected order is at another step and stays as it is.' : '',
        left > 1 ? `${left} selected orders are at another step and stay as they are.` : '',
      ]
        .filter(Boolean)
        .join(' '),
      safe: 'Keep them as they are',
      risky: `${step.label} (${rows.length})`,
    });
  }

  const dialog = asking && (
    <ConfirmDialog
      title={asking.title}
      message={asking.message}
      safeLabel={asking.safe}
      riskyLabel={asking.risky}
      onCancel={() => setAsking(null)}
      onConfirm={() => void run(asking.rows, asking.target, asking.override)}
    />
  );

  return { rowStep, bulkStep, busy, problem, dismissProblem: () => setProblem(null), dialog };
}
