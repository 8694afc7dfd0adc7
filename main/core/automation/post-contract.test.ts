// The Post contract each way out keeps by itself, not only behind deliver(): deliver() returns
// before calling a post whose stop came first, and reads the answer's body itself, so
// delivery.test.ts's "sends nothing when stopped before it began" passes whatever the post does.
// Called directly here: a stop that came first sends nothing; the status is answered as soon as
// it came, the body still coming, and a stop then ends the body; a Retry-After is passed on.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeNetwork } from '../api/node-transport';
import { httpPost, type Post, transportPost } from './delivery';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answer: (res: import('node:http').ServerResponse) => void) {
  const seen = { requests: 0 };
  const server = createServer((req, res) => {
    seen.requests += 1;
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

const posts: [string, Post][] = [
  ['over node:http (httpPost)', httpPost],
  ['over the client’s fetch (transportPost)', transportPost(fetch)],
  ['plain Node’s own (undici’s request)', nodeNetwork().post],
];

describe.each(posts)('a POST %s, called directly', (_, post) => {
  it('sends nothing when its stop came first', async () => {
    const { url, seen } = await receiver((res) => res.writeHead(204).end());
    await post(url, Buffer.from('{}'), {}, AbortSignal.abort()).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.requests).toBe(0);
  });

  it("gives the receiver's Retry-After, so that it is not tried again before then", async () => {
    const { url } = await receiver((res) => res.writeHead(429, { 'Retry-After': '600' }).end());
    const sent = await post(url, Buffer.from('{}'), {}, new AbortController().signal);
    expect(sent).toMatchObject({ status: 429, retryAfter: '600' });
  });

  it('answers the status as soon as it came, the body still coming; a stop then ends the body', async () => {
    const { url } = await receiver((res) => {
      res.writeHead(200);
      res.write('first');
    });
    const stop = new AbortController();
    const sent = await post(url, Buffer.from('{}'), {}, stop.signal);
    expect(sent.status).toBe(200);
    const reading = sent.body[Symbol.asyncIterator]();
    expect(await reading.next()).toEqual({ done: false, value: 'first' });
    const rest = reading.next().then(
      (next) => (next.done ? 'ended' : 'more'),
      () => 'broken off',
    );
    stop.abort();
    expect(await rest).not.toBe('more');
  }, 3_000);
});
