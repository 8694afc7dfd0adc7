// Help for the staff who work the orders: how to work one, what each status tells the buyer and
// where a mark of yours is on its way, the keys (listed from keyboard.ts's KEYS, the table the
// handlers read), what the tray and the status line say, and what to do when something is wrong.
// Opened from the header, by "?" and from the tray menu; Escape or Close goes back.
import { useEffect, useId, useRef } from 'react';
import { MARK_PHASE_WORDS, type MarkPhase } from '../../preload/mark-phase';
import type { Connection } from '../../preload/model';
import type { MarkableStatus } from '../../preload/order-status';
import { TRAY_PROBLEMS } from '../../preload/status-words';
import { connectionLabel } from '../format';
import { useEscapeLayer } from '../hooks/useEscapeLayer';
import { KEYS, keyLabel } from '../keyboard';
import { URGENCY_WORDS } from '../urgency';
import { StatusChip } from './StatusChip';
import { UNDO_KEYS } from './UndoBar';

/** What each status tells the buyer, in the marketplace's order list. */
const STATUS_MEANING: Readonly<Record<'ProvisioningStarted' | MarkableStatus, string>> = {
  ProvisioningStarted: 'The buyer has bought and waits; nobody has started yet.',
  ProvisioningInProgress: 'The buyer is told you are setting it up.',
  ProvisioningCompleted: 'The buyer is told it is ready to use.',
  ProvisioningFailed: 'The buyer is told it could not be set up, with the reason you gave.',
};

/**
 * Where a status you marked is on its way to the marketplace (the order's action line and history
 * say it), and "not sent yet", what an inbox row and the order page say of one whose post failed.
 */
const PHASE_MEANING: Readonly<Record<MarkPhase | 'retrying', string>> = {
  held: 'Held: kept a few seconds so you can undo it; the buyer sees nothing yet',
  sending: 'Sending: on its way',
  retrying:
    'Not sent yet: the marketplace could not be reached or answered with an error; Seller Tray tries again by itself',
  ...MARK_PHASE_WORDS,
};

/** What the dot of the status line means, in every state it can be in. */
const CONNECTION_MEANING: Readonly<Record<Connection, string>> = {
  starting: 'Seller Tray has just started and is asking the marketplace.',
  ok: 'The marketplace answers; Seller Tray checks for new orders by itself.',
  paused: 'You paused checking; nothing new arrives until you resume.',
  offline: 'This computer has no network. Seller Tray checks again when it is back.',
  'server-problem': 'The marketplace answers with errors. Seller Tray keeps trying; nothing is lost.',
  failing:
    'The marketplace’s answers do not work for Seller Tray (a certificate, an odd answer). Run Diagnose connection.',
  'credentials-rejected':
    'The marketplace refuses the client id or secret. Check them in Settings → Accounts (Replace secret).',
};

export type HelpPart = 'keys';

