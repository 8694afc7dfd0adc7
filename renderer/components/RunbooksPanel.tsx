// Settings → Runbooks: per product (the seller's item id), its name, checklist, links and the
// reasons the Failed form offers (preload/runbooks.ts). Edited as a draft and saved whole; a team
// shares them as a file: Export writes the versioned file, Import reads one, checks every item
// first and replaces the list only when all of it is usable (never half of it), naming each
// problem otherwise. The main process checks again with the same rules. Locked by a policy: shown,
// exportable, not editable.
import { type ChangeEvent, useId, useRef, useState } from 'react';
import type { AppState } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import {
  checkRunbooks,
  linkTemplateProblem,
  RUNBOOK_FIELDS,
  RUNBOOK_LIMITS,
  type Runbook,
  type RunbookLink,
  type RunbookReason,
  readRunbooksFile,
  runbooksFile,
} from '../../preload/runbooks';
import { explained } from '../bridge/call';
import { plural } from '../format';
import { useSettings } from '../hooks/useSettings';
import { ErrorAlert } from './ErrorAlert';
import { ManagedNote } from './ManagedNote';
import { ServerText } from './ServerText';

/** A runbook as the form holds it: the checklist as typed, one step a line. */
interface Draft {
  itemId: string;
  name: string;
  checklist: string;
  links: RunbookLink[];
  reasons: RunbookReason[];
}

const draftOf = (runbooks: readonly Runbook[]): Draft[] =>
  runbooks.map((r) => ({ ...r, checklist: r.checklist.join('\n') }));

/** The list as saved: steps one a line, blank lines dropped (checkRunbooks trims and checks the rest). */
const listOf = (drafts: readonly Draft[]): unknown[] =>
  drafts.map((d) => ({
    ...d,
    checklist: d.checklist.split('\n').filter((step) => step.trim() !== ''),
  }));

const EXPORT_NAME = 'seller-tray-runbooks.json';

