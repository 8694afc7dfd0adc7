// The runbooks of an order's products (Settings → Runbooks): for each product that has one, its
// checklist, ticked per order on this laptop (kept in the account's store), and its links, each
// built from the order's fields (preload/runbooks.ts: URL-encoded, the template's host kept) and
// shown as the full address it opens before anyone opens it. A link the order cannot fill, or
// whose values would move it, says why instead. No marketplace call: ticks go to the store only.
import { useId, useState } from 'react';
import type { OrderView } from '../../preload/contract';
import type { Explained } from '../../preload/model';
import {
  orderFields,
  type Runbook,
  type RunbookTick,
  runbookLink,
  runbooksOfOrder,
} from '../../preload/runbooks';
import { call, explained } from '../bridge/call';
import { useBridge } from '../bridge/context';
import { ErrorAlert } from './ErrorAlert';

export function OrderRunbooks({
  orderId,
  account,
  view,
  runbooks,
}: {
  orderId: string;
  account?: string | undefined;
  view: OrderView;
  runbooks: readonly Runbook[];
}) {
  const bridge = useBridge();
  const [ticks, setTicks] = useState<RunbookTick[]>(view.runbookTicks);
  const [shownTicks, setShownTicks] = useState(view.runbookTicks);
  const [error, setError] = useState<Explained | null>(null);
  // The order read again (another change) brings the stored ticks: they win over what was shown.
  if (view.runbookTicks !== shownTicks) {
    setShownTicks(view.runbookTicks);
    setTicks(view.runbookTicks);
  }
  const found = runbooksOfOrder(view.order, runbooks);
  if (found.length === 0) return null;

  /** Shown at once (a checkbox answers its click), then as the store has it; taken back if refused. */
  async function tick(itemId: string, step: string, ticked: boolean): Promise<void> {
    const before = ticks;
    const others = ticks.filter((t) => t.itemId !== itemId.toLowerCase() || t.step !== step);
    setTicks(
      ticked
        ? [...others, { itemId: itemId.toLowerCase(), step, tickedAt: new Date().toISOString() }]
        : others,
    );
    try {
      setTicks((await call(bridge, 'tickRunbookStep', { orderId, account, itemId, step, ticked })).ticks);
      setError(null);
    } catch (failure) {
      setTicks(before);
      setError(explained(failure));
    }
  }

  return (
    <>
      <ErrorAlert problem={error} onDismiss={() => setError(null)} />
      {found.map(({ runbook, lineIndex }) => (
        <RunbookSection
          key={runbook.itemId}
          runbook={runbook}
          links={runbook.links.map((link) => ({
            label: link.label,
            built: runbookLink(link.url, orderFields(view.order, view.licenses, lineIndex)),
          }))}
          ticked={(step) => ticks.some((t) => t.itemId === runbook.itemId.toLowerCase() && t.step === step)}
          onTick={(step, ticked) => void tick(runbook.itemId, step, ticked)}
        />
      ))}
    </>
  );
}

function RunbookSection({
  runbook,
  links,
  ticked,
  onTick,
}: {
  runbook: Runbook;
  links: { label: string; built: ReturnType<typeof runbookLink> }[];
  ticked: (step: string) => boolean;
  onTick: (step: string, ticked: boolean) => void;
}) {
  const id = useId();
  const done = runbook.checklist.filter(ticked).length;
  return (
    <section className="runbook" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>
        Runbook: <bdi>{runbook.name}</bdi> <span className="muted">({runbook.itemId})</span>
      </h3>
      {runbook.checklist.length > 0 && (
        <fieldset className="runbook-checklist">
          <legend>
            Checklist: {done} of {runbook.checklist.length} done
          </legend>
          {runbook.checklist.map((step, index) => (
            <div key={step} className="check">
              <input
                id={`${id}-step-${index}`}
                type="checkbox"
                checked={ticked(step)}
                onChange={(event) => onTick(step, event.target.checked)}
              />
              <label htmlFor={`${id}-step-${index}`}>{step}</label>
            </div>
          ))}
        </fieldset>
      )}
      {links.length > 0 && (
        <ul className="runbook-links" aria-label={`Links of ${runbook.name}`}>
          {links.map(({ label, built }, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the runbook's links, in their order
            <li key={index}>
              {built.ok ? (
                <>
                  <a href={built.url} target="_blank" rel="noreferrer">
                    {label}
                  </a>
                  <span className="runbook-url mono">{built.url}</span>
                </>
              ) : (
                <>
                  <span>{label}</span>
                  <span className="runbook-url muted">{built.problem}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
