// The account database's schema, as forward migrations: MIGRATIONS[n] takes a database from
// user_version n to n + 1. Append a migration for every change; never edit a shipped one.

/** A column's value that has the shape of a UUID (canonicalOrderId's: those are compared in lower case). */
const uuidShaped = (column: string) =>
  `${column} GLOB '${'[0-9a-fA-F]'.repeat(8)}-${'[0-9a-fA-F]'.repeat(4)}-${'[0-9a-fA-F]'.repeat(4)}-${'[0-9a-fA-F]'.repeat(4)}-${'[0-9a-fA-F]'.repeat(12)}'`;

/** Rows of `table` whose `column` differs from its canonical (lower-case) form only by case. */
const notCanonical = (column: string) => `${uuidShaped(column)} AND ${column} != lower(${column})`;

/** What an outbox row (NEW, OLD, or the table's) is counted as: its state, a sent mark not shown back apart. */
const outboxKind = (row: string) =>
  `CASE WHEN ${row}.state = 'sent' AND json_extract(${row}.json, '$.readBackAt') IS NULL THEN 'not-read-back' ELSE ${row}.state END`;

/**
 * 1 when an order (NEW or OLD) is listed in progress since before stalled_count.before_day, else 0:
 * orders_in_progress_since's condition, in an UPDATE of stalled_count.
 */
const stalledBefore = (row: string) =>
  `((${row}.status = 'ProvisioningInProgress' AND ${row}.effective_status = 'ProvisioningInProgress'
      AND julianday(${row}.status_at) < before_day) IS 1)`;

/** An item over the answer cap kept aside under its listing's name and its place, as before session 40. */
const placeKeyed = `field_path = '(the whole item)' AND key GLOB 'list*[a-z] place [0-9]*'`;

