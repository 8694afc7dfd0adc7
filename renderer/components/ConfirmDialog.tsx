// A modal question about a risky step. The safe choice is the primary button and has the
// focus, so Enter or Escape never takes the risk; focus stays inside while it is open (Tab
// wraps), and goes back where it was when it closes.
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';

export function ConfirmDialog({
  title,
  message,
  safeLabel,
  riskyLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  /** May hold the server's words, through ServerText. */
  message: ReactNode;
  /** The primary, focused button: it cancels. */
  safeLabel: ReactNode;
  /** The secondary button that goes ahead. */
  riskyLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const titleId = useId();
  const messageId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    cancelRef.current?.focus();
    return () => {
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
      return;
    }
    if (event.key !== 'Tab') return;
    const focusable = [...(dialogRef.current?.querySelectorAll<HTMLElement>('button:not([disabled])') ?? [])];
    const first = focusable[0];
    const last = focusable.at(-1);
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <div className="backdrop">
      <div
        ref={dialogRef}
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={messageId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId}>{title}</h2>
        <p id={messageId}>{message}</p>
        <div className="dialog-actions">
          <button type="button" className="danger-outline" onClick={onConfirm}>
            {riskyLabel}
          </button>
          <button ref={cancelRef} type="button" className="primary" onClick={onCancel}>
            {safeLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
