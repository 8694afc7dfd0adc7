import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adviceFor } from './advice';
import { SellerApiError } from './api/errors';
import type { MarketplaceEvent, NewMarketplaceEvent } from './api/wire';
import { Outbox, type OutboxItem } from './outbox';
import type { StatusEnding } from './status-records';
import { AccountStore } from './store/account-store';

const opened: { store: AccountStore; dir: string }[] = [];
afterEach(() => {
  for (const { store, dir } of opened.splice(0)) {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * An outbox on a real account store; `saves` records what is on disk at each change, and
 * `clock.now` is the outbox's time.
 */
function outboxWith(
  post: (body: NewMarketplaceEvent, requestId: string) => Promise<{ eventId: string }>,
  recent: () => MarketplaceEvent[] = () => [],
  /** Called after each read of one item (another process may act just then). */
  afterItemRead: (requestId: string) => void = () => undefined,
) {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
  const { store } = AccountStore.open(dir);
  opened.push({ store, dir });
  const saves: OutboxItem[][] = [];
  const clock = { now: 0 };
  /** How often the whole outbox was read (each read parses every mark it holds). */
  const wholeReads = { n: 0 };
  const recording = {
    outboxItems: (orderId?: string) => {
      if (orderId === undefined) wholeReads.n += 1;
      return store.outboxItems(orderId);
    },
    pendingOutboxMarks: () => store.pendingOutboxMarks(),
    pendingOutboxItems: () => store.pendingOutboxItems(),
    outboxItem: (requestId: string) => {
      const item = store.outboxItem(requestId);
      afterItemRead(requestId);
      return item;
    },
    atomically: <T>(work: () => T) => store.atomically(work),
    deleteOutboxItem: (requestId: string, ended: StatusEnding) => store.deleteOutboxItem(requestId, ended),
    pendingOutboxCount: () => store.pendingOutboxCount(),
    pollsSucceeded: () => store.pollsSucceeded(),
    latestStep: (orderId: string) => store.latestStep(orderId),
    putOutboxItem: (item: OutboxItem) => {
      store.putOutboxItem(item);
      saves.push(store.outboxItems());
    },
  };
  const outbox = new Outbox({
    advice: adviceFor('app'),
    store: recording,
    posting: {
      post: async (body, id) => {
        const { eventId } = await post(body, id);
        return { eventId, event: { ...body, eventId } };
      },
      recentEvents: async function* () {
        yield recent();
      },
    },
    now: () => clock.now,
  });
  return { outbox, saves, store, clock, wholeReads, dir };
}

const mark = (orderId: string, statusCode: OutboxItem['statusCode'] = 'ProvisioningInProgress') => ({
  orderId,
  statusCode,
  description: `${statusCode} for ${orderId}`,
});

describe('outbox', () => {
  it('is saved before anything is posted', async () => {
    const { outbox, saves } = outboxWith(async () => ({ eventId: 'e1' }));
    outbox.enqueue(mark('a'));
    expect(saves).toHaveLength(1);
    expect(saves[0]?.[0]?.state).toBe('pending');
  });

  it('posts every try of an item under its one request id', async () => {
    const ids: string[] = [];
    let fail = true;
    const { outbox } = outboxWith(async (_, id) => {
      ids.push(id);
      if (fail) throw new SellerApiError({ kind: 'http', status: 429, operation: 'sendEvent' }, 'slow down');
      return { eventId: 'e1' };
    });
    const item = outbox.enqueue(mark('a'));
    await outbox.deliver();
    fail = false;
    await outbox.deliver();
    expect(ids).toEqual([item.requestId, item.requestId]);
    expect(outbox.all()[0]).toMatchObject({ state: 'sent', eventId: 'e1', attempts: 2 });
  });

  it('reads back a post whose answer was lost, and posts it again only when the marketplace lacks it', async () => {
    const lost = () => new SellerApiError({ kind: 'timeout', operation: 'sendEvent' }, 'no answer');
    const stored: MarketplaceEvent[] = [];
    let posts = 0;
    const { outbox } = outboxWith(
      async (body) => {
        posts += 1;
        const event = { ...body, eventId: `e${posts}` };
        // The first post is stored but its answer lost; the next is not even stored (no answer either).
        if (posts === 1) stored.push(event);
        throw lost();
      },
      () => stored,
    );
    outbox.enqueue(mark('a'));
    await outbox.deliver();
    expect(posts).toBe(1);
    expect(outbox.all()[0]).toMatchObject({ state: 'sent', eventId: 'e1' });

    // Not in the marketplace: posted again, up to three times in one delivery, then kept for later.
    stored.length = 0;
    posts = 1;
    const second = outbox.enqueue(mark('b'));
    const report = await outbox.deliver();
    expect(posts).toBe(4);
    expect(report.deferred).toBe(1);
    expect(outbox.all().find((i) => i.requestId === second.requestId)).toMatchObject({
      state: 'pending',
      mayBePosted: true,
    });
  });

  it('reads back again when a repeated post is answered 409 (the server knows its request id)', async () => {
    const stored: MarketplaceEvent[] = [];
    let posts = 0;
    const { outbox } = outboxWith(
      async (body) => {
        posts += 1;
        if (posts === 1) throw new SellerApiError({ kind: 'timeout', operation: 'sendEvent' }, 'no answer');
        // The listing shows the first post only now; the server refuses the repeat.
        stored.push({ ...body, eventId: 'e1' });
        throw new SellerApiError({ kind: 'http', status: 409, operation: 'sendEvent' }, 'Conflict');
      },
      () => stored,
    );
    outbox.enqueue(mark('a'));
    await outbox.deliver();
    expect(posts).toBe(2);
    expect(outbox.all()[0]).toMatchObject({ state: 'sent', eventId: 'e1' });
  });

  it("keeps an order's later statuses back while an earlier one cannot be posted", async () => {
    const posted: string[] = [];
    const { outbox } = outboxWith(async (body) => {
      const orderId = body.additionalProperties?.[0]?.value ?? '';
      if (orderId === 'a' && body.statusCode === 'ProvisioningInProgress') {
        throw new SellerApiError({ kind: 'http', operation: 'sendEvent', status: 503 }, '503');
      }
      posted.push(`${orderId}:${body.statusCode}`);
      return { eventId: `${orderId}${posted.length}` };
    });
    outbox.enqueue(mark('a'));
    outbox.enqueue(mark('a', 'ProvisioningCompleted'));
    outbox.enqueue(mark('b'));
    const report = await outbox.deliver();
    expect(posted).toEqual(['b:ProvisioningInProgress']);
    expect(report.deferred).toBe(2);
  });

  it('marks a refused post failed with the reason in words and detail, and can try it again', async () => {
    let refuse = true;
    const { outbox } = outboxWith(async (_, requestId) => {
      if (refuse)
        throw new SellerApiError(
          { kind: 'http', operation: 'sendEvent', status: 400, errorCode: 'BadRequest', requestId },
          'HTTP 400 BadRequest',
        );
      return { eventId: 'e1' };
    });
    const item = outbox.enqueue(mark('a'));
    await outbox.deliver();
    expect(outbox.all()[0]).toMatchObject({
      state: 'failed',
      problem: {
        message: expect.stringMatching(/^The marketplace refused this status/),
        details: expect.arrayContaining(['HTTP status: 400 BadRequest', `Request id: ${item.requestId}`]),
      },
    });
    refuse = false;
    outbox.retry(item.requestId);
    expect(outbox.all()[0]).not.toHaveProperty('problem');
    await outbox.deliver();
    expect(outbox.all()[0]).toMatchObject({ state: 'sent' });
    expect(outbox.all()[0]).not.toHaveProperty('problem');
  });

  it('reads the items an earlier version stored with only a technical line, and explains them', async () => {
    const { outbox, store } = outboxWith(async () => ({ eventId: 'e1' }));
    const technical = 'sendEvent: HTTP 400 BadRequest (request id 0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b)';
    // As the previous version wrote them: `lastError`, no `problem`.
    const earlier = (item: OutboxItem, state: OutboxItem['state']) =>
      ({ ...item, state, attempts: 1, lastError: technical }) as OutboxItem;
    store.putOutboxItem(earlier(outbox.enqueue(mark('a')), 'failed'));
    store.putOutboxItem(earlier(outbox.enqueue(mark('b')), 'pending'));

    const [failed, pending] = outbox.all();
    expect(failed).not.toHaveProperty('lastError');
    expect(failed?.problem).toEqual({
      message: expect.stringMatching(/^The marketplace did not take this status\. Send it again/),
      details: [`Message: ${technical}`],
    });
    expect(pending?.problem?.message).toMatch(/tries again by itself/);
    expect(outbox.forOrder('a')[0]?.problem).toEqual(failed?.problem);

    // Sent again and delivered, it is stored in today's form.
    outbox.retry(failed?.requestId ?? '');
    await outbox.deliver();
    expect(outbox.all().map((item) => [item.state, item.problem])).toEqual([
      ['sent', undefined],
      ['sent', undefined],
    ]);
  });

  it('forgets confirmed items once their event is in the history', async () => {
    const eventId = '00000000-0000-4000-8000-0000000000e1';
    const { outbox, store } = outboxWith(async () => ({ eventId }));
    outbox.enqueue(mark('a'));
    await outbox.deliver();
    store.forgetConfirmed();
    expect(outbox.all()).toHaveLength(1);
    store.recordPoll({
      events: [
        {
          eventId,
          eventTypeCode: 'ServicePurchased',
          statusCode: 'ProvisioningInProgress',
          description: 'x',
          additionalProperties: [{ name: 'orderId', value: 'a' }],
        },
      ],
      cursor: { offset: 1 },
      backlog: false,
      paused: false,
      now: new Date(0).toISOString(),
    });
    store.forgetConfirmed();
    expect(outbox.all()).toEqual([]);
  });

  it('holds an item for its grace period, on disk, then posts it', async () => {
    const posted: string[] = [];
    const { outbox, store, clock } = outboxWith(async (body) => {
      posted.push(body.statusCode);
      return { eventId: 'e1' };
    });
    const item = outbox.enqueue(mark('a'), 10_000);
    expect(item.notBefore).toBe(new Date(10_000).toISOString());
    expect(store.outboxItem(item.requestId)?.notBefore).toBe(item.notBefore);
    expect(outbox.nextRelease()).toBe(10_000);
    clock.now = 9_999;
    expect((await outbox.deliver()).held).toBe(1);
    expect(posted).toEqual([]);
    clock.now = 10_000;
    await outbox.deliver();
    expect(posted).toEqual(['ProvisioningInProgress']);
    expect(outbox.nextRelease()).toBeUndefined();
  });

  it('tells the earliest hold a delivery passed over, never one it tried and failed', async () => {
    const { outbox, clock } = outboxWith(async () => {
      throw new SellerApiError({ kind: 'http', status: 503, operation: 'sendEvent' }, 'down');
    });
    const tried = outbox.enqueue(mark('a'), 10_000);
    clock.now = 5;
    outbox.enqueue(mark('b'), 10_000);
    clock.now = 8;
    outbox.enqueue(mark('c'), 10_000);
    clock.now = 10_000;
    const report = await outbox.deliver();
    expect([report.deferred, report.held, report.passedOverRelease]).toEqual([1, 2, 10_005]);
    expect(outbox.all().find((i) => i.requestId === tried.requestId)?.attempts).toBe(1);
    clock.now = 20_000;
    expect((await outbox.deliver()).passedOverRelease).toBeUndefined();
  });

  it('undoes an item still held, and only then', async () => {
    const posted: string[] = [];
    const { outbox, clock } = outboxWith(async (body) => {
      posted.push(body.statusCode);
      return { eventId: 'e1' };
    });
    const undone = outbox.enqueue(mark('a'), 10_000);
    const late = outbox.enqueue(mark('b'), 10_000);
    expect(outbox.undo(undone.requestId)).toBe('undone');
    expect(outbox.undo(undone.requestId)).toBe('unknown');
    clock.now = 10_000;
    expect(outbox.undo(late.requestId)).toBe('already-sent');
    await outbox.deliver();
    expect(posted).toEqual(['ProvisioningInProgress']);
    expect(outbox.all().map((i) => i.orderId)).toEqual(['b']);
  });

  it('posts nothing undone while an earlier post was on its way', async () => {
    const posted: string[] = [];
    let release: () => void = () => undefined;
    const { outbox, clock } = outboxWith(async (body) => {
      const orderId = body.additionalProperties?.[0]?.value ?? '';
      if (orderId === 'a') await new Promise<void>((resolve) => (release = resolve));
      posted.push(orderId);
      return { eventId: orderId };
    });
    outbox.enqueue(mark('a'));
    const b = outbox.enqueue(mark('b'), 5_000);
    clock.now = 4_000;
    const delivery = outbox.deliver(); // posting a; b is read again at its turn
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outbox.undo(b.requestId)).toBe('undone');
    clock.now = 6_000; // b's grace period would have ended by its turn
    release();
    await delivery;
    expect(posted).toEqual(['a']);
  });

  it('never posts a mark another process undid as its grace ended: the undo and the taking of the mark for its post come one before the other', async () => {
    const posted: string[] = [];
    let undoneElsewhere: string | undefined;
    let other: Outbox | undefined;
    let raced = false;
    const { outbox, clock, store, dir } = outboxWith(
      async (body) => {
        posted.push(body.statusCode);
        return { eventId: 'e1' };
      },
      () => [],
      (requestId) => {
        // The app's undo, its clock a moment before the grace's end, as this delivery reads the mark.
        if (raced || !other) return;
        raced = true;
        try {
          undoneElsewhere = other.undo(requestId);
        } catch (error) {
          undoneElsewhere = `refused: ${String(error)}`;
        }
      },
    );
    const held = outbox.enqueue(mark('a'), 10_000);
    const elsewhere = AccountStore.open(dir).store;
    try {
      other = new Outbox({
        advice: adviceFor('app'),
        store: elsewhere,
        posting: {
          post: async () => {
            throw new Error('the other process does not deliver here');
          },
          recentEvents: async function* () {},
        },
        now: () => 9_999,
      });
      clock.now = 10_000;
      await outbox.deliver();
    } finally {
      elsewhere.close();
    }
    expect(raced).toBe(true);
    // Either it was undone and never posted, or it was on its way and the undo said so.
    if (undoneElsewhere === 'undone') expect(posted).toEqual([]);
    else expect(posted).toEqual(['ProvisioningInProgress']);
    expect(store.outboxItem(held.requestId)?.state ?? 'gone').toBe(
      undoneElsewhere === 'undone' ? 'gone' : 'sent',
    );
  }, 30_000);

  it('rejects an invalid item instead of queueing it', () => {
    const { outbox } = outboxWith(async () => ({ eventId: 'e1' }));
    expect(() =>
      outbox.enqueue({ orderId: '', statusCode: 'ProvisioningInProgress', description: 'x' }),
    ).toThrow();
    expect(outbox.all()).toEqual([]);
  });
});

describe('a delivery', () => {
  it('reads the marks waiting to be sent alone, not the whole outbox (refused ones stay there)', async () => {
    const { outbox, store, wholeReads } = outboxWith(async (body) => ({ eventId: `e-${body.description}` }));
    for (let i = 0; i < 20; i++) {
      const refused = outbox.enqueue(mark(`r-${i}`));
      store.putOutboxItem({ ...refused, state: 'failed', attempts: 1 });
    }
    outbox.enqueue(mark('o-1'));
    outbox.enqueue(mark('o-2'));
    wholeReads.n = 0;
    const report = await outbox.deliver();
    expect(report.sent.map((item) => item.orderId)).toEqual(['o-1', 'o-2']);
    expect(wholeReads.n).toBe(0);
  });
});

describe('a marketplace not taking posts', () => {
  it('ends the delivery after two marks in a row failed for a reason that may pass: the rest wait', async () => {
    const tried: string[] = [];
    const { outbox } = outboxWith(async (body) => {
      tried.push(body.additionalProperties?.[0]?.value ?? '');
      throw new SellerApiError({ kind: 'http', operation: 'sendEvent', status: 503 }, '503');
    });
    for (let i = 0; i < 6; i++) outbox.enqueue(mark(`o-${i}`));
    const report = await outbox.deliver();
    // The marks tried (each with its own tries): not every mark at each poll while it is away.
    expect([...new Set(tried)]).toEqual(['o-0', 'o-1']);
    expect(report.deferred).toBe(6);
    expect(outbox.all().map((item) => [item.state, item.attempts])).toEqual([
      ['pending', 1],
      ['pending', 1],
      ...Array.from({ length: 4 }, () => ['pending', 0]),
    ]);
  });
});

describe('a status marked while a delivery runs', () => {
  it('is posted by that delivery, not left for the next poll', async () => {
    let release: () => void = () => undefined;
    const posted: string[] = [];
    const { outbox } = outboxWith(async (body) => {
      posted.push(body.description);
      if (posted.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return { eventId: `e-${posted.length}` };
    });
    outbox.enqueue(mark('o-1'));
    const first = outbox.deliver();
    await new Promise((r) => setTimeout(r, 10)); // the first post is on its way
    outbox.enqueue(mark('o-2'));
    const second = outbox.deliver();
    release();
    await first;
    const report = await second;
    expect(second).toBe(first); // the one delivery, which took the new status too
    expect(report.sent.map((item) => item.orderId)).toEqual(['o-1', 'o-2']);
    expect(posted).toEqual(['ProvisioningInProgress for o-1', 'ProvisioningInProgress for o-2']);
    expect(outbox.all().map((item) => item.state)).toEqual(['sent', 'sent']);
  });
});

describe('marks behind two orders in trouble', () => {
  it('are posted within a few deliveries: the same two failing marks do not end every delivery first', async () => {
    // Two orders whose posts keep failing for a reason that may pass (those orders' own trouble: a
    // 503 or a timeout for them alone); the marketplace takes every other post.
    const { outbox } = outboxWith(async (body) => {
      if (body.description?.includes('stuck-')) {
        throw new SellerApiError({ kind: 'http', operation: 'sendEvent', status: 503 }, '503');
      }
      return { eventId: `e-${body.description}` };
    });
    outbox.enqueue(mark('stuck-a'));
    outbox.enqueue(mark('stuck-b'));
    // A person's mark, made after: it waits behind the two oldest, which fail first at each poll.
    outbox.enqueue(mark('fresh-c'));
    // Not tried by the first delivery, which ended after those two: it says why it waits.
    await outbox.deliver();
    const waiting = outbox.forOrder('fresh-c')[0];
    expect(waiting?.attempts).toBe(0);
    expect(waiting?.problem?.message).toMatch(/statuses of other orders/);
    const sent: string[] = [];
    for (let poll = 0; poll < 5; poll++) {
      const report = await outbox.deliver();
      sent.push(...report.sent.map((item) => item.orderId));
    }
    expect(sent).toContain('fresh-c');
  });

  it("starts the next delivery at the order after the one where the last stopped, each order's marks oldest first", async () => {
    const posted: string[] = [];
    const { outbox } = outboxWith(async (body) => {
      // Each mark once, however often its post is tried again within a delivery.
      const posting = `${body.statusCode} for ${body.description?.split(' for ')[1]}`;
      if (posted.at(-1) !== posting) posted.push(posting);
      if (body.description?.includes('stuck-')) {
        throw new SellerApiError({ kind: 'http', operation: 'sendEvent', status: 503 }, '503');
      }
      return { eventId: `e-${posted.length}` };
    });
    outbox.enqueue(mark('stuck-a'));
    outbox.enqueue(mark('stuck-b'));
    outbox.enqueue(mark('later-c', 'ProvisioningInProgress'));
    outbox.enqueue(mark('later-c', 'ProvisioningCompleted'));
    await outbox.deliver(); // ends after stuck-a and stuck-b
    expect(posted).toEqual(['ProvisioningInProgress for stuck-a', 'ProvisioningInProgress for stuck-b']);
    posted.length = 0;
    const report = await outbox.deliver();
    expect(posted).toEqual([
      'ProvisioningInProgress for later-c',
      'ProvisioningCompleted for later-c',
      'ProvisioningInProgress for stuck-a',
      'ProvisioningInProgress for stuck-b',
    ]);
    expect(report.sent.map((item) => item.statusCode)).toEqual([
      'ProvisioningInProgress',
      'ProvisioningCompleted',
    ]);
  });
});
