// A modal dialog: the first of its buttons given `initialFocus` has the focus, focus stays inside
// while it is open (Tab wraps), Escape closes it, and the focus goes back where it was when it
// closes. The confirmation of a risky step and the list of keys are built on it.
import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';

export function Dialog({
  title,
  role = 'dialog',
  initialFocus,
  describedBy,
  onClose,
  children,
}: {
  title: string;
  role?: 'dialog' | 'alertdialog';
  /** What has the focus when it opens. */
  initialFocus: RefObject<HTMLElement | null>;
  describedBy?: string | undefined;
  /** Escape. */
  onClose: () => void;
  children: ReactNode;
}) {
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: once, as it opens
  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    initialFocus.current?.focus();
    return () => {
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
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

  const inside = (
    <>
      <h2 id={titleId}>{title}</h2>
      {children}
    </>
  );
  const common = {
    ref: dialogRef,
    className: 'dialog',
    'aria-labelledby': titleId,
    'aria-describedby': describedBy,
    onKeyDown,
  };
  return (
    <div className="backdrop">
      {role === 'alertdialog' ? (
        <div role="alertdialog" aria-modal="true" {...common}>
          {inside}
        </div>
      ) : (
        <div role="dialog" aria-modal="true" {...common}>
          {inside}
        </div>
      )}
    </div>
  );
}
