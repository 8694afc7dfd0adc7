// The top of an order's page: who bought (the buyer's full name, however long), its status,
// its total, how long it has waited (or when it came in), and who marked it last and when.
// Drawn at once from the inbox's row while the whole order loads. Copy link gives colleagues
// a seller-tray:// link to the order. While the app serves several accounts, the page names the
// order's account, and so does its link.
import { forwardRef } from 'react';
import type { AccountState } from '../../preload/contract';
import { capped, plainText } from '../../preload/marketplace-text';
import type { Money } from '../../preload/money';
import { formatAge, formatTotal, statusLabel } from '../format';
import { useNow } from '../hooks/useNow';
import type { LastMark } from '../order-marks';
import { CopyOrderLink } from './CopyOrderLink';
import { ServerText } from './ServerText';
import { StatusChip } from './StatusChip';
import { Time } from './Time';

export interface HeaderFacts {
  orderId: string;
  title: string;
  status: string | undefined;
  total: Money | undefined;
  receivedAt: string | undefined;
  /** While it waits, since when for this laptop (InboxRow.waitingSince): what "Waiting 5 min" counts from. */
  waitingSince: string | undefined;
  lastMark: LastMark | undefined;
}

export const OrderHeader = forwardRef<
  HTMLHeadingElement,
  { facts: HeaderFacts; account?: AccountState | undefined }
>(function OrderHeader({ facts, account }, headingRef) {
  const now = useNow();
  const waiting = facts.status === 'ProvisioningStarted';
  const age = formatAge(waiting ? facts.waitingSince : facts.receivedAt, now);
  return (
    <header className="order-head">
      <div className="order-title-row">
        {/* A name longer than three lines is cut here: the title and the Buyer section have more of it. */}
        <h2 id="order-heading" ref={headingRef} tabIndex={-1} title={capped(plainText(facts.title), 300)}>
          <ServerText text={facts.title} />
        </h2>
        {facts.total && (
          <span className="order-total">
            <ServerText text={formatTotal(facts.total)} />
          </span>
        )}
      </div>
      <p className="order-facts">
        <StatusChip status={facts.status} />
        {account && <span className="order-account">Account {account.label}</span>}
        {age !== '' && (
          <span className={waiting ? 'order-waited' : 'muted'}>
            {age === 'just now' ? 'Came in just now' : waiting ? `Waiting ${age}` : `Came in ${age} ago`}
          </span>
        )}
        {facts.lastMark && (
          <span className="order-last-mark">
            {/* The history's status may be one this app does not know: the server's text. */}
            Marked <ServerText text={statusLabel(facts.lastMark.status)} />
            {facts.lastMark.actor !== undefined && (
              <>
                {' '}
                by <ServerText text={facts.lastMark.actor} />
              </>
            )}
            , <Time iso={facts.lastMark.at} />
          </span>
        )}
        <CopyOrderLink orderId={facts.orderId} account={account} />
      </p>
    </header>
  );
});
