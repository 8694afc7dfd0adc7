// A corporate network over loopback, for the proxy and private-CA tests (issue 25): a certificate
// authority made here with openssl, an HTTPS marketplace (the simulator behind a TLS front whose
// certificate that CA signed), and a CONNECT proxy that records each tunnel and resolves the
// internal name `marketplace.test`, which this computer's resolver does not know, as a company's
// proxy resolves its intranet's names.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const INTERNAL_HOST = 'marketplace.test';

export interface PrivateCa {
  /** The CA's certificate, a PEM file: what NODE_EXTRA_CA_CERTS names. */
  caFile: string;
  caPem: string;
  key: string;
  cert: string;
  remove(): void;
}

/** A CA and a server certificate it signed for marketplace.test and 127.0.0.1. */
export function makePrivateCa(): PrivateCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'private-ca-'));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Example Corp TLS Inspection CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    ...ec,
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    `/CN=${INTERNAL_HOST}`,
  );
  writeFileSync(
    at('server.ext'),
    `subjectAltName=DNS:${INTERNAL_HOST},IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
  );
  return {
    caFile: at('ca.pem'),
    caPem: readFileSync(at('ca.pem'), 'utf8'),
    key: readFileSync(at('server.key'), 'utf8'),
    cert: readFileSync(at('server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Listening {
  port: number;
  close(): Promise<void>;
}

/** HTTPS in front of a plain-HTTP server (the simulator): each request passed on as it came. */
export async function startTlsFront(ca: PrivateCa, backend: string): Promise<Listening> {
  const server = createHttpsServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const forward = request(
      new URL(req.url ?? '/', backend),
      { method: req.method, headers: { ...req.headers, host: new URL(backend).host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export interface ConnectProxy extends Listening {
  url: string;
  /** Each tunnel asked for, as host:port. */
  readonly tunnels: string[];
}

/** An HTTP proxy that only tunnels (CONNECT), as one in front of https traffic does. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host === INTERNAL_HOST ? '127.0.0.1' : (host ?? ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    target.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => target.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
