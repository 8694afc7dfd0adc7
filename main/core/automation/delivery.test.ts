// A delivery's POST through the platform's network client (transportPost): a redirect is a
// refusal, not followed, whether the client answers it (Node's fetch: the 3xx itself) or refuses
// it (Electron's net.fetch throws "Redirect was cancelled", faked here: no Electron binary runs
// here); an answer is read only as far as it is kept. A delivery or command whose stop came
// before it began never goes out.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from './command';
import { deliver, transportPost } from './delivery';

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
  it('takes a redirect for a refusal, answered (Node’s fetch) or refused (Electron’s net.fetch)', async () => {
    const url = await receiver((res) => res.writeHead(302, { location: 'https://elsewhere.example/' }).end());
    const answered = await deliver(transportPost(fetch), url, '{}', {});
    expect(answered).toMatchObject({ status: 302, outcome: 'refused' });
    const electronLike = transportPost(async () => {
      throw new Error('Redirect was cancelled');
    });
    expect(await deliver(electronLike, url, '{}', {})).toMatchObject({
      status: null,
      outcome: 'refused',
      detail: 'the receiver answered with a redirect (not followed): not tried again',
    });
  });

  it('sends no cookies, and keeps only the start of a long answer', async () => {
    let asked: RequestInit | undefined;
    const url = await receiver((res) => res.writeHead(200).end('x'.repeat(1_000_000)));
    const recording = transportPost((target, init) => {
      asked = init;
      return fetch(target, init);
    });
    const delivered = await deliver(recording, url, '{}', {});
    expect(delivered).toMatchObject({ status: 200, outcome: 'delivered' });
    expect(delivered.answer.length).toBeLessThanOrEqual(2_048);
    expect(asked).toMatchObject({ credentials: 'omit', redirect: 'manual' });
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
