// A modal question about a risky step. The safe choice is the primary button and has the
// focus, so Enter or Escape never takes the risk (Dialog keeps the focus inside while open).
import { type ReactNode, useId, useRef } from 'react';
import { Dialog } from './Dialog';

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
  const messageId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      title={title}
      role="alertdialog"
      initialFocus={cancelRef}
      describedBy={messageId}
      onClose={onCancel}
    >
      <p id={messageId}>{message}</p>
      <div className="dialog-actions">
        <button type="button" className="danger-outline" onClick={onConfirm}>
          {riskyLabel}
        </button>
        <button ref={cancelRef} type="button" className="primary" onClick={onCancel}>
          {safeLabel}
        </button>
      </div>
    </Dialog>
  );
}
