// HTTP plumbing shared by the simulator's API and admin handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '../main/core/api/wire';

/** An answer as written on the wire. */
export interface Answer {
  status: number;
  contentType: string;
  /** No body at all when undefined. */
  body: string | undefined;
  /** Headers that replace those the call would be answered with (a gateway's own). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Written in place of each `marker` in the body, streamed (so no Content-Length): `bytes` of
   * text that the simulator never holds whole, for answers larger than any client should read.
   */
  expand?: { marker: string; bytes: number };
  /** The quirks that altered it, and how often (quirks.ts): their bites, counted once it is sent. */
  bitten?: Readonly<Record<string, number>>;
}

/** A failed call, answered with the error body of spec §2.15. */
export class HttpError extends Error {
  constructor(
    readonly errorCode: ErrorCode,
    readonly description: string,
    readonly detailedDescription: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${errorCode}: ${detailedDescription}`);
  }

  get status(): number {
    return ERROR_STATUS[this.errorCode];
  }

  body(): ErrorBody {
    return {
      errorCode: this.errorCode,
      description: this.description,
      detailedDescription: this.detailedDescription,
    };
  }
}

export const badRequest = (detail: string): HttpError =>
  new HttpError('BadRequest', 'Invalid request parameters', detail);
export const notFound = (detail: string): HttpError =>
  new HttpError('NotFound', 'Resource not found', detail);

/** The most an API request body may hold: a status event is a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Admin purchases may describe large orders (hundreds of lines) for tests and benchmarks. */
export const MAX_ADMIN_BODY_BYTES = 4 * 1024 * 1024;

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const tooLarge = (): HttpError =>
    new HttpError('PayloadTooLarge', 'Request body too large', `the body exceeds ${limit} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  json: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

export function sendError(
  res: ServerResponse,
  error: HttpError,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, error.status, JSON.stringify(error.body()), { ...headers, ...error.headers });
}

export function send(
  res: ServerResponse,
  answer: Answer,
  callHeaders: Readonly<Record<string, string>>,
): void {
  const headers = { ...callHeaders, ...answer.headers };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  if (answer.expand !== undefined) {
    res.writeHead(answer.status, { 'Content-Type': answer.contentType, ...headers });
    void streamExpanded(res, answer.body, answer.expand);
    return;
  }
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': Buffer.byteLength(answer.body),
    ...headers,
  });
  res.end(answer.body);
}

const EXPANSION_CHUNK = 'x'.repeat(64 * 1024);

/** Writes `body` with each marker expanded, waiting for the reader (drain); stops when it leaves. */
async function streamExpanded(
  res: ServerResponse,
  body: string,
  { marker, bytes }: { marker: string; bytes: number },
): Promise<void> {
  const write = (chunk: string) =>
    res.write(chunk)
      ? undefined
      : new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go).off('close', go);
            resolve();
          };
          res.on('drain', go).on('close', go);
        });
  const parts = body.split(marker);
  for (const [i, part] of parts.entries()) {
    if (res.destroyed) return;
    await write(part);
    if (i === parts.length - 1) break;
    for (let left = bytes; left > 0 && !res.destroyed; left -= EXPANSION_CHUNK.length) {
      await write(left >= EXPANSION_CHUNK.length ? EXPANSION_CHUNK : EXPANSION_CHUNK.slice(0, left));
    }
  }
  if (!res.destroyed) res.end();
}

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));
}