export function Help({
  part,
  onClose,
  onSettings,
}: {
  /** A part to open at (the inbox's keys button: the keys). */
  part?: HelpPart | undefined;
  onClose: () => void;
  onSettings: () => void;
}) {
  const ids = { heading: useId(), keys: useId() };
  const headingRef = useRef<HTMLHeadingElement>(null);
  const keysRef = useRef<HTMLHeadingElement>(null);
  useEscapeLayer(true, onClose);
  // Screen readers and the keyboard start at the help (or the part asked for).
  useEffect(() => {
    (part === 'keys' ? keysRef : headingRef).current?.focus();
  }, [part]);

  return (
    <section className="help" aria-labelledby={ids.heading}>
      <div className="help-top">
        <h2 id={ids.heading} ref={headingRef} tabIndex={-1}>
          Help
        </h2>
        <button type="button" onClick={onClose}>
          Close <kbd>Esc</kbd>
        </button>
      </div>

      <h3>Working an order</h3>
      <ol className="help-steps">
        <li>
          A new order brings a notification, and the tray counts the orders waiting. Click the notification,
          or Open in the tray menu, to see it.
        </li>
        <li>Read what to set up: the lines, the licenses and the delivery contacts.</li>
        <li>
          Press <b>Start provisioning</b> when you begin: the buyer sees <i>In progress</i>.
        </li>
        <li>
          When the buyer can use it, press <b>Mark completed</b>. If it cannot be done, press{' '}
          <b>Mark failed…</b> and say why: the buyer reads it.
        </li>
        <li>
          Each mark is held a few seconds so you can <b>Undo</b> it (<kbd>{UNDO_KEYS}</kbd>), then sent.{' '}
          <b>Next waiting order →</b> takes you on.
        </li>
      </ol>

      <h3>What the buyer sees</h3>
      <dl className="help-terms">
        {Object.entries(STATUS_MEANING).map(([status, meaning]) => (
          <div key={status}>
            <dt>
              <StatusChip status={status} />
            </dt>
            <dd>{meaning}</dd>
          </div>
        ))}
        <div>
          <dt className="connection connection-no-answer">
            <span className="dot" aria-hidden="true" />
            No answer from the marketplace
          </dt>
          <dd>Checks neither work nor fail: a request gets no answer. Check the network, VPN or proxy.</dd>
        </div>
      </dl>
      <p>
        An order waiting past the reminder time is marked <i>{URGENCY_WORDS.late}</i>, past twice that{' '}
        <i>{URGENCY_WORDS['very-late']}</i>; one in progress for days is <i>{URGENCY_WORDS.stalled}</i>.
      </p>
      <h4>Where your mark is</h4>
      <ul className="help-list">
        {Object.entries(PHASE_MEANING).map(([phase, words]) => (
          <li key={phase}>{words}.</li>
        ))}
      </ul>

      <h3 id={ids.keys} ref={keysRef} tabIndex={-1}>
        Keys
      </h3>
      <p className="hint">Letters act only when no text field has the focus.</p>
      {KEYS.map((section) => (
        <table key={section.title} className="help-keys">
          <caption>{section.title}</caption>
          <colgroup>
            <col className="help-keys-keys" />
            <col />
          </colgroup>
          <thead className="sr-only">
            <tr>
              <th scope="col">Keys</th>
              <th scope="col">What they do</th>
            </tr>
          </thead>
          <tbody>
            {section.rows.map((row) => (
              <tr key={row.what}>
                <td>
                  {Object.keys(row.keys).map((chord, index) => (
                    <span key={chord}>
                      {index > 0 && ' '}
                      <kbd>{keyLabel(chord)}</kbd>
                    </span>
                  ))}
                </td>
                <td>{row.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}

      <h3>The tray and the status line</h3>
      <p>
        The number beside the tray icon (on a Mac) and its tooltip say how many orders wait, and when the
        marketplace was last read. The tooltip also says what is wrong:{' '}
        {Object.values(TRAY_PROBLEMS).filter(Boolean).join(', ')}, not set up, or notifications paused. Its
        menu (a right-click; a click on a Mac) carries every action. When the marketplace has not been read
        for a while, the icon gets a warning badge, and a notification says so later.
      </p>
      <p>
        <b>Checked 1 min ago</b> at the top of this window says when the marketplace was last read;{' '}
        <b>Not read for 20 min</b> is a warning: new orders may be waiting unseen. Choose <b>Check now</b>.
      </p>
      <p>
        Beside a problem (Offline), <b>Last read 3 min ago</b> or <b>Not read for 20 min</b> says when the
        marketplace was last read: a check tried since read nothing. <b>trying again</b> says Seller Tray
        tries again by itself (beside one account, its banner may say so instead); with credentials rejected
        it waits for a new secret, and paused, for the pause to end.
      </p>
      <p>
        <b>Needs attention</b> (at the top, and in the tray menu) lists what someone should act on: new orders
        not started after the reminder delay, orders in progress too long, statuses the marketplace has not
        shown or refused (<b>Send again</b> checks first), and items it sent that could not be read. A new
        order nobody starts within <b>Urgent after</b> (Settings) is announced again, urgent; <b>Snooze</b>{' '}
        there puts that off on this computer.
      </p>
      <p>The dot at the top of this window:</p>
      <dl className="help-terms help-terms-wide">
        {Object.entries(CONNECTION_MEANING).map(([connection, meaning]) => (
          <div key={connection}>
            <dt className={`connection connection-${connection}`}>
              <span className="dot" aria-hidden="true" />
              {connectionLabel(connection as Connection)}
            </dt>
            <dd>{meaning}</dd>
          </div>
        ))}
      </dl>

      <h3>When something is wrong</h3>
      <ul className="help-list">
        <li>
          Read the message at the top: it says what happened and what to do; <b>Details</b> has the request id
          support asks for.
        </li>
        <li>
          In <b>Settings</b>, <b>Diagnose connection</b> tries each thing Seller Tray asks the marketplace;
          copy the report into your ticket.
        </li>
        <li>
          <b>Open log folder</b> (in Settings and the tray menu) shows the log file: attach it to the ticket.
        </li>
        <li>A status you marked is never lost: it waits, and is sent when the marketplace answers.</li>
      </ul>
      <button type="button" onClick={onSettings}>
        Open Settings
      </button>
    </section>
  );
}
