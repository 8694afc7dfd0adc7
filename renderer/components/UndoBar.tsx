// Undoing a marked status: the service holds each one for a grace period (settings'
// undoSeconds) before it is sent. The bar at the bottom of the window offers the latest mark's
// Undo until then, also from Ctrl+Z (⌘Z on a Mac) outside text fields, and says how it went:
// for a few seconds when it could, in an alert with its details until dismissed when it could not.
// Views offer a mark (after marking), or a batch of them (the inbox's bulk step: one Undo takes
// back the whole batch), and undo any held one (the order's history) through `useUndo`, so the
// bar always tells the outcome.
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { MARK_PHASE_WORDS } from '../../preload/mark-phase';
import { endsSentence, plainText } from '../../preload/marketplace-text';
import type { Explained, OutboxItem, UndoOutcome } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { statusLabel } from '../format';
import { useDocumentKey } from '../hooks/useDocumentKey';
import { useNow } from '../hooks/useNow';
import { chordsOf, isEditable, isMac, keyAction, keyLabel } from '../keyboard';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';

/** How long the outcome of an undo stays in the bar. */
const OUTCOME_MS = 6_000;

interface Offer {
  /** One mark, or a batch marked together (all of the same status). */
  items: readonly OutboxItem[];
  /** What the order is called (its buyer), or how many orders, for the bar's text. */
  subject: string;
  /** Until when all of them are held. */
  until: number;
}

type Mark = Pick<OutboxItem, 'requestId' | 'orderId' | 'statusCode'>;

/** What came of an undo: words that go after a while, or a failure that stays until dismissed. */
type Outcome = { said: string } | { failed: Explained };

interface UndoApi {
  /** Shows the Undo of a status just marked (or of a batch), for as long as it is held. */
  offer(items: OutboxItem | readonly OutboxItem[], subject: string): void;
  /** Takes back held statuses (one, or a batch); the bar says whether it could. */
  undo(marks: Mark | readonly Mark[]): Promise<void>;
  /** The last status undone, so its order's view can put the focus on its next action. */
  lastUndone: Mark | null;
}

const UndoContext = createContext<UndoApi | null>(null);

export function useUndo(): UndoApi {
  const api = useContext(UndoContext);
  if (!api) throw new Error('useUndo needs an <UndoProvider> around it.');
  return api;
}

export const UNDO_KEYS = keyLabel(chordsOf('undo')[0] ?? '');

export function UndoProvider({ children }: { children: ReactNode }) {
  const bridge = useBridge();
  const [offer, setOffer] = useState<Offer | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [lastUndone, setLastUndone] = useState<Mark | null>(null);

  const undo = useCallback(
    async (marks: Mark | readonly Mark[]) => {
      const batch: readonly Mark[] = Array.isArray(marks) ? marks : [marks as Mark];
      const ids = new Set(batch.map((mark) => mark.requestId));
      setBusy(true);
      setOffer((current) => (current?.items.some((item) => ids.has(item.requestId)) ? null : current));
      const outcomes: UndoOutcome[] = [];
      try {
        for (const mark of batch) {
          const answer = await call(bridge, 'undoMark', { requestId: mark.requestId });
          if (answer.outcome === 'undone') setLastUndone(mark);
          outcomes.push(answer.outcome);
        }
        setOutcome({ said: undoWords(outcomes) });
      } catch (failure) {
        const { message, details } = explained(failure);
        const before = outcomes.length > 0 ? ` (${undoWords(outcomes)})` : '';
        setOutcome({ failed: { message: `Could not undo: ${message}${before}`, details } });
      } finally {
        setBusy(false);
      }
    },
    [bridge],
  );

  const api = useMemo<UndoApi>(
    () => ({
      offer(marked, subject) {
        const items: readonly OutboxItem[] = Array.isArray(marked) ? marked : [marked as OutboxItem];
        const until = Math.min(...items.map((item) => Date.parse(item.notBefore ?? '')));
        if (items.length === 0 || !Number.isFinite(until) || until <= Date.now()) return;
        setOutcome(null);
        setOffer({ items, subject, until });
      },
      undo,
      lastUndone,
    }),
    [undo, lastUndone],
  );

  return (
    <UndoContext.Provider value={api}>
      {children}
      <UndoBar
        offer={offer}
        outcome={outcome}
        busy={busy}
        onUndo={(items) => void undo(items)}
        onExpired={() => setOffer(null)}
        onDismiss={() => setOutcome(null)}
      />
    </UndoContext.Provider>
  );
}

