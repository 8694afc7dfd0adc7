// The fetch-and-parse floor the benches compare the client and the first start against: the same
// pages requested one after another on one keep-alive connection with one token, each answer
// parsed, its envelope checked and every item read with the wire schema (readItems), as any
// client that checks what it reads must do. Nothing is stored.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { routes } from '../../main/core/api/routes';
import { readItems } from '../../main/core/api/wire';

/** A paged listing the floor walks: its path and the key of its items. */
export type FloorListing = 'listEvents' | 'listOrders';

function httpCall(base: URL, agent: Agent | false, method: string, path: string, authorization: string) {
  return new Promise<Buffer>((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: { Authorization: authorization, 'X-Request-ID': randomUUID() },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode && res.statusCode < 300
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A page's items read as the client reads them: the envelope checked, then each item on its own. */
export function parsePage(listing: FloorListing, body: Buffer): number {
  const envelope = routes[listing].response.parse(JSON.parse(body.toString())) as Record<string, unknown[]>;
  const items = envelope[routes[listing].pageItems] ?? [];
  const read = readItems(listing === 'listOrders' ? 'order' : 'event', items);
  if (read.unreadable.length > 0) throw new Error(`${listing}: ${read.unreadable.length} items unreadable`);
  return read.items.length;
}

export interface FloorWalker {
  /** Walks `listing` from offset 0 in pages of `pageSize` until a page comes back short; answers the items read. */
  walk(listing: FloorListing, pageSize: number): Promise<number>;
  /** Requests exactly these paths; answers the items (or bytes) read. */
  paths(paths: readonly { listing: FloorListing; path: string }[], parse?: boolean): Promise<number>;
  /** A new connection and a new token for each page, then parse and check (the naive client). */
  naive(paths: readonly { listing: FloorListing; path: string }[]): Promise<number>;
  close(): void;
}

/** A floor on the marketplace at `url`, with the demo seller's credentials. */
export async function floorWalker(url: string): Promise<FloorWalker> {
  const base = new URL(url);
  const basic = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;
  const token = async (agent: Agent | false) =>
    JSON.parse((await httpCall(base, agent, 'POST', routes.createToken.path, basic)).toString())
      .accessToken as string;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const bearer = `Bearer ${await token(agent)}`;
  const get = (path: string) => httpCall(base, agent, 'GET', path, bearer);
  return {
    async walk(listing, pageSize) {
      let total = 0;
      for (let offset = 0; ; offset += pageSize) {
        const items = parsePage(
          listing,
          await get(`${routes[listing].path}?offset=${offset}&limit=${pageSize}`),
        );
        total += items;
        if (items < pageSize) return total;
      }
    },
    async paths(paths, parse = true) {
      let total = 0;
      for (const { listing, path } of paths) {
        const body = await get(path);
        total += parse ? parsePage(listing, body) : body.length;
      }
      return total;
    },
    async naive(paths) {
      let total = 0;
      for (const { listing, path } of paths) {
        const fresh = `Bearer ${await token(false)}`;
        total += parsePage(listing, await httpCall(base, false, 'GET', path, fresh));
      }
      return total;
    },
    close: () => agent.destroy(),
  };
}
