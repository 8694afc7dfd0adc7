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