function UndoBar({
  offer,
  outcome,
  busy,
  onUndo,
  onExpired,
  onDismiss,
}: {
  offer: Offer | null;
  outcome: Outcome | null;
  busy: boolean;
  onUndo: (marks: readonly Mark[]) => void;
  onExpired: () => void;
  onDismiss: () => void;
}) {
  // Re-drawn 4 times a second while offering; the time is read afresh (the tick may be older than the offer).
  const now = Math.max(useNow(offer ? 250 : 60_000), Date.now());
  const left = offer ? Math.ceil((offer.until - now) / 1000) : 0;
  const barRef = useRef<HTMLDivElement>(null);
  /** The bar's Undo button was used: unless a view took the focus, the outcome's Dismiss has it. */
  const focusOutcome = useRef(false);

  // In the commit that shows the outcome (a layout effect): a passive effect would leave the focus
  // on the page's body for a task, where a screen reader or a look at the page finds it lost.
  useLayoutEffect(() => {
    if (!outcome || !focusOutcome.current) return;
    focusOutcome.current = false;
    const focused = document.activeElement;
    const lost = !focused || focused === document.body || barRef.current?.contains(focused);
    // The outcome's Dismiss: the bar's own ("Dismiss"), or the failure alert's ("Dismiss this message").
    if (lost) barRef.current?.querySelector<HTMLButtonElement>('button[aria-label^="Dismiss"]')?.focus();
  }, [outcome]);

  useEffect(() => {
    if (offer && left <= 0) onExpired();
  }, [offer, left, onExpired]);

  useEffect(() => {
    if (!outcome || 'failed' in outcome) return;
    const timer = setTimeout(onDismiss, OUTCOME_MS);
    return () => clearTimeout(timer);
  }, [outcome, onDismiss]);

  // Ctrl+Z / ⌘Z while the bar offers an undo; in a text field it stays the field's own undo.
  useDocumentKey((event) => {
    if (keyAction(event, 'window') !== 'undo' || isEditable(event.target) || !offer) return;
    event.preventDefault();
    onUndo(offer.items);
  }, offer !== null);

  const shown = offer && left > 0;
  const failed = !shown && outcome !== null && 'failed' in outcome ? outcome.failed : null;
  const said = !shown && outcome !== null && 'said' in outcome ? outcome.said : null;
  return (
    <div
      ref={barRef}
      className={`undo-bar${shown || outcome ? ' undo-bar-shown' : ''}${failed ? ' undo-bar-failed' : ''}`}
    >
      <p className="undo-text" role="status">
        {shown ? (
          <>
            Marked {statusLabel(offer.items[0]?.statusCode)}: <ServerText text={offer.subject} />
            {/* A name that ends the sentence itself as shown (Saga Foods B.V.) takes no second full stop. */}
            {endsSentence(plainText(offer.subject)) ? '' : '.'}
          </>
        ) : (
          said
        )}
      </p>
      {shown && (
        <>
          <span className="undo-time" aria-hidden="true">
            Sending in {left} s
          </span>
          <button
            type="button"
            className="primary"
            disabled={busy}
            aria-keyshortcuts={isMac ? 'Meta+Z' : 'Control+Z'}
            onClick={() => {
              focusOutcome.current = true;
              onUndo(offer.items);
            }}
          >
            Undo <kbd>{UNDO_KEYS}</kbd>
          </button>
        </>
      )}
      {failed && <ErrorAlert problem={failed} onDismiss={onDismiss} />}
      {said && (
        <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}

/** What came of undoing one mark or a batch, in words. */
function undoWords(outcomes: readonly UndoOutcome[]): string {
  const count = (outcome: UndoOutcome) => outcomes.filter((o) => o === outcome).length;
  const [undone, sent, unknown] = [count('undone'), count('already-sent'), count('unknown')];
  if (outcomes.length === 1) {
    if (undone === 1) return `${MARK_PHASE_WORDS.undone}.`;
    return sent === 1
      ? 'Too late to undo: it was already sent to the marketplace. To change it, mark another status.'
      : 'There is nothing to undo: it was undone already.';
  }
  const parts = [
    undone > 0 && `${undone} of ${outcomes.length} undone: the marketplace was not told of them`,
    sent > 0 && `${sent} already sent to the marketplace (to change them, mark another status)`,
    unknown > 0 && `${unknown} undone already`,
  ].filter(Boolean);
  return `${parts.join('; ')}.`;
}
