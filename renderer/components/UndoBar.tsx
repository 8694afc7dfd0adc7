// Undoing a marked status: the service holds each one for a grace period (settings'
// undoSeconds) before it is sent. The bar at the bottom of the window offers the latest mark's
// Undo until then, also from Ctrl+Z (⌘Z on a Mac) outside text fields, and says how it went:
// for a few seconds when it could, in an alert with its details until dismissed when it could not.
// Views offer a mark (after marking) and undo any held one (the order's history) through
// `useUndo`, so the bar always tells the outcome.
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { MARK_PHASE_WORDS } from '../../preload/mark-phase';
import type { Explained, OutboxItem } from '../../preload/model';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import { isEditable } from '../keyboard';
import { ErrorAlert } from './ErrorAlert';
import { ServerText } from './ServerText';

/** How long the outcome of an undo stays in the bar. */
const OUTCOME_MS = 6_000;

interface Offer {
  item: OutboxItem;
  /** What the order is called (its buyer), for the bar's text. */
  subject: string;
  until: number;
}

type Mark = Pick<OutboxItem, 'requestId' | 'orderId' | 'statusCode'>;

/** What came of an undo: words that go after a while, or a failure that stays until dismissed. */
type Outcome = { said: string } | { failed: Explained };

interface UndoApi {
  /** Shows the Undo of a status just marked, for as long as it is held. */
  offer(item: OutboxItem, subject: string): void;
  /** Takes back a held status; the bar says whether it could. */
  undo(mark: Mark): Promise<void>;
  /** The last status undone, so its order's view can put the focus on its next action. */
  lastUndone: Mark | null;
}

const UndoContext = createContext<UndoApi | null>(null);

export function useUndo(): UndoApi {
  const api = useContext(UndoContext);
  if (!api) throw new Error('useUndo needs an <UndoProvider> around it.');
  return api;
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const UNDO_KEYS = isMac ? '⌘Z' : 'Ctrl+Z';

export function UndoProvider({ children }: { children: ReactNode }) {
  const bridge = useBridge();
  const [offer, setOffer] = useState<Offer | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [lastUndone, setLastUndone] = useState<Mark | null>(null);

  const undo = useCallback(
    async (mark: Mark) => {
      const { requestId } = mark;
      setBusy(true);
      setOffer((current) => (current?.item.requestId === requestId ? null : current));
      try {
        const answer = await call(bridge, 'undoMark', { requestId });
        if (answer.outcome === 'undone') setLastUndone(mark);
        setOutcome({
          said:
            answer.outcome === 'undone'
              ? `${MARK_PHASE_WORDS.undone}.`
              : answer.outcome === 'already-sent'
                ? 'Too late to undo: it was already sent to the marketplace. To change it, mark another status.'
                : 'There is nothing to undo: it was undone already.',
        });
      } catch (failure) {
        const { message, details } = explained(failure);
        setOutcome({ failed: { message: `Could not undo: ${message}`, details } });
      } finally {
        setBusy(false);
      }
    },
    [bridge],
  );

  const api = useMemo<UndoApi>(
    () => ({
      offer(item, subject) {
        const until = Date.parse(item.notBefore ?? '');
        if (!Number.isFinite(until) || until <= Date.now()) return;
        setOutcome(null);
        setOffer({ item, subject, until });
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
        onUndo={(item) => void undo(item)}
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
  onUndo: (mark: Mark) => void;
  onExpired: () => void;
  onDismiss: () => void;
}) {
  // Re-drawn 4 times a second while offering; the time is read afresh (the tick may be older than the offer).
  const now = Math.max(useNow(offer ? 250 : 60_000), Date.now());
  const left = offer ? Math.ceil((offer.until - now) / 1000) : 0;
  const barRef = useRef<HTMLDivElement>(null);
  /** The bar's Undo button was used: unless a view took the focus, the outcome's Dismiss has it. */
  const focusOutcome = useRef(false);

  useEffect(() => {
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
  useEffect(() => {
    if (!offer) return;
    function onKey(event: KeyboardEvent): void {
      if (event.key.toLowerCase() !== 'z' || event.shiftKey || event.altKey) return;
      if (!(isMac ? event.metaKey : event.ctrlKey) || isEditable(event.target) || !offer) return;
      event.preventDefault();
      onUndo(offer.item);
    }
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [offer, onUndo]);

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
            Marked {statusLabel(offer.item.statusCode)}: <ServerText text={offer.subject} />.
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
              onUndo(offer.item);
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
