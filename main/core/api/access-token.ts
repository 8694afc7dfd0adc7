// The access token: fetched with the client credentials, shared by all callers, reused
// until shortly before it expires. A gateway may let tokens lapse before their `exp`: the age
// at which a refused token was cured by a fresh one is learned, and later tokens are renewed
// before it.
import { decodeJwt } from 'jose';
import { waitLeftMs } from '../../../preload/hold';

/** Renew this long before expiry (a tenth of a shorter lifetime), so no call goes out with a token about to lapse. */
const RENEW_MARGIN_MS = 60_000;
/** A token that says nothing of its lifetime is assumed to live this long. */
const ASSUMED_LIFETIME_MS = 5 * 60_000;
/**
 * A refusal age below this is not planned for (renewing that often would double the calls, and
 * one early refusal may be a revocation): such refusals are renewed as they come.
 */
const MIN_PLANNED_LIFETIME_MS = 60_000;

interface Held {
  token: string;
  receivedAtMs: number;
  /** What the token says of its lifetime (exp - iat), when it says it. */
  statedMs: number | undefined;
}

/** What is known of tokens' lifetimes: what they state, and the age at which the server refused one. */
export interface TokenLifetime {
  statedMs: number | undefined;
  refusedAfterMs: number | undefined;
}

export class AccessTokens {
  private held: Held | undefined;
  private pending: Promise<string> | undefined;
  /** The youngest age at which a token was refused and a fresh one then accepted. */
  private refusedAfterMs: number | undefined;
  /** What the latest token said of its lifetime. */
  private statedMs: number | undefined;

  constructor(
    private readonly fetchToken: () => Promise<string>,
    private readonly clock: () => number,
  ) {}

  /** The current token; concurrent callers share one token request. */
  async get(): Promise<string> {
    if (this.held && this.usable(this.held)) return this.held.token;
    this.pending ??= this.fetchToken()
      .then((token) => {
        this.statedMs = statedLifetimeMs(token);
        this.held = { token, receivedAtMs: this.clock(), statedMs: this.statedMs };
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /**
   * Forgets `token` after the server refused it, unless a newer one replaced it already; answers
   * its age when it was the one held (for `lapsed`, once a fresh token has been accepted).
   */
  invalidate(token: string): number | undefined {
    if (this.held?.token !== token) return undefined;
    const age = this.clock() - this.held.receivedAtMs;
    this.held = undefined;
    // Received "later" than now: the clock was set back since, and the age says nothing.
    return age >= 0 ? age : undefined;
  }

  /** A token refused at `ageMs` was then replaced by one the server accepted: it lapsed, and later ones are renewed before that age. */
  lapsed(ageMs: number): void {
    this.refusedAfterMs = Math.min(this.refusedAfterMs ?? Number.POSITIVE_INFINITY, ageMs);
  }

  lifetime(): TokenLifetime {
    return { statedMs: this.statedMs, refusedAfterMs: this.refusedAfterMs };
  }

  /** Still to be used: its renewal is ahead, and no further ahead than its life (a clock set back: waitLeftMs). */
  private usable(held: Held): boolean {
    const renewAt = this.renewAt(held);
    return waitLeftMs(renewAt, renewAt - held.receivedAtMs, this.clock()) > 0;
  }

  private renewAt(held: Held): number {
    const refused = this.refusedAfterMs ?? Number.POSITIVE_INFINITY;
    const lifetime = Math.min(
      held.statedMs ?? ASSUMED_LIFETIME_MS,
      refused >= MIN_PLANNED_LIFETIME_MS ? refused : Number.POSITIVE_INFINITY,
    );
    return held.receivedAtMs + lifetime - Math.min(RENEW_MARGIN_MS, lifetime / 10);
  }
}

/**
 * The token's lifetime as the server states it (exp - iat, both from the server's clock).
 * Measured from receipt on the laptop's clock, this is immune to skew between the two.
 */
function statedLifetimeMs(token: string): number | undefined {
  try {
    const { iat, exp } = decodeJwt(token);
    if (typeof iat === 'number' && typeof exp === 'number' && exp > iat) return (exp - iat) * 1000;
  } catch {
    // Not a JWT we can read: a short lifetime is assumed; a refusal renews it anyway.
  }
  return undefined;
}
