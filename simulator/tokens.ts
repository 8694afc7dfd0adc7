// Access tokens as design notes §2 fixes them: HS256 JWTs with sub = client id, sellerId,
// iat and exp.
import { errors, jwtVerify, SignJWT } from 'jose';

export interface TokenClaims {
  clientId: string;
  sellerId: number;
  /** Expiry, in seconds since the epoch. */
  exp: number;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: string };

/** A token's lifetime as design notes §2 have it: exp = iat + 30 min. */
export const TOKEN_TTL_SECONDS = 30 * 60;

/** Verified tokens are remembered, so a busy client costs one signature check per token. */
const VERIFIED_CACHE_LIMIT = 10_000;

export class TokenAuthority {
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly key: Uint8Array,
    private readonly ttlSeconds: () => number,
    private readonly clock: () => number = Date.now,
  ) {}

  async issue(clientId: string, sellerId: number): Promise<string> {
    const iat = Math.floor(this.clock() / 1000);
    return new SignJWT({ sellerId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(clientId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds())
      .sign(this.key);
  }

  async check(token: string): Promise<TokenCheck> {
    const nowSeconds = this.clock() / 1000;
    const cached = this.verified.get(token);
    if (cached)
      return cached.exp > nowSeconds
        ? { ok: true, claims: cached }
        : { ok: false, reason: 'the token has expired' };
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(this.clock()),
        requiredClaims: ['sub', 'iat', 'exp'],
      });
      if (
        typeof payload.sellerId !== 'number' ||
        typeof payload.sub !== 'string' ||
        typeof payload.exp !== 'number'
      ) {
        return { ok: false, reason: 'the token lacks its claims' };
      }
      const claims = { clientId: payload.sub, sellerId: payload.sellerId, exp: payload.exp };
      if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
      this.verified.set(token, claims);
      return { ok: true, claims };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'the token has expired' };
      return { ok: false, reason: 'the token is not one this service issued' };
    }
  }
}
