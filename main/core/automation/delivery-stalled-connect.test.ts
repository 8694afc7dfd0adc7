// A delivery's time limit and its stop hold before any answer could come: while the connection is
// still being made (a TLS handshake the receiver never finishes, a proxy that never answers the
// CONNECT), as fetch does. undici's `request` hears its signal only once a socket is connected.
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeNetwork } from '../api/node-transport';
import { type DeliveryResult, deliver, transportPost } from './delivery';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TCP server that takes connections and never says a word (no TLS handshake, no CONNECT answer). */
async function silentServer(): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The delivery's result, or 'still pending' when it has not ended 3 s after it began. */
async function within3s(delivery: Promise<DeliveryResult>): Promise<DeliveryResult | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still pending'>((resolve) => {
    timer = setTimeout(() => resolve('still pending'), 3_000);
  });
  try {
    return await Promise.race([delivery, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a delivery whose connection is never made', () => {
  it('is given up at its time limit, a receiver that never finishes the TLS handshake', async () => {
    const url = `https://127.0.0.1:${await silentServer()}/hook`;
    const { post, transport } = nodeNetwork();
    for (const way of [transportPost(transport), post]) {
      expect(await within3s(deliver(way, url, '{}', {}, undefined, 300))).toMatchObject({
        status: null,
        outcome: 'retry',
        detail: 'the receiver did not answer within 0.3 s',
      });
    }
  });

  it('is given up at its time limit, a proxy that never answers the CONNECT', async () => {
    const network = nodeNetwork({ env: { HTTPS_PROXY: `http://127.0.0.1:${await silentServer()}` } });
    for (const way of [transportPost(network.transport), network.post]) {
      expect(
        await within3s(deliver(way, 'https://hooks.example.com/seller-tray', '{}', {}, undefined, 300)),
      ).toMatchObject({ status: null, outcome: 'retry', detail: 'the receiver did not answer within 0.3 s' });
    }
  });

  it('ends at once when stopped (Ctrl+C on seller-tray run) while it connects', async () => {
    const url = `https://127.0.0.1:${await silentServer()}/hook`;
    const { post, transport } = nodeNetwork();
    for (const way of [transportPost(transport), post]) {
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 200);
      expect(await within3s(deliver(way, url, '{}', {}, stop.signal))).toMatchObject({
        status: null,
        outcome: 'retry',
      });
    }
  });
});
