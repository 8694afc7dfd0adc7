// Raw HTTP calls to a Seller API, for tests that check the protocol itself (status codes,
// headers, bodies) rather than what the client makes of it.
import { randomUUID } from 'node:crypto';
import { type Operation, type Route, routePath, routes } from '../../main/core/api/routes';
import { ADMIN_PREFIX } from '../../simulator/server';

export interface RawCall {
  token?: string;
  basic?: [string, string];
  /** null sends no X-Request-ID; by default a fresh UUID is sent. */
  requestId?: string | null;
  params?: Record<string, string>;
  query?: Record<string, string | number>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  json: any;
}

export async function rawCall(baseUrl: string, operation: Operation, call: RawCall = {}): Promise<RawAnswer> {
  const route: Route = routes[operation];
  const url = new URL(baseUrl + routePath(route, call.params));
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...call.headers };
  if (call.requestId !== null) headers['X-Request-ID'] = call.requestId ?? randomUUID();
  if (call.token) headers.Authorization = `Bearer ${call.token}`;
  if (call.basic) headers.Authorization = `Basic ${Buffer.from(call.basic.join(':')).toString('base64')}`;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(url, { method: route.method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export async function tokenFor(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const answer = await rawCall(baseUrl, 'createToken', { basic: [clientId, clientSecret] });
  if (answer.status !== 201) throw new Error(`token: ${answer.status} ${answer.text}`);
  return answer.json.accessToken;
}

/** A call of the simulator's admin endpoints. */
export async function admin(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<RawAnswer> {
  const response = await fetch(`${baseUrl}${ADMIN_PREFIX}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: text ? JSON.parse(text) : undefined,
  };
}