export const MIGRATIONS: readonly string[] = [
  `
  -- Every marketplace event learned, raw, with the columns queries need.
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,           -- eventId, or the content of an event without one
    order_id TEXT,
    event_type TEXT NOT NULL,
    status TEXT NOT NULL,
    event_time TEXT,
    event_ms REAL,                      -- event_time as ms since the epoch, for ordering
    json TEXT NOT NULL
  );
  CREATE INDEX events_by_order ON events (order_id, event_ms, event_time);

  -- One row per order this laptop knows of; the order document and licenses once fetched.
  CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    purchased_at TEXT,                  -- when its purchase event says it came in
    purchase_type TEXT,                 -- the purchase event's type (ServicePurchased, Trial, ...)
    status TEXT,                        -- latest status the marketplace has (by event time)
    effective_status TEXT,              -- the status, or what the user marked and is not confirmed yet
    document TEXT,                      -- the order's JSON, once fetched
    licenses TEXT,                      -- its licenses' JSON array, once fetched
    fetched_at TEXT,
    stale INTEGER NOT NULL DEFAULT 1,   -- 1: fetch (again) when there is a chance
    fetch_error TEXT,                   -- why the last fetch failed, shown with the stored order
    buyer TEXT,
    product TEXT,
    total TEXT,
    waiting INTEGER GENERATED ALWAYS AS (effective_status IS 'ProvisioningStarted') VIRTUAL
  );
  -- The inbox's order (waiting first, then newest), and what to fetch next.
  CREATE INDEX orders_inbox ON orders (waiting DESC, purchased_at DESC, order_id);
  CREATE INDEX orders_by_status ON orders (effective_status, purchased_at DESC);
  CREATE INDEX orders_to_fetch ON orders (stale, purchased_at DESC);

  -- Search over buyer, products, order id, account id and contact e-mails: substrings, any case.
  -- Its rowid is the order's rowid.
  CREATE VIRTUAL TABLE order_search USING fts5 (text, tokenize = 'trigram');

  -- New orders to announce: queued in the poll's transaction, raised, then marked raised.
  CREATE TABLE announcements (
    order_id TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('pending', 'held', 'raised')),  -- held: arrived while paused
    queued_at TEXT NOT NULL,
    claimed_by INTEGER,                 -- the process raising it (pid), so two processes do not both
    raised_at TEXT
  );

  CREATE TABLE reminders (order_id TEXT PRIMARY KEY, reminded_at TEXT NOT NULL);

  -- Statuses the user marked, until the marketplace's history shows them.
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL UNIQUE,
    order_id TEXT NOT NULL,
    status_code TEXT NOT NULL,
    state TEXT NOT NULL,                -- pending, sent or failed
    event_id TEXT,                      -- the stored event, once the server confirmed it
    json TEXT NOT NULL                  -- the whole OutboxItem
  );
  CREATE INDEX outbox_by_order ON outbox (order_id);

  -- What the reader could not use, kept raw with where and why.
  CREATE TABLE unreadable (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    field_path TEXT NOT NULL,
    reason TEXT NOT NULL,
    raw TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    told INTEGER NOT NULL DEFAULT 0
  );

  -- Small values: the feed cursor and the like.
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  `
  -- The tolerant reader's items kept aside: one row per item however often it is read again
  -- (source is the kind of item: event, order, license; key its id or content).
  ALTER TABLE unreadable ADD COLUMN key TEXT NOT NULL DEFAULT '';
  CREATE UNIQUE INDEX unreadable_by_key ON unreadable (source, key);
  `,
  `
  -- The inbox marks an order that arrived on this laptop until it is opened here (issue 12).
  -- Those announced before this version count as opened: they are not news any more.
  ALTER TABLE announcements ADD COLUMN opened_at TEXT;
  UPDATE announcements SET opened_at = COALESCE(raised_at, queued_at);
  `,
  `
  -- An inbox row's total as its amount and currency, which the window writes in the user's
  -- locale (issue 12), instead of the English text before: read again from the stored orders.
  ALTER TABLE orders ADD COLUMN total_amount REAL;
  ALTER TABLE orders ADD COLUMN total_currency TEXT;
  UPDATE orders SET
    total_amount = json_extract(document, '$.anticipatedMonetaryTotal.amount'),
    total_currency = COALESCE(json_extract(document, '$.anticipatedMonetaryTotal.currencyCode'),
                              json_extract(document, '$.documentCurrencyCode'))
  WHERE document IS NOT NULL AND json_type(document, '$.anticipatedMonetaryTotal.amount') IN ('integer', 'real');
  ALTER TABLE orders DROP COLUMN total;
  `,
  `
  -- One order, one identity (issue 20): order and event ids that are UUIDs are compared in lower
  -- case. Rows that differ only by case become one: the events and the order's status are read
  -- again from them, an announcement raised (or opened) under either case counts for both, and
  -- the outbox and reminders keep every item under the one id.
  UPDATE OR IGNORE events SET key = lower(key) WHERE ${notCanonical('key')};
  DELETE FROM events WHERE ${notCanonical('key')};
  UPDATE events SET order_id = lower(order_id) WHERE ${notCanonical('order_id')};

  UPDATE announcements AS keep SET
      state = CASE WHEN 'raised' IN (keep.state, twin.state) THEN 'raised' ELSE keep.state END,
      raised_at = COALESCE(keep.raised_at, twin.raised_at),
      opened_at = COALESCE(keep.opened_at, twin.opened_at)
    FROM announcements AS twin
    WHERE twin.order_id != keep.order_id AND lower(twin.order_id) = keep.order_id;
  UPDATE OR IGNORE announcements SET order_id = lower(order_id) WHERE ${notCanonical('order_id')};
  DELETE FROM announcements WHERE ${notCanonical('order_id')};

  UPDATE OR IGNORE reminders SET order_id = lower(order_id) WHERE ${notCanonical('order_id')};
  DELETE FROM reminders WHERE ${notCanonical('order_id')};

  UPDATE outbox SET order_id = lower(order_id), json = json_set(json, '$.orderId', lower(order_id))
    WHERE ${notCanonical('order_id')};

  -- An order stored under both cases keeps the canonical row (fetched again); the other goes.
  UPDATE orders SET stale = 1
    WHERE order_id IN (SELECT lower(order_id) FROM orders WHERE ${notCanonical('order_id')});
  UPDATE OR IGNORE orders SET order_id = lower(order_id), stale = 1 WHERE ${notCanonical('order_id')};
  DELETE FROM orders WHERE ${notCanonical('order_id')};
  DELETE FROM order_search WHERE rowid NOT IN (SELECT rowid FROM orders);

  -- When the order got its status: the time of the event that set it, in causal order.
  ALTER TABLE orders ADD COLUMN status_at TEXT;
  -- When this laptop learned of the order: its reminder counts from there when the purchase's
  -- time cannot be read.
  ALTER TABLE orders ADD COLUMN learned_at TEXT;
  -- A total's exact decimal text, when its number would lose digits (filled when fetched again).
  ALTER TABLE orders ADD COLUMN total_exact TEXT;
  -- Statuses are derived from causality, not from the clocks (issue 20): every order's status is
  -- derived again when the store opens (AccountStore, 'derive-statuses').
  INSERT INTO meta (key, value) VALUES ('derive-statuses', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
  `,
  `
  -- Reminders are found through an index of the waiting orders not reminded yet (issue 27): the
  -- query behind each poll walked every waiting order, thousands already reminded on a long history.
  ALTER TABLE orders ADD COLUMN reminded_at TEXT;
  UPDATE orders SET reminded_at = (SELECT r.reminded_at FROM reminders r WHERE r.order_id = orders.order_id);
  DROP TABLE reminders;
  CREATE INDEX orders_to_remind ON orders (purchased_at)
    WHERE effective_status = 'ProvisioningStarted' AND reminded_at IS NULL;
  -- Likewise what each poll looks for among every announcement ever made and every item ever
  -- kept aside: those not raised, those not told.
  CREATE INDEX announcements_unraised ON announcements (queued_at) WHERE state != 'raised';
  CREATE INDEX unreadable_untold ON unreadable (id) WHERE told = 0;

  -- How many orders have each status, kept by triggers on every change: the tray's and the
  -- header's waiting count is read after each poll, and counting 17,500 waiting orders took 1.3 ms.
  CREATE TABLE status_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL);
  INSERT INTO status_counts SELECT COALESCE(effective_status, ''), COUNT(*) FROM orders GROUP BY 1;
  CREATE TRIGGER orders_counted_on_insert AFTER INSERT ON orders BEGIN
    INSERT INTO status_counts VALUES (COALESCE(NEW.effective_status, ''), 1)
      ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER orders_counted_on_update AFTER UPDATE OF effective_status ON orders
    WHEN OLD.effective_status IS NOT NEW.effective_status BEGIN
    UPDATE status_counts SET n = n - 1 WHERE status = COALESCE(OLD.effective_status, '');
    INSERT INTO status_counts VALUES (COALESCE(NEW.effective_status, ''), 1)
      ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER orders_counted_on_delete AFTER DELETE ON orders BEGIN
    UPDATE status_counts SET n = n - 1 WHERE status = COALESCE(OLD.effective_status, '');
  END;
  `,
  `
  -- Needs attention (issue 26): the orders the marketplace lists in progress, by when they got that
  -- status, so those in progress since a while are counted as all of them (status_counts) less the
  -- recent ones: an index range of what changed lately, not a walk of every order in progress.
  CREATE INDEX orders_in_progress_since ON orders (julianday(status_at))
    WHERE status = 'ProvisioningInProgress' AND effective_status = 'ProvisioningInProgress';

  -- Escalation (issue 26): a new order nobody started is announced again, urgent, once; a snooze
  -- (on this laptop) puts it off. Orders from before this version are not new: not escalated.
  ALTER TABLE orders ADD COLUMN escalated_at TEXT;
  ALTER TABLE orders ADD COLUMN snoozed_until TEXT;
  UPDATE orders SET escalated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
  CREATE INDEX orders_to_escalate ON orders (purchased_at)
    WHERE effective_status = 'ProvisioningStarted' AND escalated_at IS NULL;
  `,
  `
  -- A first start's orders are indexed for search once each, after the backlog, with their
  -- documents (issue 27): writing each order's text when its events came and again when its
  -- document did was a quarter of a first start's work. 1: not in the search index yet.
  ALTER TABLE orders ADD COLUMN unindexed INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX orders_to_index ON orders (unindexed) WHERE unindexed = 1;

  -- Since when an order has its status, as ms (its latest event's time, or the user's mark the
  -- history does not show yet), kept with the status: the inbox's stalled orders are read from an
  -- index instead of working it out for every order in progress at each page (the window reads a
  -- page after every poll: 20-40 ms with 7,456 orders in progress).
  ALTER TABLE orders ADD COLUMN since_ms REAL;
  UPDATE orders AS o SET since_ms = CASE WHEN o.effective_status IS o.status
      THEN (julianday(o.status_at) - 2440587.5) * 86400000
      ELSE (SELECT (julianday(json_extract(x.json, '$.createdAt')) - 2440587.5) * 86400000 FROM outbox x
              WHERE x.order_id = o.order_id ORDER BY x.seq DESC LIMIT 1)
    END;
  CREATE INDEX orders_stalled_by_since ON orders (since_ms) WHERE effective_status = 'ProvisioningInProgress';
  `,
  `
  -- Automations' runs (issue 24): queued with the announcement that called for them, in the same
  -- transaction, then run at least once. A run keeps its delivery id through every attempt (a
  -- kill -9 while it runs starts it again under the same id), so a receiver can drop repeats.
  CREATE TABLE automation_runs (
    delivery_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL,
    automation TEXT NOT NULL,           -- the automation's name in the settings
    trigger TEXT NOT NULL CHECK (trigger IN ('new-order', 'again', 'test')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'skipped')),
    attempts INTEGER NOT NULL DEFAULT 0,
    queued_at TEXT NOT NULL,
    due_at TEXT NOT NULL,               -- when it may run (a retry waits)
    claimed_by INTEGER,                 -- the process running it (pid): another takes over when it is gone
    started_at TEXT,
    finished_at TEXT,
    exit_code INTEGER,                  -- a command's
    http_status INTEGER,                -- a webhook's or chat's
    detail TEXT,                        -- what happened, in words
    output TEXT                         -- the end of a command's output or a receiver's answer, cleaned
  );
  -- One run per automation and new order, however often a poll meets the order again.
  CREATE UNIQUE INDEX automation_runs_once ON automation_runs (order_id, automation) WHERE trigger = 'new-order';
  CREATE INDEX automation_runs_by_order ON automation_runs (order_id, queued_at);
  CREATE INDEX automation_runs_due ON automation_runs (due_at) WHERE state IN ('queued', 'running');
  `,
  `
  -- Runbooks (issue 26): the steps of a product's checklist ticked on an order, on this laptop.
  -- A step is kept by its text (each once in its runbook), so reordering the checklist keeps the
  -- ticks; a step renamed is a new step. The product is its item id in lower case.
  CREATE TABLE runbook_ticks (
    order_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    step TEXT NOT NULL,
    ticked_at TEXT NOT NULL,
    PRIMARY KEY (order_id, item_id, step)
  ) WITHOUT ROWID;
  `,
  `
  -- Proof of delivery (issue 26):
  -- every status this laptop marked, kept after the outbox lets it go (a confirmed status leaves
  -- the outbox at once), for finance and disputes. Written with each change of its outbox item,
  -- in the same transaction; pruned STATUS_RECORDS_KEPT_DAYS after it was marked (status-records.ts).
  CREATE TABLE status_records (
    request_id TEXT PRIMARY KEY,
    marked_at TEXT NOT NULL,            -- the item's createdAt (ISO, UTC: compares as text)
    item TEXT NOT NULL,                 -- the OutboxItem as last stored (JSON)
    ended TEXT CHECK (ended IN ('undone', 'sent-again')),  -- taken out of the outbox before confirmed
    ended_at TEXT
  );
  CREATE INDEX status_records_by_time ON status_records (marked_at);
  INSERT INTO status_records (request_id, marked_at, item)
    SELECT request_id, json_extract(json, '$.createdAt'), json FROM outbox;
  `,
  `
  -- Insights (issue 26): the period's orders are found by when they were bought,
  -- grouped by product (the first line's name, kept with the document as it is stored), with how
  -- long each took to its first action and to Completed (kept with its status: store/insights.ts).
  -- The index covers what Insights reads of an order: its row holds the document, which a read of
  -- the columns after it walks (1.7 s for 40,000 orders), and the events' times were 40,000 lookups.
  ALTER TABLE orders ADD COLUMN item TEXT;
  ALTER TABLE orders ADD COLUMN first_action_ms REAL;
  ALTER TABLE orders ADD COLUMN completed_ms REAL;
  -- Written out, not built from insights.ts: a shipped migration never changes with the code.
  UPDATE orders SET item = substr(COALESCE(json_extract(document, '$.documentLines[0].lineItem.name'),
      json_extract(document, '$.documentLines[0].lineItem.sellersItemId')), 1, 200)
    WHERE document IS NOT NULL;
  UPDATE orders SET
    first_action_ms = (SELECT MAX(0, MIN(e.event_ms) - round(unixepoch(orders.purchased_at, 'subsec') * 1000))
      FROM events e WHERE e.order_id = orders.order_id AND e.status != 'ProvisioningStarted'),
    completed_ms = (SELECT MAX(0, MIN(e.event_ms) - round(unixepoch(orders.purchased_at, 'subsec') * 1000))
      FROM events e WHERE e.order_id = orders.order_id AND e.status = 'ProvisioningCompleted');
  CREATE INDEX orders_by_purchase ON orders
    (julianday(purchased_at), purchased_at, item, purchase_type, first_action_ms, completed_ms, order_id);
  CREATE INDEX events_failed ON events (order_id) WHERE status = 'ProvisioningFailed';
  `,
  `
  -- A first start's events (issue 27): an order's events are read by its
  -- id alone, in the order they were recorded, so its index holds the id alone. The times it also
  -- held were never read, and a first start writes an entry per event at a random place of it
  -- (order ids are random): a smaller entry is fewer pages to write (a quarter less CPU to insert
  -- 100,000 events, test/bench/README.md).
  DROP INDEX events_by_order;
  CREATE INDEX events_by_order ON events (order_id);
  `,
  `
  -- Automations' runs claimed by automation (issue 24, session 33): each automation is claimed a
  -- few runs ahead of its own slots, so a slow receiver's backlog never holds up another's runs;
  -- its due runs are found by this index, without walking the other automations' runs. A run
  -- claimed but not started yet stays 'queued' (with claimed_by): 'running' and started_at are
  -- written once it really started (its command spawned, its request sent).
  CREATE INDEX automation_runs_due_by_automation ON automation_runs (automation, due_at)
    WHERE state IN ('queued', 'running');
  `,
  `
  -- What each poll (and each inbox page read after it) asks of every item ever kept aside and of
  -- every order ever announced here (issue 27, session 36): whether any item is another seller's
  -- (before the poll's events are recorded), whether any announced order is still unopened. The
  -- usual answer is no, which walked the whole table; these indexes hold only the yeses.
  CREATE INDEX unreadable_foreign ON unreadable (source, key) WHERE reason LIKE 'of another seller account%';
  -- And the tray's count of the items kept aside since the user looked, which are no other
  -- seller's: an index range with no row read (its reason) for each.
  CREATE INDEX unreadable_shown ON unreadable (id) WHERE reason NOT LIKE 'of another seller account%';
  CREATE INDEX announcements_unopened ON announcements (order_id) WHERE opened_at IS NULL;
  `,
  `
  -- An order whose fetch failed is fetched again when its wait ends (issue 27, session 36), each
  -- failure waiting longer (FETCH_AGAIN_AFTER_MS): orders whose documents the marketplace keeps
  -- failing were all fetched at every poll. Those failed before now are due at once.
  ALTER TABLE orders ADD COLUMN fetch_failures INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE orders ADD COLUMN fetch_due_ms REAL;
  UPDATE orders SET fetch_failures = 1, fetch_due_ms = 0 WHERE stale = 1 AND fetch_error IS NOT NULL;
  DROP INDEX orders_to_fetch;
  CREATE INDEX orders_to_fetch ON orders (purchased_at DESC) WHERE stale = 1 AND fetch_due_ms IS NULL;
  CREATE INDEX orders_to_fetch_again ON orders (fetch_due_ms) WHERE stale = 1 AND fetch_due_ms IS NOT NULL;
  `,
  `
  -- What each poll and the tray's count ask of the outbox (issue 27, session 36): how many marks
  -- wait to be sent, were refused, were sent and not shown back yet. Kept by triggers, as
  -- status_counts: a marketplace that refused or lost thousands of marks made every poll read and
  -- parse each of them. Indexed by themselves: the marks sent and not shown back (by the poll
  -- they were sent at: the few sent lately are not unconfirmed yet), those shown back (to be let
  -- go), those pending (a delivery reads them alone), those sent before polls were counted, and
  -- the orders marked in progress here that the history does not show so yet. The statements name
  -- their index (INDEXED BY): with the planner's statistics of thousands of marks alike, it chose
  -- to walk the table.
  CREATE TABLE outbox_counts (kind TEXT PRIMARY KEY, n INTEGER NOT NULL);
  INSERT INTO outbox_counts SELECT kind, COUNT(*) FROM (SELECT ${outboxKind('outbox')} AS kind FROM outbox) GROUP BY kind;
  CREATE TRIGGER outbox_counted_on_insert AFTER INSERT ON outbox BEGIN
    INSERT INTO outbox_counts VALUES (${outboxKind('NEW')}, 1) ON CONFLICT (kind) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER outbox_counted_on_update AFTER UPDATE OF state, json ON outbox BEGIN
    UPDATE outbox_counts SET n = n - 1 WHERE kind = ${outboxKind('OLD')};
    INSERT INTO outbox_counts VALUES (${outboxKind('NEW')}, 1) ON CONFLICT (kind) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER outbox_counted_on_delete AFTER DELETE ON outbox BEGIN
    UPDATE outbox_counts SET n = n - 1 WHERE kind = ${outboxKind('OLD')};
  END;
  CREATE INDEX outbox_not_read_back ON outbox (json_extract(json, '$.sentAtPoll'))
    WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL;
  CREATE INDEX outbox_read_back ON outbox (seq) WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NOT NULL;
  CREATE INDEX outbox_pending ON outbox (seq) WHERE state = 'pending';
  CREATE INDEX outbox_sent_uncounted ON outbox (seq)
    WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL AND json_extract(json, '$.sentAtPoll') IS NULL;
  CREATE INDEX orders_marked_in_progress ON orders (order_id)
    WHERE effective_status = 'ProvisioningInProgress' AND status IS NOT 'ProvisioningInProgress';
  `,
  `
  -- The Needs attention view's page of marks (issue 27, session 37): those sent and not shown back,
  -- and those refused, each kind in the order they were marked. It read every such mark to show
  -- its first few.
  CREATE INDEX outbox_unconfirmed ON outbox (seq)
    WHERE state = 'sent' AND json_extract(json, '$.readBackAt') IS NULL AND json_extract(json, '$.sentAtPoll') IS NOT NULL;
  CREATE INDEX outbox_failed ON outbox (seq) WHERE state = 'failed';
  `,
  `
  -- The tray's count of orders stalled in progress (issue 27, session 37), kept as time passes: it
  -- was all orders in progress less those in progress since the limit, an index range as long as
  -- the orders recently started, read after every poll. n counts the orders the marketplace lists
  -- in progress (orders_in_progress_since's) since before the moment before_day (julianday);
  -- triggers keep it as orders enter or leave that; the store moves the moment at each count,
  -- adding or taking out the orders between (those whose limit passed since, or, with the clock set
  -- back or the limit changed, those it passes over): the first count adds all.
  -- The orders marked in progress here and not listed so (migration 17's index) no longer enter it.
  DROP INDEX orders_marked_in_progress;
  CREATE TABLE stalled_count (before_day REAL NOT NULL, n INTEGER NOT NULL);
  INSERT INTO stalled_count VALUES (0, 0);
  CREATE TRIGGER orders_stalled_on_insert AFTER INSERT ON orders WHEN NEW.status = 'ProvisioningInProgress' BEGIN
    UPDATE stalled_count SET n = n + ${stalledBefore('NEW')};
  END;
  CREATE TRIGGER orders_stalled_on_update AFTER UPDATE OF status, effective_status, status_at ON orders
    WHEN OLD.status = 'ProvisioningInProgress' OR NEW.status = 'ProvisioningInProgress' BEGIN
    UPDATE stalled_count SET n = n - ${stalledBefore('OLD')} + ${stalledBefore('NEW')};
  END;
  CREATE TRIGGER orders_stalled_on_delete AFTER DELETE ON orders WHEN OLD.status = 'ProvisioningInProgress' BEGIN
    UPDATE stalled_count SET n = n - ${stalledBefore('OLD')};
  END;
  `,
  `
  -- An event id that is not a UUID tells an event apart within its order (session 38: a
  -- marketplace may number each order's events 1, 2, …): such an event's key names its order
  -- too, as the reader's itemKey writes it (a key of an event without an id is its content). The
  -- cursor forgets its last keys when they are of that kind: written the old way, they would never
  -- be found again; the next poll finds its place by the offset (as a cursor before issue 20 did).
  UPDATE events SET key = key || ' in ' || order_id
    WHERE order_id IS NOT NULL AND NOT (${uuidShaped('key')}) AND key NOT LIKE '{%';
  UPDATE meta SET value = json_remove(value, '$.lastEventId', '$.tail')
    WHERE key = 'cursor' AND json_valid(value) AND json_extract(value, '$.lastEventId') IS NOT NULL
      AND NOT (${uuidShaped("json_extract(value, '$.lastEventId')")});
  `,
  `
  -- A new order's wait counts from its announcement (session 40: the marketplace's clock may be
  -- hours off this laptop's), so the tray's count of orders not started is all waiting orders less
  -- those announced since the reminder delay: a range of this index, not a walk of every waiting one.
  CREATE INDEX announcements_by_queued ON announcements (queued_at);
  `,
  `
  -- An event kept aside is found again when it comes back mended under another key by its UUID or
  -- its time (wire.ts sameEvent), and a backlog's order by the events of it kept aside: read from
  -- it when kept, indexed, so a poll looks up what it brought, not every item aside. Those kept
  -- before this version are read once, by the next poll that looks (lookup_read 0).
  ALTER TABLE unreadable ADD COLUMN lookup_read INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE unreadable ADD COLUMN event_uuid TEXT;
  ALTER TABLE unreadable ADD COLUMN event_ms INTEGER;
  ALTER TABLE unreadable ADD COLUMN order_id TEXT;
  CREATE INDEX unreadable_by_event_uuid ON unreadable (event_uuid);
  CREATE INDEX unreadable_by_event_ms ON unreadable (event_ms);
  CREATE INDEX unreadable_by_order ON unreadable (order_id);
  CREATE INDEX unreadable_lookup_unread ON unreadable (id) WHERE lookup_read = 0 AND source = 'event';
  `,
  `
  -- Waiting orders are listed by the moment their rows say they wait from (session 40: WAITS_SINCE
  -- in account-store.ts), not by the purchase stamp, another clock's: "longest waiting first", the
  -- merge across accounts, Needs attention's not started list and count read this column through
  -- its index, written with the order where the store decides it, in one form (UTC, ms) that
  -- compares as text. When the order arrived here is kept with its announcement (arrived_at): none
  -- when not known (an announcement put back from a journal that did not keep it, or 0.1's), the
  -- wait then counted as the backlog's, from the purchase stamp but never after it was learned.
  ALTER TABLE announcements ADD COLUMN arrived_at TEXT;
  UPDATE announcements SET arrived_at = queued_at;
  ALTER TABLE orders ADD COLUMN waits_since TEXT;
  UPDATE orders AS o SET waits_since = strftime('%Y-%m-%dT%H:%M:%fZ', COALESCE(
      (SELECT a.arrived_at FROM announcements a WHERE a.order_id = o.order_id),
      CASE WHEN o.learned_at IS NULL OR julianday(o.purchased_at) < julianday(o.learned_at)
        THEN o.purchased_at ELSE o.learned_at END));
  CREATE INDEX orders_waiting_by_wait ON orders (waits_since DESC, purchased_at DESC, order_id)
    WHERE effective_status = 'ProvisioningStarted';
  -- The count's range of announcements (migration 21) is this index's now.
  DROP INDEX announcements_by_queued;
  `,
  `
  -- An item over the answer cap is kept aside under a digest of its start (session 40, client.ts
  -- overCapKey), no longer under its place ('listEvents place 51'), which made a row, told again,
  -- at each place the item moved to: those rows go. The kinds (event, order) of those told are
  -- noted: the walk after this keeps such an item aside as told (AccountStore.setAside).
  INSERT INTO meta (key, value)
    SELECT 'over-cap-told-by-place', json_group_array(DISTINCT source)
      FROM unreadable WHERE ${placeKeyed} AND told = 1 HAVING COUNT(*) > 0;
  DELETE FROM unreadable WHERE ${placeKeyed};
  `,
  `
  -- A claim names its core, not only its process (session 44, claimant.ts): two cores of one
  -- process may share a store (an account closed while its core still ends, and opened again),
  -- and one must not take or let go an announcement or a run the other claimed. Read only with
  -- claimed_by; none on a claim made before: its pid alone, as then.
  ALTER TABLE announcements ADD COLUMN claim_token TEXT;
  ALTER TABLE automation_runs ADD COLUMN claim_token TEXT;
  `,
];
