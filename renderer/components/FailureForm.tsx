// Reporting a failed provisioning: the marketplace (and the buyer) need to know what went
// wrong, so both the description and the detailed description are required. The reasons the
// order's runbooks offer (Settings → Runbooks) fill both, to be edited before sending. Escape cancels.

import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { LIMITS } from '../../preload/contract';
import type { RunbookReason } from '../../preload/runbooks';
import { useCancelOnEscape } from '../hooks/useEscapeLayer';

export function FailureForm({
  busy,
  reasons = [],
  onSubmit,
  onCancel,
}: {
  busy: boolean;
  /** Reasons to start from, each filling both fields. */
  reasons?: readonly RunbookReason[];
  onSubmit: (description: string, detailedDescription: string) => void;
  onCancel: () => void;
}) {
  const [description, setDescription] = useState('');
  const [detailed, setDetailed] = useState('');
  const [attempted, setAttempted] = useState(false);
  const descriptionRef = useRef<HTMLInputElement>(null);
  const headingId = useId();
  const descriptionId = useId();
  const detailedId = useId();
  const problemId = useId();
  const reasonId = useId();

  useEffect(() => descriptionRef.current?.focus(), []);

  const missingDescription = description.trim() === '';
  const missingDetailed = detailed.trim() === '';
  const missing = [
    missingDescription ? 'a description' : null,
    missingDetailed ? 'a detailed description of the reason' : null,
  ].filter((part) => part !== null);
  const problem =
    attempted && missing.length > 0 ? `Please give ${missing.join(' and ')}: a failure needs both.` : null;

  function submit(event: FormEvent): void {
    event.preventDefault();
    setAttempted(true);
    if (missingDescription || missingDetailed) {
      (missingDescription ? descriptionRef.current : document.getElementById(detailedId))?.focus();
      return;
    }
    onSubmit(description.trim(), detailed.trim());
  }

  // Escape leaves the form (not the order), as Cancel does; not while it is being sent.
  useCancelOnEscape(busy, onCancel);

  return (
    <form className="failure-form" aria-labelledby={headingId} noValidate onSubmit={submit}>
      <h3 id={headingId}>Report a failure</h3>
      {reasons.length > 0 && (
        <>
          <label htmlFor={reasonId}>Start from a reason</label>
          <select
            id={reasonId}
            value=""
            onChange={(event) => {
              const reason = reasons[Number(event.target.value)];
              if (!reason) return;
              setDescription(reason.description);
              setDetailed(reason.detailedDescription);
              descriptionRef.current?.focus();
            }}
          >
            <option value="">Choose a reason from the runbook…</option>
            {reasons.map((reason, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the runbooks' reasons, in their order
              <option key={index} value={index}>
                {reason.description}
              </option>
            ))}
          </select>
        </>
      )}
      <label htmlFor={descriptionId}>Description (required)</label>
      <input
        id={descriptionId}
        ref={descriptionRef}
        type="text"
        required
        maxLength={LIMITS.description}
        value={description}
        aria-invalid={attempted && missingDescription}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => setDescription(event.target.value)}
      />
      <label htmlFor={detailedId}>Detailed description of the reason (required)</label>
      <textarea
        id={detailedId}
        required
        rows={4}
        maxLength={LIMITS.detailedDescription}
        value={detailed}
        aria-invalid={attempted && missingDetailed}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => setDetailed(event.target.value)}
      />
      {problem && (
        <p id={problemId} className="error-text" role="alert">
          {problem}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="danger" disabled={busy}>
          {busy ? 'Marking…' : 'Mark as failed'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
