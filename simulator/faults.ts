// Faults the simulator injects into Seller API calls, set by flags at start and changed at
// runtime through `PATCH /_simulator/faults`. Rates make a flaky server for demos and
// benchmarks; the script makes exact sequences for tests ("the next 3 order pages are 503").
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { OPERATIONS } from '../main/core/api/routes';
import { HttpError } from './http';
import { type CallWrapper, DROP_CONNECTION } from './marketplace-server';
import { QUIRK_NAMES } from './quirks';
import { SPECIFIED_NEW_EVENTS } from './store';
import { TOKEN_TTL_SECONDS } from './tokens';

const Probability = z.number().min(0).max(1);

export const ScriptedFault = z.strictObject({
  /** Only calls of this operation consume the step; any call does when absent. */
  operation: z.enum(OPERATIONS).optional(),
  /**
   * status: answer with `status` and the error body instead of handling the call (403: a
   * permission the client lacks, whatever its token);
   * drop: close the connection without answering, before handling;
   * dropAfterHandling: handle the call (a post is stored) and then close without answering;
   * malformed: handle the call and answer with a cut-off JSON body;
   * delay: answer `delayMs` later.
   */
  action: z.enum(['status', 'drop', 'dropAfterHandling', 'malformed', 'delay']),
  status: z.union([z.literal(403), z.literal(429), z.literal(500), z.literal(503)]).default(503),
  retryAfterSeconds: z.int().min(0).max(3600).optional(),
  delayMs: z.int().min(0).max(120_000).default(0),
  times: z.int().min(1).max(10_000).default(1),
});
export type ScriptedFault = z.infer<typeof ScriptedFault>;

export const FaultSettings = z.strictObject({
  latencyMs: z.int().min(0).max(120_000),
  /** Share of calls answered 500 or 503. */
  errorRate: Probability,
  /** Share of calls whose connection is dropped without an answer. */
  dropRate: Probability,
  /** Share of calls answered with a cut-off JSON body. */
  malformedRate: Probability,
  /** Calls per second across all clients before 429 with Retry-After; 0 turns it off. */
  rateLimit: z.int().min(0),
  tokenTtlSeconds: z.int().min(1).max(86_400),
  newEvents: z.enum(['consume', 'sticky']),
  script: z.array(ScriptedFault).max(1000),
  /** Ways to differ from our reading of the spec, as a real marketplace may (quirks.ts). */
  quirks: z.array(z.enum(QUIRK_NAMES)),
  /** The result-window quirks' window: a page whose offset + limit passes it is refused. */
  resultWindow: z.int().min(1),
  /** Events the retention quirk expires from the old end at each call of the "new" listing. */
  retention: z.int().min(1),
  /** Places before the newest event the late-inserts quirk puts a purchase's event. */
  lateBy: z.int().min(1),
  /** How long the huge-items quirk writes its marker: by default past V8's longest string (512 MiB). */
  hugeBytes: z.int().min(1),
});
export type FaultSettings = z.infer<typeof FaultSettings>;
export const FaultSettingsPatch = FaultSettings.partial();

export const DEFAULT_FAULTS: FaultSettings = {
  latencyMs: 0,
  errorRate: 0,
  dropRate: 0,
  malformedRate: 0,
  rateLimit: 0,
  tokenTtlSeconds: TOKEN_TTL_SECONDS,
  newEvents: SPECIFIED_NEW_EVENTS,
  script: [],
  quirks: [],
  resultWindow: 10_000,
  retention: 1,
  lateBy: 2,
  hugeBytes: 2 ** 30,
};

export type Fault =
  | { action: 'status'; status: 403 | 429 | 500 | 503; retryAfterSeconds?: number | undefined }
  | { action: 'drop' | 'dropAfterHandling' | 'malformed' };

export interface FaultPlan {
  delayMs: number;
  fault?: Fault;
}

export class FaultInjector {
  private settings: FaultSettings;
  private windowStart = 0;
  private windowCount = 0;

  constructor(
    initial: Partial<FaultSettings> = {},
    private readonly clock: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.settings = FaultSettings.parse({ ...DEFAULT_FAULTS, ...initial });
  }

  get current(): Readonly<FaultSettings> {
    return this.settings;
  }

  update(patch: z.infer<typeof FaultSettingsPatch>): void {
    this.settings = FaultSettings.parse({ ...this.settings, ...patch });
  }

  /** What happens to the next call of `operation`: a scripted step first, then the rates. */
  plan(operation: string): FaultPlan {
    const s = this.settings;
    const step = s.script.find((f) => f.operation === undefined || f.operation === operation);
    if (step) {
      step.times -= 1;
      if (step.times === 0) s.script.splice(s.script.indexOf(step), 1);
      if (step.action === 'delay') return { delayMs: s.latencyMs + step.delayMs };
      const fault: Fault =
        step.action === 'status'
          ? { action: 'status', status: step.status, retryAfterSeconds: step.retryAfterSeconds }
          : { action: step.action };
      return { delayMs: s.latencyMs, fault };
    }

    const rateLimited = this.overRateLimit();
    if (rateLimited) return { delayMs: 0, fault: rateLimited };
    if (this.random() < s.errorRate) {
      return { delayMs: s.latencyMs, fault: { action: 'status', status: this.random() < 0.5 ? 500 : 503 } };
    }
    if (this.random() < s.dropRate) return { delayMs: s.latencyMs, fault: { action: 'drop' } };
    if (this.random() < s.malformedRate) return { delayMs: s.latencyMs, fault: { action: 'malformed' } };
    return { delayMs: s.latencyMs };
  }

  /** A fixed one-second window: past `rateLimit` calls in it, 429 until the window ends. */
  private overRateLimit(): Fault | undefined {
    if (this.settings.rateLimit === 0) return undefined;
    const now = this.clock();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount += 1;
    if (this.windowCount <= this.settings.rateLimit) return undefined;
    return {
      action: 'status',
      status: 429,
      retryAfterSeconds: Math.max(1, Math.ceil((this.windowStart + 1000 - now) / 1000)),
    };
  }
}

/** Serving with the injector's faults: each call delayed, refused, dropped or cut off as it plans. */
export function faultyCalls(faults: FaultInjector): CallWrapper {
  return async (operation, handle) => {
    const { delayMs, fault } = faults.plan(operation);
    if (delayMs > 0) await sleep(delayMs);
    if (fault?.action === 'drop') return DROP_CONNECTION;
    if (fault?.action === 'status') throw statusError(fault.status, fault.retryAfterSeconds);
    const answer = await handle();
    if (fault?.action === 'dropAfterHandling') return DROP_CONNECTION;
    if (fault?.action === 'malformed' && answer.body !== undefined) {
      return { ...answer, body: answer.body.slice(0, Math.floor(answer.body.length / 2)) };
    }
    return answer;
  };
}

function statusError(status: 403 | 429 | 500 | 503, retryAfterSeconds: number | undefined): HttpError {
  if (status === 403) {
    return new HttpError('Forbidden', 'Forbidden', 'this client is not allowed to call this operation');
  }
  const retryAfter = retryAfterSeconds ?? (status === 429 ? 1 : undefined);
  const headers: Record<string, string> =
    retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
  if (status === 429) {
    return new HttpError(
      'TooManyRequests',
      'Too many requests',
      'the rate limit is exceeded; retry later',
      headers,
    );
  }
  if (status === 503) {
    return new HttpError(
      'ServiceUnavailable',
      'Service unavailable',
      'the service is temporarily unavailable',
      headers,
    );
  }
  return new HttpError(
    'InternalServerError',
    'Internal server error',
    'an unexpected error occurred',
    headers,
  );
}
