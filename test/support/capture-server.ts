// A server over loopback that records every request it gets (the attacker's capture server of
// issue 13, finding 2), answering each with `answer` (by default 404).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
}

export interface CaptureServer {
  url: string;
  readonly requests: CapturedRequest[];
  close(): Promise<void>;
}

export async function startCaptureServer(
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end(),
): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A webhook receiver over loopback: each delivery's signature header and body, answered 200. */
export async function startWebhookReceiver(): Promise<{
  url: string;
  readonly received: { signature: string; body: string }[];
  close(): Promise<void>;
}> {
  const received: { signature: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ signature: String(request.headers['seller-tray-signature']), body });
      response.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
