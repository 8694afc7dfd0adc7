// A delivery's POST through the platform's network client (transportPost) and through plain
// Node's own (nodeNetwork's post, the CLI's and the preview's): a redirect is a refusal, not
// followed, whether the client answers it (the 3xx itself) or refuses it (Electron's net.fetch
// throws "Redirect was cancelled", faked here: no Electron binary runs here); the status decides,
// whatever the answer's body does after it (stalls, breaks off, never ends, is stopped): the body
// is read only as far as it is kept, within the time limit. A delivery
// or command whose stop came before it began never goes out. (Each POST called directly:
// post-contract.test.ts; stopped while still connecting: delivery-stalled-connect.test.ts.)
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeNetwork } from '../api/node-transport';
import { runCommand } from './command';
import { ANSWER_KEPT, deliver, httpPost, type Post, transportPost } from './delivery';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe('a delivery through the platform’s network client', () => {
  it('takes a redirect the client refuses to follow (Electron’s net.fetch) for a refusal', async () => {
    const url = await receiver((res) => res.writeHead(302, { location: 'https://elsewhere.example/' }).end());
    const electronLike = transportPost(async () => {
      throw new Error('Redirect was cancelled');
    });
    expect(await deliver(electronLike, url, '{}', {})).toMatchObject({
      status: null,
      outcome: 'refused',
      detail: 'the receiver answered with a redirect (not followed): not tried again',
    });
  });

  it('sends no cookies and follows no redirect itself', async () => {
    let asked: RequestInit | undefined;
    const url = await receiver((res) => res.writeHead(204).end());
    const recording = transportPost((target, init) => {
      asked = init;
      return fetch(target, init);
    });
    expect(await deliver(recording, url, '{}', {})).toMatchObject({ status: 204, outcome: 'delivered' });
    expect(asked).toMatchObject({ credentials: 'omit', redirect: 'manual' });
  });
});

const posts: [string, Post][] = [
  ['over node:http (httpPost, the core’s own)', httpPost],
  ['over the client’s fetch', transportPost(fetch)],
  ['plain Node’s own (undici’s request)', nodeNetwork().post],
];

describe.each(posts)('a delivery %s', (_, post) => {
  it('takes a redirect for a refusal, not followed', async () => {
    const moved = await receiver((res) => res.writeHead(307, { location: 'http://127.0.0.1:1/' }).end());
    expect(await deliver(post, moved, '{}', {})).toMatchObject({ status: 307, outcome: 'refused' });
  });

  // The status line is the receiver's word: what its body does after it undoes nothing.
  it('takes a 2xx whose answer stalls for delivered, read no longer than the time limit, saying so', async () => {
    const stalled = await receiver((res) => {
      res.writeHead(200);
      res.write('accepted, provisioning');
    });
    const started = performance.now();
    expect(await deliver(post, stalled, '{}', {}, undefined, 300)).toMatchObject({
      status: 200,
      outcome: 'delivered',
      detail: 'delivered (HTTP 200); the rest of its answer did not come within 0.3 s, so it was not read',
      answer: 'accepted, provisioning',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('takes a 2xx whose connection breaks in its answer for delivered, saying so', async () => {
    const broken = await receiver((res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('accepted', () => res.socket?.destroy());
    });
    const delivered = await deliver(post, broken, '{}', {}, undefined, 2_000);
    expect(delivered).toMatchObject({ status: 200, outcome: 'delivered', answer: 'accepted' });
    expect(delivered.detail).toMatch(/^delivered \(HTTP 200\); its answer broke off: .+/);
  });

  it('takes a 2xx whose answer is stopped (Ctrl+C) for delivered', async () => {
    const stalled = await receiver((res) => {
      res.writeHead(202);
      res.write('queued');
    });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    expect(await deliver(post, stalled, '{}', {}, stop.signal, 5_000)).toMatchObject({
      status: 202,
      outcome: 'delivered',
      detail: 'delivered (HTTP 202); its answer was not read to its end: stopped',
    });
  });

  it('reads a 2xx answer that never ends no further than ANSWER_READ_MOST, keeps its start, and ends at once', async () => {
    const endless = await receiver((res) => {
      res.writeHead(200);
      const more = () => !res.destroyed && res.write('x'.repeat(64 * 1024), () => setImmediate(more));
      more();
    });
    const started = performance.now();
    const delivered = await deliver(post, endless, '{}', {}, undefined, 5_000);
    expect(delivered).toMatchObject({ status: 200, outcome: 'delivered', detail: 'delivered (HTTP 200)' });
    expect(delivered.answer).toBe('x'.repeat(ANSWER_KEPT));
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it.each([
    [307, 'refused', 'the receiver answered HTTP 307 (a redirect, not followed): not tried again'],
    [404, 'refused', 'the receiver answered HTTP 404: not tried again'],
    [503, 'retry', 'the receiver answered HTTP 503'],
  ])('takes HTTP %i whose answer stalls for its status (%s)', async (code, outcome, said) => {
    const stalled = await receiver((res) => {
      res.writeHead(code, { location: 'http://127.0.0.1:1/' });
      res.write('half');
    });
    expect(await deliver(post, stalled, '{}', {}, undefined, 300)).toMatchObject({
      status: code,
      outcome,
      detail: `${said}; the rest of its answer did not come within 0.3 s, so it was not read`,
    });
  });
});

it('sends nothing when stopped before it began: the stop is heard even when it came first', async () => {
  let requests = 0;
  const url = await receiver((res) => {
    requests += 1;
    res.writeHead(200).end();
  });
  const stopped = AbortSignal.abort();
  expect(await deliver(transportPost(fetch), url, '{}', {}, stopped)).toMatchObject({
    status: null,
    outcome: 'retry',
  });
  expect(requests).toBe(0);
});

it('starts no command when stopped before it began', async () => {
  const marker = join(await mkdtemp(join(tmpdir(), 'command-')), 'ran');
  const result = await runCommand(
    [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)},'')`],
    {
      input: Buffer.from('{}'),
      env: process.env,
      cwd: tmpdir(),
      timeoutMs: 10_000,
      signal: AbortSignal.abort(),
    },
  );
  expect(result).toMatchObject({ exitCode: null, startError: 'stopped before it started' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(existsSync(marker)).toBe(false);
});
