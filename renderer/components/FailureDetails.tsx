// A failure's technical detail one click away: a "Details" toggle right after its words and the
// lines it opens (operation, HTTP status, request id: they may quote the server, so shown as its
// text), with a button that copies the words and every line for a support ticket.
import { useId, useState } from 'react';
import { plainText } from '../../preload/marketplace-text';
import { CopyButton } from './CopyButton';
import { ServerText } from './ServerText';

export function FailureDetails({ message, details }: { message: string; details: readonly string[] }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  if (details.length === 0) return null;
  return (
    <>
      <button
        type="button"
        className="link-button alert-toggle"
        aria-expanded={open}
        aria-controls={detailsId}
        onClick={() => setOpen((o) => !o)}
      >
        Details
      </button>
      <div className="alert-details" id={detailsId} hidden={!open}>
        <ul>
          {details.map((detail) => (
            <li key={detail}>
              <ServerText text={detail} />
            </li>
          ))}
        </ul>
        <CopyButton value={[message, ...details].map(plainText).join('\n')} label="the details" />
      </div>
    </>
  );
}