export function RunbooksPanel({ state }: { state: AppState }) {
  const { settings, save } = useSettings();
  const id = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [drafts, setDrafts] = useState<Draft[] | null>(null);
  const [problem, setProblem] = useState<Explained | null>(null);
  /** What made a save or an import refuse the list, each item named: shown whole, not behind Details. */
  const [refused, setRefused] = useState<{ message: string; problems: string[] } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const locked = state.managed.locked.includes('runbooks');
  const stored = settings?.runbooks;
  const shown = drafts ?? (stored ? draftOf(stored) : null);

  const change = (next: Draft[]) => {
    setSaved(null);
    setDrafts(next);
  };
  const edit = (index: number, patch: Partial<Draft>) =>
    shown && change(shown.map((d, i) => (i === index ? { ...d, ...patch } : d)));

  /** Saves a whole list, checked here first so each problem is named before anything is sent. */
  async function saveList(list: unknown[], done: string): Promise<boolean> {
    const checked = checkRunbooks(list);
    setProblem(null);
    if (!checked.ok) {
      setRefused({
        message: 'The runbooks were not saved; nothing changed. Fix these first:',
        problems: checked.problems,
      });
      return false;
    }
    setRefused(null);
    setBusy(true);
    try {
      await save({ runbooks: checked.runbooks });
      setDrafts(null);
      setSaved(done);
      return true;
    } catch (failure) {
      setProblem(explained(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function importFile(event: ChangeEvent<HTMLInputElement>): Promise<void> {
    const file = event.target.files?.[0];
    event.target.value = ''; // the same file may be chosen again after it is fixed
    if (!file) return;
    setSaved(null);
    const read = readRunbooksFile(await file.text());
    if (!read.ok) {
      setProblem(null);
      setRefused({
        message: `${file.name} was not imported; nothing changed. What it holds that cannot be used:`,
        problems: read.problems,
      });
      return;
    }
    await saveList(read.runbooks, `Imported ${plural(read.runbooks.length, 'runbook')} from ${file.name}.`);
  }

  function exportFile(): void {
    if (!stored) return;
    const url = URL.createObjectURL(new Blob([runbooksFile(stored)], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = EXPORT_NAME;
    link.click();
    URL.revokeObjectURL(url);
  }

  return (
    <section className="runbooks-settings" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Runbooks</h3>
      <p className="hint">
        Per product (its item id on the order's lines): a checklist ticked on each order on this computer,
        links built from the order's fields, and reasons to offer when marking Failed.
      </p>
      {!shown ? (
        <p role="status">Loading the runbooks…</p>
      ) : (
        <>
          <fieldset
            className="runbooks-editor"
            disabled={locked || busy}
            aria-describedby={locked ? `${id}-managed` : undefined}
          >
            <legend className="sr-only">Runbooks</legend>
            {shown.length === 0 && <p className="muted">No runbooks yet.</p>}
            {shown.map((draft, index) => (
              <RunbookEditor
                // biome-ignore lint/suspicious/noArrayIndexKey: drafts have no id until saved; the item id is being typed
                key={index}
                number={index + 1}
                draft={draft}
                onChange={(patch) => edit(index, patch)}
                onRemove={() => change(shown.filter((_, i) => i !== index))}
              />
            ))}
            <div className="form-actions">
              <button
                type="button"
                disabled={shown.length >= RUNBOOK_LIMITS.runbooks}
                onClick={() =>
                  change([...shown, { itemId: '', name: '', checklist: '', links: [], reasons: [] }])
                }
              >
                Add a product
              </button>
              <button
                type="button"
                className="primary"
                disabled={drafts === null}
                onClick={() => void saveList(listOf(shown), 'Runbooks saved.')}
              >
                Save runbooks
              </button>
              <button
                type="button"
                disabled={drafts === null}
                onClick={() => {
                  setDrafts(null);
                  setProblem(null);
                  setRefused(null);
                }}
              >
                Undo changes
              </button>
            </div>
          </fieldset>
          {locked && <ManagedNote id={`${id}-managed`} />}
          <div className="form-actions">
            <button
              type="button"
              disabled={!stored || stored.length === 0 || drafts !== null}
              onClick={exportFile}
            >
              Export to a file
            </button>
            <button type="button" disabled={locked || busy} onClick={() => fileRef.current?.click()}>
              Import from a file…
            </button>
            <input
              ref={fileRef}
              className="sr-only"
              type="file"
              accept=".json,application/json"
              tabIndex={-1}
              aria-label="Runbooks file to import"
              onChange={(event) => void importFile(event)}
            />
          </div>
          <p className="hint">
            An import replaces these runbooks with the file's, only when every one of them is usable.
            {drafts !== null && ' Save or undo your changes to export.'}
          </p>
          <ErrorAlert problem={problem} onDismiss={() => setProblem(null)} />
          {refused && (
            <div className="alert" role="alert">
              <div className="alert-text">
                {refused.message}
                <ul>
                  {refused.problems.map((p) => (
                    <li key={p}>
                      <ServerText text={p} />
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          )}
          <p role="status">{saved}</p>
          <details className="runbook-fields">
            <summary>Order fields a link can use</summary>
            <table>
              <caption className="sr-only">Order fields a link can use</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Its value</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(RUNBOOK_FIELDS).map(([field, words]) => (
                  <tr key={field}>
                    <td className="mono">{`{${field}}`}</td>
                    <td>{words}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="hint">
              Each value is URL-encoded; a link must start with https:// or http:// and may use fields only
              after its host, such as https://console.example.com/tenants/{'{buyerAccountId}'}.
            </p>
          </details>
        </>
      )}
    </section>
  );
}

/** Why a link's address (once typed) cannot make a link, said under it as it is typed; null when it can. */
const addressProblem = (url: string): string | null =>
  url.trim() === '' ? null : linkTemplateProblem(url.trim());

/** One product's runbook: its item id and name, steps, links and reasons, each removable. */
function RunbookEditor({
  number,
  draft,
  onChange,
  onRemove,
}: {
  number: number;
  draft: Draft;
  onChange: (patch: Partial<Draft>) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const title = draft.name.trim() || draft.itemId.trim() || `Runbook ${number}`;
  const setLink = (i: number, patch: Partial<RunbookLink>) =>
    onChange({ links: draft.links.map((l, j) => (j === i ? { ...l, ...patch } : l)) });
  const setReason = (i: number, patch: Partial<RunbookReason>) =>
    onChange({ reasons: draft.reasons.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  return (
    <fieldset className="runbook-editor">
      <legend>
        <bdi>{title}</bdi>
      </legend>
      <div className="form">
        <label htmlFor={`${id}-item`}>Item id</label>
        <input
          id={`${id}-item`}
          type="text"
          spellCheck={false}
          maxLength={RUNBOOK_LIMITS.itemId}
          value={draft.itemId}
          aria-describedby={`${id}-item-hint`}
          onChange={(e) => onChange({ itemId: e.target.value })}
        />
        <p className="hint" id={`${id}-item-hint`}>
          The product's seller's item id, as the order's lines carry it (such as SS-STD).
        </p>
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          type="text"
          maxLength={RUNBOOK_LIMITS.name}
          value={draft.name}
          onChange={(e) => onChange({ name: e.target.value })}
        />
        <label htmlFor={`${id}-steps`}>Checklist, one step a line</label>
        <textarea
          id={`${id}-steps`}
          rows={Math.min(8, Math.max(3, draft.checklist.split('\n').length + 1))}
          value={draft.checklist}
          onChange={(e) => onChange({ checklist: e.target.value })}
        />
        {draft.links.map((link, i) => {
          const problem = addressProblem(link.url);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: the runbook's links, in their order
            <div key={i} className="runbook-row">
              <label htmlFor={`${id}-link-${i}-label`}>Link {i + 1}: label</label>
              <input
                id={`${id}-link-${i}-label`}
                type="text"
                maxLength={RUNBOOK_LIMITS.label}
                value={link.label}
                onChange={(e) => setLink(i, { label: e.target.value })}
              />
              <label htmlFor={`${id}-link-${i}-url`}>Link {i + 1}: address</label>
              <input
                id={`${id}-link-${i}-url`}
                type="text"
                inputMode="url"
                spellCheck={false}
                maxLength={RUNBOOK_LIMITS.url}
                placeholder="https://console.example.com/tenants/{buyerAccountId}"
                value={link.url}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? `${id}-link-${i}-problem` : undefined}
                onChange={(e) => setLink(i, { url: e.target.value })}
              />
              {problem && (
                <p className="error-text field-error" id={`${id}-link-${i}-problem`}>
                  The address {problem}.
                </p>
              )}
              <button
                type="button"
                className="link-button"
                onClick={() => onChange({ links: draft.links.filter((_, j) => j !== i) })}
              >
                Remove link {i + 1}
              </button>
            </div>
          );
        })}
        {draft.reasons.map((reason, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the runbook's reasons, in their order
          <div key={i} className="runbook-row">
            <label htmlFor={`${id}-reason-${i}`}>Failed reason {i + 1}: description</label>
            <input
              id={`${id}-reason-${i}`}
              type="text"
              maxLength={RUNBOOK_LIMITS.description}
              value={reason.description}
              onChange={(e) => setReason(i, { description: e.target.value })}
            />
            <label htmlFor={`${id}-reason-${i}-detail`}>Failed reason {i + 1}: detailed description</label>
            <textarea
              id={`${id}-reason-${i}-detail`}
              rows={2}
              maxLength={RUNBOOK_LIMITS.detailedDescription}
              value={reason.detailedDescription}
              onChange={(e) => setReason(i, { detailedDescription: e.target.value })}
            />
            <button
              type="button"
              className="link-button"
              onClick={() => onChange({ reasons: draft.reasons.filter((_, j) => j !== i) })}
            >
              Remove reason {i + 1}
            </button>
          </div>
        ))}
      </div>
      <div className="form-actions">
        <button
          type="button"
          disabled={draft.links.length >= RUNBOOK_LIMITS.links}
          onClick={() => onChange({ links: [...draft.links, { label: '', url: '' }] })}
        >
          Add a link
        </button>
        <button
          type="button"
          disabled={draft.reasons.length >= RUNBOOK_LIMITS.reasons}
          onClick={() =>
            onChange({ reasons: [...draft.reasons, { description: '', detailedDescription: '' }] })
          }
        >
          Add a reason
        </button>
        <button type="button" className="danger" onClick={onRemove}>
          Remove {title}
        </button>
      </div>
    </fieldset>
  );
}
