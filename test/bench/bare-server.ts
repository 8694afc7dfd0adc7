// The baseline for simulator.bench.ts: a bare node:http server that does no work beyond
// answering a fixed JSON body. Run in its own process, like the simulator, so both get a core
// of their own. GET /?bytes=N answers a JSON body of exactly N bytes, with the same headers
// the simulator sends (Content-Type, Content-Length, the echoed X-Request-ID).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const bodies = new Map<number, string>();

function bodyOf(bytes: number): string {
  let body = bodies.get(bytes);
  if (body === undefined) {
    body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - '{"pad":""}'.length)) });
    bodies.set(bytes, body);
  }
  return body;
}

const server = createServer((req, res) => {
  const bytes = Number(/[?&]bytes=(\d+)/.exec(req.url ?? '')?.[1] ?? 2);
  const body = bodyOf(bytes);
  const id = req.headers['x-request-id'];
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...(typeof id === 'string' ? { 'X-Request-ID': id } : {}),
  });
  res.end(body);
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`bare server listening on http://127.0.0.1:${port}`);
});
