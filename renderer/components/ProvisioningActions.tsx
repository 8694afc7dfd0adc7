// Marking an order's provisioning status. Only the next steps that make sense are buttons
// (New: Start provisioning; In progress: Mark completed, Mark failed…; Failed: Start again);
// the unusual ones (skipping a step, reopening a completed order) sit behind "More…" and ask
// first, with keeping the status as the primary choice. The service also refuses an unusual
// transition it finds (say a colleague marked the order meanwhile): the same question, with its
// words. A mark is held for a grace period and can be undone (UndoBar). After a mark or an
// undo, focus goes to the order's next action (after a mark, unless the user has put it
// elsewhere before the order showed it). Keys: s starts, c completes, f opens the failure form,
// by the same rules as the buttons (an unusual step asks first), not while typing; a key pressed
// in the inbox's list beside the order (the split view) leaves the focus there.
import { type ReactNode, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { RequestOf } from '../../preload/contract';
import { isHeld } from '../../preload/hold';
import { latestMark, type Mark, markPhaseTime, markPhaseWords } from '../../preload/mark-phase';
import type { Explained, OutboxItem, SettledMark } from '../../preload/model';
import { isUsualTransition, MARKABLE_STATUSES, type MarkableStatus } from '../../preload/order-status';
import type { RunbookReason } from '../../preload/runbooks';
import { asCodedError, call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { formatWhen, statusLabel } from '../format';
import { useDocumentKey } from '../hooks/useDocumentKey';
import { useEscapeLayer } from '../hooks/useEscapeLayer';
import { useNow } from '../hooks/useNow';
import { useRepeatGuard } from '../hooks/useRepeatGuard';
import { isWindowKey, markKey } from '../keyboard';
import { ConfirmDialog } from './ConfirmDialog';
import { ErrorAlert } from './ErrorAlert';
import { FailureForm } from './FailureForm';
import { ServerText } from './ServerText';
import { useUndo } from './UndoBar';

type MarkRequest = RequestOf<'markStatus'>;

/** Where the focus goes next, once the order `shows` the status awaited. */
interface Refocus {
  shows: (status: string | undefined) => boolean;
  focus: () => void;
  /** Given up when the focus leaves the actions first (a mark's); an undo's takes it from the bar. */
  yieldsToUser: boolean;
}

interface Confirming {
  target: MarkableStatus;
  message: ReactNode;
}

export function ProvisioningActions({
  orderId,
  account,
  status,
  outbox,
  settled,
  subject,
  onMarked,
  onNextWaiting,
  pressOnOpen,
  reasons = [],
}: {
  orderId: string;
  /** The order's account (its id): a mark is posted by that account only. */
  account?: string | undefined;
  status: string | undefined;
  /** The order's outbox as last read: how what was marked is doing. */
  outbox: OutboxItem[];
  /** The order's marks that lately left the outbox: undone, or confirmed. */
  settled: SettledMark[];
  /** What the order is called (its buyer), for the undo bar. */
  subject: string;
  onMarked: () => void;
  /** Opens the next waiting order: where the focus goes after a mark. */
  onNextWaiting?: (() => void) | undefined;
  /** A step to take as the order opens (the inbox's "f" on a row): as if its key was pressed here. */
  pressOnOpen?: MarkableStatus | undefined;
  /** The Failed reasons the order's runbooks offer (OrderRunbooks). */
  reasons?: readonly RunbookReason[];
}) {
  const bridge = useBridge();
  const undo = useUndo();
  const [busy, setBusy] = useState(false);
  const [failureForm, setFailureForm] = useState<{ override: boolean } | null>(null);
  const [moreOpen, setMoreOpen] = useState(false);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const [error, setError] = useState<Explained | null>(null);
  const [marked, setMarked] = useState<OutboxItem | null>(null);
  const rowRef = useRef<HTMLDivElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const nextRef = useRef<HTMLButtonElement>(null);
  /** A press right after a mark here (a double Enter, click or key) is no second decision. */
  const repeat = useRepeatGuard();
  /**
   * Set by a mark or an undo here: once the order shows the status it leads to (and the buttons
   * are enabled again), its first action has the focus. The order may be read back before or
   * after the mark's answer comes; either way the focus lands once.
   */
  const refocusWhen = useRef<Refocus | null>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const moreId = useId();

  // The focus moved out of the actions while a mark waits to be shown: the user went on (to its
  // Undo, say), and the focus stays where they put it when the order is read back.
  useEffect(() => {
    function onFocusIn(event: FocusEvent): void {
      const waiting = refocusWhen.current;
      if (waiting?.yieldsToUser && !sectionRef.current?.contains(event.target as Node)) {
        refocusWhen.current = null;
      }
    }
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);

  // Each second while a mark is held, so the line says "Sending" when its grace period ends.
  const now = useNow(
    [...outbox, ...(marked ? [marked] : [])].some((item) => isHeld(item, Date.now())) ? 1_000 : 60_000,
  );

  useEscapeLayer(moreOpen && !confirming, () => {
    setMoreOpen(false);
    moreRef.current?.focus();
  });

  const others = MARKABLE_STATUSES.filter((target) => target !== status);
  const usual = others.filter((target) => isUsualTransition(status, target));
  const unusual = others.filter((target) => !isUsualTransition(status, target));

  const focusFirstAction = useCallback(() => {
    rowRef.current?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
  }, []);

  /** After a mark, never the next irreversible step: the way on to the next waiting order, else the actions. */
  const focusAfterMark = useCallback(() => {
    if (nextRef.current) nextRef.current.focus();
    else sectionRef.current?.focus();
  }, []);

  const refocus = useCallback(() => {
    const waiting = refocusWhen.current;
    if (!waiting?.shows(status) || busy) return;
    refocusWhen.current = null;
    waiting.focus();
  }, [status, busy]);
  // In the commit that shows the status (layout effects, as the undo bar's): a passive effect left
  // the focus for a task on the page's body (the pressed button was disabled) or the bar's Dismiss.
  useLayoutEffect(refocus, [refocus]);

  // An undo of this order's mark (from the bar or the history): its next action has the focus
  // once the order shows another status than the one undone, taking it from the bar's outcome.
  const { lastUndone } = undo;
  const handledUndo = useRef(lastUndone);
  useLayoutEffect(() => {
    if (lastUndone?.orderId !== orderId || handledUndo.current === lastUndone) return;
    handledUndo.current = lastUndone;
    refocusWhen.current = {
      shows: (shown) => shown !== lastUndone.statusCode,
      focus: focusFirstAction,
      yieldsToUser: false,
    };
    refocus();
  }, [lastUndone, orderId, refocus, focusFirstAction]);

  async function mark(request: MarkRequest): Promise<void> {
    repeat.marked();
    setBusy(true);
    setError(null);
    // A key pressed in the inbox's list beside the order: the focus stays in the list.
    const fromList = document.activeElement?.closest('[role="listbox"]') != null;
    try {
      const item = await call(bridge, 'markStatus', { ...request, account });
      refocusWhen.current = fromList
        ? null
        : { shows: (shown) => shown === item.statusCode, focus: focusAfterMark, yieldsToUser: true };
      setMarked(item);
      setConfirming(null);
      setFailureForm(null);
      setMoreOpen(false);
      undo.offer(item, subject);
      onMarked();
    } catch (failure) {
      const refusal = asCodedError(failure);
      if (refusal.code === 'unusual-transition' && !request.override) {
        setConfirming({ target: request.statusCode, message: refusal.message });
      } else {
        setConfirming(null);
        setError(explained(refusal));
      }
    } finally {
      setBusy(false);
    }
  }

  /** A step of the order: straight on when usual, after the question when not. */
  function choose(target: MarkableStatus, override: boolean): void {
    if (!override && repeat.tooSoon()) return;
    if (!override && !isUsualTransition(status, target)) {
      setConfirming({ target, message: unusualWarning(status, target) });
    } else if (target === 'ProvisioningFailed') {
      setConfirming(null);
      setMoreOpen(false);
      setFailureForm({ override });
    } else {
      void mark({ orderId, statusCode: target, ...(override ? { override: true } : {}) });
    }
  }

  // s, c, f: the step of the button (or of More…), asked first when unusual.
  useDocumentKey((event) => {
    const target = markKey(event, 'order');
    if (!target || !isWindowKey(event) || busy || target === status) return;
    event.preventDefault();
    choose(target, false);
  });
  const pressed = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, as the order opens
  useEffect(() => {
    if (!pressOnOpen || pressed.current || pressOnOpen === status) return;
    pressed.current = true;
    choose(pressOnOpen, false);
  }, []);

  // The mark made here as the order was last read (until read back, as the service answered it),
  // else the order's latest; its phase in the words every view uses (preload/mark-phase.ts).
  const shownMark = marked
    ? (outbox.find((item) => item.requestId === marked.requestId) ??
      settled.find((mark) => mark.requestId === marked.requestId) ??
      marked)
    : latestMark(outbox, settled);

  return (
    <section className="actions" aria-label="Provisioning actions" ref={sectionRef} tabIndex={-1}>
      <div className="button-row" ref={rowRef}>
        {usual.map((target, index) => (
          <button
            key={target}
            type="button"
            className={target === 'ProvisioningFailed' ? 'danger-outline' : index === 0 ? 'primary' : ''}
            disabled={busy || (target === 'ProvisioningFailed' && failureForm !== null)}
            aria-expanded={target === 'ProvisioningFailed' ? failureForm !== null : undefined}
            onClick={() => choose(target, false)}
          >
            {actionLabel(target, status)}
          </button>
        ))}
        {unusual.length > 0 && (
          <button
            ref={moreRef}
            type="button"
            aria-expanded={moreOpen}
            aria-controls={moreId}
            disabled={busy}
            onClick={() => setMoreOpen((open) => !open)}
          >
            More…
          </button>
        )}
      </div>
      {moreOpen && unusual.length > 0 && (
        <fieldset id={moreId} className="more-actions">
          <legend className="sr-only">Other statuses</legend>
          {unusual.map((target) => (
            <button key={target} type="button" disabled={busy} onClick={() => choose(target, false)}>
              {actionLabel(target, status)}
            </button>
          ))}
        </fieldset>
      )}
      {failureForm && (
        <FailureForm
          busy={busy}
          reasons={reasons}
          onCancel={() => {
            setFailureForm(null);
            requestAnimationFrame(focusFirstAction);
          }}
          onSubmit={(description, detailedDescription) =>
            void mark({
              orderId,
              statusCode: 'ProvisioningFailed',
              description,
              detailedDescription,
              ...(failureForm.override ? { override: true } : {}),
            })
          }
        />
      )}
      <p className="delivery" role="status">
        {shownMark && (
          <>
            {marked
              ? `Marked ${statusLabel(shownMark.statusCode)}.`
              : `Last marked ${statusLabel(shownMark.statusCode)} here.`}{' '}
            {markLine(shownMark, now)}
          </>
        )}
      </p>
      {marked && onNextWaiting && (
        <button type="button" ref={nextRef} className="next-waiting" onClick={onNextWaiting}>
          Next waiting order →
        </button>
      )}
      <ErrorAlert problem={error} onDismiss={() => setError(null)} />
      {confirming && (
        <ConfirmDialog
          title={`Mark this order ${statusLabel(confirming.target)}?`}
          message={confirming.message}
          safeLabel={keepStatusLabel(status)}
          riskyLabel={`Mark ${statusLabel(confirming.target)}${confirming.target === 'ProvisioningFailed' ? '…' : ''}`}
          onCancel={() => setConfirming(null)}
          onConfirm={() => choose(confirming.target, true)}
        />
      )}
    </section>
  );
}

/** The button for a step, as it reads from where the order is. */
function actionLabel(target: MarkableStatus, from: string | undefined): string {
  switch (target) {
    case 'ProvisioningInProgress':
      if (from === 'ProvisioningFailed') return 'Start again';
      return from === 'ProvisioningCompleted' ? 'Reopen' : 'Start provisioning';
    case 'ProvisioningCompleted':
      return 'Mark completed';
    case 'ProvisioningFailed':
      return 'Mark failed…';
  }
}

/** The safe choice of the question about a step: keeping the status (one this app does not know is the server's text). */
export function keepStatusLabel(status: string | undefined): ReactNode {
  if (status === undefined) return 'Cancel';
  return (
    <>
      Keep it <ServerText text={statusLabel(status)} />
    </>
  );
}

/** Why a step is unusual, in the words the window uses for statuses. */
export function unusualWarning(from: string | undefined, to: MarkableStatus): ReactNode {
  const target = statusLabel(to);
  switch (from) {
    case 'ProvisioningStarted':
      return to === 'ProvisioningFailed'
        ? 'This order is New: nobody has started provisioning it. Report a failure only if it cannot be provisioned at all.'
        : `This order is New: nobody has started provisioning it. Usually an order is In progress before it is ${target}.`;
    case 'ProvisioningCompleted':
      return to === 'ProvisioningInProgress'
        ? 'This order is Completed. Marking it In progress reopens it, and the marketplace is told so.'
        : 'This order is Completed. Marking it Failed tells the marketplace that provisioning did not work after all.';
    case 'ProvisioningFailed':
      return `This order is Failed. Usually it is started again (In progress) before it is ${target}.`;
    case undefined:
      return `This order has no status yet, so Seller Tray cannot tell whether ${target} makes sense.`;
    default:
      return (
        <>
          This order's status is "<ServerText text={from} />
          ", which Seller Tray does not know, so it cannot tell whether {target} makes sense.
        </>
      );
  }
}

/** Where the mark is and since when, and why its last post failed in words (the history has the details). */
function markLine(mark: Mark, now: number): ReactNode {
  const words = markPhaseWords(mark, now);
  const at = markPhaseTime(mark);
  const when = at === undefined ? '' : ` (${formatWhen(at, now)})`;
  // The words may quote the server (an unexpected failure's text).
  const problem = 'problem' in mark && mark.problem ? mark.problem.message : undefined;
  return (
    <>
      {`${words}${when}.`}
      {problem && (
        <>
          {' '}
          <ServerText text={problem} />
        </>
      )}
    </>
  );
}
