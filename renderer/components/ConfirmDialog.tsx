// A modal question about a risky step. The safe choice is the primary button and has the
// focus, so Enter or Escape never takes the risk (Dialog keeps the focus inside while open).
import { type ReactNode, useId, useRef } from 'react';
import { Dialog } from './Dialog';
import { ServerText } from './ServerText';

export function ConfirmDialog({
  title,
  message,
  list = [],
  safeLabel,
  riskyLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  /** May hold the server's words, through ServerText. */
  message: ReactNode;
  /** What the step concerns, a line each after the message (the statuses a removal would discard); the server's words as text. */
  list?: readonly string[];
  /** The primary, focused button: it cancels. */
  safeLabel: ReactNode;
  /** The secondary button that goes ahead. */
  riskyLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const messageId = useId();
  const listId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      title={title}
      role="alertdialog"
      initialFocus={cancelRef}
      describedBy={list.length > 0 ? `${messageId} ${listId}` : messageId}
      onClose={onCancel}
    >
      <p id={messageId}>{message}</p>
      {list.length > 0 && (
        <ul id={listId} className="dialog-list">
          {list.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list, shown once as given
            <li key={i}>
              <ServerText text={line} />
            </li>
          ))}
        </ul>
      )}
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
