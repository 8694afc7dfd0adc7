// How the simulator refuses calls, cuts pages and writes answers: as we read the spec
// (AS_SPECIFIED, what the app's demo marketplace speaks), or bent the ways a real marketplace
// may differ (quirks.ts, the full simulator's).
import type { Operation } from '../main/core/api/routes';
import type { Answer, HttpError } from './http';
import type { Page } from './store';

export interface Dialect {
  /** Before a call is handled (its token checked): throws the HttpError it is refused with, if it is. */
  refuse(operation: Operation, query: URLSearchParams, token: string): void;
  /** Whether a post repeated under its X-Request-ID is replayed (design notes §2) or stored again. */
  deduplicatesPosts(): boolean;
  /** Whether a post it answered as stored is kept (listed), or lost after the answer. */
  keepsPosts(): boolean;
  /** A page of a listing, cut from `list` (the listing as it is). */
  page<T>(
    operation: Operation,
    offset: number,
    limit: number,
    list: (offset: number, limit: number) => Page<T>,
  ): Page<T>;
  /** A successful answer, written from the API's JSON. */
  answer(operation: Operation, status: number, json: string): Answer;
  /** A failed call's answer. */
  error(error: HttpError): Answer;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export const AS_SPECIFIED: Dialect = {
  refuse: () => {},
  deduplicatesPosts: () => true,
  keepsPosts: () => true,
  page: (_operation, offset, limit, list) => list(offset, limit),
  answer: (_operation, status, json) => ({ status, contentType: JSON_TYPE, body: json }),
  error: (error) => ({ status: error.status, contentType: JSON_TYPE, body: JSON.stringify(error.body()) }),
};
