import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AccessTokens } from './access-token';

const key = new TextEncoder().encode('k'.repeat(32));

/** A token as the server would issue it, by the server's clock. */
const jwt = (iatSeconds: number, lifetimeSeconds: number) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(iatSeconds)
    .setExpirationTime(iatSeconds + lifetimeSeconds)
    .sign(key);

/** Tokens that say they last 30 minutes, issued by a server whose clock is `aheadSeconds` ahead. */
function thirtyMinuteTokens(aheadSeconds: number) {
  const laptop = { ms: 0 };
  let issued = 0;
  const tokens = new AccessTokens(
    async () => {
      issued += 1;
      return jwt(aheadSeconds + laptop.ms / 1000, 1800);
    },
    () => laptop.ms,
  );
  return { tokens, laptop, issued: () => issued };
}

describe('access tokens', () => {
  it("measure the token's lifetime from receipt, whatever the server's clock says", async () => {
    // The server's clock is two hours ahead of the laptop's.
    const { tokens, laptop, issued } = thirtyMinuteTokens(7200);
    const first = await tokens.get();
    laptop.ms += 28 * 60_000;
    expect(await tokens.get()).toBe(first);
    laptop.ms += 60_001; // within a minute of the 30-minute lifetime
    expect(await tokens.get()).not.toBe(first);
    expect(issued()).toBe(2);
  });

  it('renew a token held when the clock is set back, rather than use it for as much longer', async () => {
    const { tokens, laptop, issued } = thirtyMinuteTokens(0);
    const first = await tokens.get();
    laptop.ms += 20 * 60_000;
    laptop.ms -= 3 * 60 * 60_000; // set back three hours: by this clock the token would last 3 h 10 min more
    expect(await tokens.get()).not.toBe(first);
    expect(issued()).toBe(2);
  });

  it('learn no lapse from a token refused after the clock was set back', async () => {
    const { tokens, laptop } = thirtyMinuteTokens(0);
    const first = await tokens.get();
    laptop.ms -= 60 * 60_000;
    expect(tokens.invalidate(first)).toBeUndefined(); // an age below zero is no age
    expect(tokens.lifetime().refusedAfterMs).toBeUndefined();
  });

  it('share one request among concurrent callers', async () => {
    let issued = 0;
    const tokens = new AccessTokens(
      async () => {
        issued += 1;
        await new Promise((r) => setTimeout(r, 10));
        return jwt(0, 1800);
      },
      () => 0,
    );
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.get()));
    expect(new Set(all).size).toBe(1);
    expect(issued).toBe(1);
  });

  it('forget a refused token but keep a newer one', async () => {
    let n = 0;
    const tokens = new AccessTokens(
      async () => `opaque-${++n}`,
      () => 0,
    );
    const first = await tokens.get();
    tokens.invalidate(first);
    const second = await tokens.get();
    expect(second).toBe('opaque-2');
    tokens.invalidate(first);
    expect(await tokens.get()).toBe(second);
  });

  it('renew before the age at which the server refused one, when that is a minute or more', async () => {
    const { tokens, laptop, issued } = thirtyMinuteTokens(0);
    const first = await tokens.get();
    laptop.ms += 5 * 60_000; // the gateway refused it at five minutes; a fresh one was accepted
    tokens.lapsed(tokens.invalidate(first) ?? 0);
    expect(tokens.lifetime()).toEqual({ statedMs: 1_800_000, refusedAfterMs: 300_000 });
    const second = await tokens.get();
    laptop.ms += 4 * 60_000;
    expect(await tokens.get()).toBe(second);
    laptop.ms += 31_000; // past a tenth before five minutes
    expect(await tokens.get()).not.toBe(second);
    expect(issued()).toBe(3);

    // A refusal seconds after issue is renewed as it comes, not planned for.
    const fast = new AccessTokens(
      async () => jwt(0, 1800),
      () => 0,
    );
    fast.lapsed(2_000);
    const held = await fast.get();
    expect(await fast.get()).toBe(held);
  });

  it('let a failed request fail its callers, and try again on the next call', async () => {
    let n = 0;
    const tokens = new AccessTokens(
      async () => {
        n += 1;
        if (n === 1) throw new Error('token service down');
        return 'opaque';
      },
      () => 0,
    );
    await expect(tokens.get()).rejects.toThrow('down');
    expect(await tokens.get()).toBe('opaque');
  });
});
