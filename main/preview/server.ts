// The browser preview: the core, the built-in simulator and the built renderer in plain
// Node, the bridge carried over loopback HTTP (requests as POSTs, the event stream as
// server-sent events). It is how the whole app runs where Electron cannot, so it guards
// the bridge as the Electron shell does: a random token per run, sent only as an
// Authorization header (never in an address, where logs and history keep it), and Host and
// Origin checks against DNS rebinding and other sites.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { failedAnswer, isChannel } from '../../preload/contract';
import type { SellerTrayService, ServiceEvent } from '../core/service';
import { CONTENT_SECURITY_POLICY, CONTENT_TYPES } from '../renderer-serving';

const MAX_REQUEST_BYTES = 64 * 1024;
/** Event streams open at once: one per window of the app, and more than anyone opens. */
export const MAX_EVENT_STREAMS = 16;

export interface PreviewOptions {
  service: SellerTrayService;
  /** The built renderer (vite build output). */
  rendererDir: string;
  port?: number;
}

export interface Preview {
  /** The address to open, with the run's token in the fragment (never sent to the server by the browser). */
  url: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

export async function startPreview(options: PreviewOptions): Promise<Preview> {
  const token = randomBytes(32).toString('base64url');
  const streams = new Set<ServerResponse>();
  let origin = '';
  const stopListening = options.service.onEvent((event: ServiceEvent) => {
    const data = `data: ${JSON.stringify(event)}\n\n`;
    for (const stream of streams) stream.write(data);
  });

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, 'text/plain; charset=utf-8', `Internal error: ${(error as Error).message}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Only this server's own names: a page on another site that rebinds its DNS to
    // 127.0.0.1 still sends its own host name.
    const host = req.headers.host ?? '';
    if (host !== new URL(origin).host && host !== `localhost:${new URL(origin).port}`) {
      return send(res, 421, 'text/plain; charset=utf-8', 'Unknown host');
    }
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname.startsWith('/bridge/')) {
      const sentOrigin = req.headers.origin;
      if (sentOrigin !== undefined && sentOrigin !== origin && sentOrigin !== `http://${host}`) {
        return send(res, 403, 'text/plain; charset=utf-8', 'Foreign origin');
      }
      if (!sameToken(req.headers.authorization ?? '', `Bearer ${token}`))
        return send(res, 401, 'text/plain; charset=utf-8', 'Missing or wrong token');
      if (url.pathname === '/bridge/events' && req.method === 'GET') return openStream(res);
      if (req.method !== 'POST') return send(res, 405, 'text/plain; charset=utf-8', 'Use POST');
      const channel = url.pathname.slice('/bridge/'.length);
      if (!isChannel(channel)) return send(res, 404, 'text/plain; charset=utf-8', 'No such channel');
      let payload: unknown;
      try {
        payload = await readJson(req);
      } catch (error) {
        const refusal = failedAnswer('invalid-input', (error as Error).message);
        return send(res, 400, 'application/json; charset=utf-8', JSON.stringify(refusal));
      }
      const answer = await options.service.handleMessage(channel, payload);
      return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(answer));
    }
    if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'Use GET');
    return serveFile(res, url.pathname);
  }

  function openStream(res: ServerResponse): void {
    if (streams.size >= MAX_EVENT_STREAMS) {
      send(res, 503, 'text/plain; charset=utf-8', 'Too many windows are open: close one.');
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write(`data: ${JSON.stringify({ type: 'app-state', state: options.service.state() })}\n\n`);
    streams.add(res);
    res.on('close', () => streams.delete(res));
  }

  async function serveFile(res: ServerResponse, pathname: string): Promise<void> {
    let relative: string;
    try {
      relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname.slice(1));
    } catch {
      return send(res, 400, 'text/plain; charset=utf-8', 'Bad escape in the address');
    }
    const file = normalize(join(options.rendererDir, relative));
    if (!file.startsWith(normalize(options.rendererDir) + sep))
      return send(res, 404, 'text/plain; charset=utf-8', 'Not found');
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return send(res, 404, 'text/plain; charset=utf-8', 'Not found');
    }
    send(res, 200, CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', body);
  }

  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    async close() {
      stopListening();
      for (const stream of streams) stream.end();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error(`the request is larger than ${MAX_REQUEST_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the request body is not JSON');
  }
}
