// A delivery's POST through the platform's network client (transportPost) and through plain
// Node's own (nodeNetwork's post, the CLI's and the preview's): a redirect is a refusal, not
// followed, whether the client answers it (the 3xx itself) or refuses it (Electron's net.fetch
// throws "Redirect was cancelled", faked here: no Electron binary runs here); an answer is read
// only as far as it is kept, and one that stops coming is given up at the time limit. A delivery
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
import { deliver, type Post, transportPost } from './delivery';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
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
  ['over the client’s fetch', transportPost(fetch)],
  ['plain Node’s own (undici’s request)', nodeNetwork().post],
];

describe.each(posts)('a delivery %s', (_, post) => {
  it('takes a redirect for a refusal, not followed', async () => {
    const moved = await receiver((res) => res.writeHead(307, { location: 'http://127.0.0.1:1/' }).end());
    expect(await deliver(post, moved, '{}', {})).toMatchObject({ status: 307, outcome: 'refused' });
  });

  it('gives up an answer that stops coming at the time limit, to be tried again', async () => {
    const stalled = await receiver((res) => {
      res.writeHead(200);
      res.write('half');
    });
    const started = performance.now();
    expect(await deliver(post, stalled, '{}', {}, undefined, 300)).toMatchObject({
      status: null,
      outcome: 'retry',
      detail: 'the receiver did not answer within 0.3 s',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
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
