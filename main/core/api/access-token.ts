// The access token: fetched with the client credentials, shared by all callers, reused
// until shortly before it expires.
import { decodeJwt } from 'jose';

/** Renew this long before expiry, so no call goes out with a token about to lapse. */
const RENEW_MARGIN_MS = 60_000;
/** A token that says nothing of its lifetime is assumed to live this long. */
const ASSUMED_LIFETIME_MS = 5 * 60_000;

interface Held {
  token: string;
  renewAtMs: number;
}

export class AccessTokens {
  private held: Held | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly fetchToken: () => Promise<string>,
    private readonly clock: () => number,
  ) {}

  /** The current token; concurrent callers share one token request. */
  async get(): Promise<string> {
    if (this.held && this.clock() < this.held.renewAtMs) return this.held.token;
    this.pending ??= this.fetchToken()
      .then((token) => {
        this.held = { token, renewAtMs: this.clock() + lifetimeMs(token) - RENEW_MARGIN_MS };
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Forgets `token` after the server refused it, unless a newer one replaced it already. */
  invalidate(token: string): void {
    if (this.held?.token === token) this.held = undefined;
  }
}

/**
 * The token's lifetime as the server states it (exp - iat, both from the server's clock).
 * Measured from receipt on the laptop's clock, this is immune to skew between the two.
 */
function lifetimeMs(token: string): number {
  try {
    const { iat, exp } = decodeJwt(token);
    if (typeof iat === 'number' && typeof exp === 'number' && exp > iat) {
      return Math.max((exp - iat) * 1000, RENEW_MARGIN_MS * 2);
    }
  } catch {
    // Not a JWT we can read: fall back to a short assumed lifetime; a 401 renews it anyway.
  }
  return ASSUMED_LIFETIME_MS;
}
