// Copies a value (an id, an e-mail address, a list of them) to the clipboard. The clipboard
// can be unavailable (no permission, a page without focus): the user is then told to copy
// the text by hand. Marketplace text is copied as ServerText shows it (CopyServerText).
import { useEffect, useState } from 'react';
import { plainText } from '../../preload/marketplace-text';

export function CopyButton({ value, label, text = 'Copy' }: { value: string; label: string; text?: string }) {
  const [feedback, setFeedback] = useState<string | null>(null);
  useEffect(() => {
    if (feedback === null) return;
    const timer = setTimeout(() => setFeedback(null), 4000);
    return () => clearTimeout(timer);
  }, [feedback]);

  async function copy(): Promise<void> {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setFeedback('Copied');
    } catch {
      setFeedback('Could not copy: select the text and copy it by hand');
    }
  }

  return (
    <>
      <button type="button" className="copy-button" aria-label={`Copy ${label}`} onClick={() => void copy()}>
        {text}
      </button>
      <span className="copy-feedback" role="status">
        {feedback}
      </span>
    </>
  );
}

/**
 * Copies marketplace text as ServerText shows it beside the button, one plain line: what is
 * pasted is what was read. Raw, a line break pasted into a shell runs what follows it, and a
 * bidi override or a zero-width character makes the id pasted another than the one shown.
 */
export function CopyServerText({ text, label }: { text: string; label: string }) {
  return <CopyButton value={plainText(text)} label={label} />;
}
