// The keyboard shortcuts, listed: opened by "?" anywhere but in a text field (or its button),
// closed by Escape or its button.
import { useEffect, useRef, useState } from 'react';
import { isWindowKey, SHORTCUTS } from '../keyboard';
import { Dialog } from './Dialog';

/** "?" opens the list of keys; answers whether it is open and a way to open it (a button's). */
export function useKeysDialog(): { open: boolean; show: () => void; close: () => void } {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    function onKey(event: KeyboardEvent): void {
      if (event.key !== '?' || !isWindowKey(event)) return;
      event.preventDefault();
      setOpen(true);
    }
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return { open, show: () => setOpen(true), close: () => setOpen(false) };
}

export function KeysDialog({ onClose }: { onClose: () => void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title="Keyboard shortcuts" initialFocus={closeRef} onClose={onClose}>
      <table className="keys">
        <thead className="sr-only">
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">What they do</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(({ keys, what }) => (
            <tr key={what}>
              <td>
                {keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && ' '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="keys-note">Letters act only when no text field has the focus.</p>
      <div className="dialog-actions">
        <button ref={closeRef} type="button" className="primary" onClick={onClose}>
          Close <kbd>Esc</kbd>
        </button>
      </div>
    </Dialog>
  );
}
