// A laptop on a corporate network (issue 25): the marketplace is reached through a CONNECT proxy
// and its certificate is signed by the company's own CA (a TLS-inspecting proxy's). The CLI, run
// as a process, the service as the preview opens it (node-transport.ts), and `npm run preview`'s
// process with a policy folder work when the CA is trusted (NODE_EXTRA_CA_CERTS) and say which
// certificate problem stopped them when it is not; NO_PROXY and loopback go direct. An automation's
// webhook goes out through the same client as the marketplace's calls.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppService } from '../main/app-service';
import { nodeNetwork } from '../main/core/api/node-transport';
import { deliver, httpPost, transportPost } from '../main/core/automation/delivery';
import { type Simulator, startSimulator } from '../simulator/server';
import {
  type ConnectProxy,
  INTERNAL_HOST,
  type Listening,
  makePrivateCa,
  type PrivateCa,
  startConnectProxy,
  startTlsFront,
} from './support/corporate-network';
import { exitOf, runTs, spawnTs, waitForLine } from './support/processes';

let sim: Simulator;
let ca: PrivateCa;
let front: Listening;
let proxy: ConnectProxy;
let home: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: 4 });
  ca = makePrivateCa();
  front = await startTlsFront(ca, sim.url);
  proxy = await startConnectProxy();
  home = await mkdtemp(join(tmpdir(), 'corporate-'));
});
afterAll(async () => {
  await Promise.all([front.close(), proxy.close(), sim.close()]);
  ca.remove();
  await rm(home, { recursive: true, force: true });
});

const internal = () => `https://${INTERNAL_HOST}:${front.port}`;

/** The CLI with the marketplace's account in its environment and no proxy or CA unless given. */
const cli = (args: string[], env: NodeJS.ProcessEnv) =>
  runTs('main/cli/seller-tray.ts', args, {
    XDG_CONFIG_HOME: home,
    SELLER_CLIENT_ID: 'demo-client',
    SELLER_CLIENT_SECRET: 'demo-secret',
    HTTPS_PROXY: '',
    https_proxy: '',
    NO_PROXY: '',
    no_proxy: '',
    NODE_EXTRA_CA_CERTS: '',
    ...env,
  });

describe('the CLI behind a proxy, with a private CA', () => {
  it('reaches the marketplace through the proxy when the CA is trusted', async () => {
    const before = proxy.tunnels.length;
    const run = await cli(['orders', 'list', '--limit', '2'], {
      SELLER_API_BASE_URL: internal(),
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
    expect(proxy.tunnels.slice(before)).toContain(`${INTERNAL_HOST}:${front.port}`);
  });

  it('adds an account through the proxy: its secret is checked the way every command reaches the marketplace', async () => {
    const before = proxy.tunnels.length;
    const added = await runTs(
      'main/cli/seller-tray.ts',
      ['accounts', 'add', 'Corp', '--base-url', internal(), '--client-id', 'demo-client'],
      {
        XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), 'corporate-add-')),
        SELLER_CLIENT_SECRET: '',
        HTTPS_PROXY: proxy.url,
        https_proxy: '',
        NO_PROXY: '',
        no_proxy: '',
        NODE_EXTRA_CA_CERTS: ca.caFile,
      },
      'demo-secret',
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(proxy.tunnels.slice(before)).toContain(`${INTERNAL_HOST}:${front.port}`);
  });

  it('names the certificate problem, and what to do, when the CA is not trusted', async () => {
    const run = await cli(['orders', 'list'], { SELLER_API_BASE_URL: internal(), HTTPS_PROXY: proxy.url });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /the server's certificate was refused \((unable to get local issuer certificate|unable to verify the first certificate): (UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
    );
    expect(run.stderr).toContain('set NODE_EXTRA_CA_CERTS to your organization');
  });

  it('goes direct for NO_PROXY’s hosts and for loopback', async () => {
    const before = proxy.tunnels.length;
    // The internal name resolves only at the proxy: bypassing it, the CLI cannot find the host.
    const bypassed = await cli(['orders', 'list'], {
      SELLER_API_BASE_URL: internal(),
      HTTPS_PROXY: proxy.url,
      NO_PROXY: `localhost,${INTERNAL_HOST}`,
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });
    expect(bypassed.code).toBe(1);
    expect(bypassed.stderr).toMatch(/could not be reached \(getaddrinfo (ENOTFOUND|EAI_AGAIN)/);
    const loopback = await cli(['orders', 'list', '--limit', '1'], {
      SELLER_API_BASE_URL: `https://127.0.0.1:${front.port}`,
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });
    expect(loopback.stderr).toBe('');
    expect(loopback.code).toBe(0);
    expect(proxy.tunnels.length).toBe(before);
  });
});

describe('the preview’s service behind a proxy, with a private CA', () => {
  it('tests a connection through the proxy when the CA is trusted, and names the certificate problem when not', async () => {
    const open = async (trusted: boolean) => {
      const dataRoot = await mkdtemp(join(home, 'preview-'));
      const { transport } = nodeNetwork({
        env: { HTTPS_PROXY: proxy.url },
        ca: trusted ? [ca.caPem] : undefined,
      });
      const opened = await openAppService(dataRoot, { transport });
      return opened;
    };
    const request = { baseUrl: internal(), clientId: 'demo-client', secret: 'demo-secret' };
    const trusted = await open(true);
    const before = proxy.tunnels.length;
    expect(await trusted.service.handle('testConnection', request)).toMatchObject({
      ok: true,
      value: { ok: true },
    });
    expect(proxy.tunnels.length).toBeGreaterThan(before);

    const untrusted = await open(false);
    const refused = await untrusted.service.handle('testConnection', request);
    expect(refused).toMatchObject({ ok: true, value: { ok: false, reason: 'tls' } });
    expect(JSON.stringify(refused)).toMatch(
      /certificate was refused \(.*: (UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
    );
    for (const { service, policies, demo } of [trusted, untrusted]) {
      policies.close();
      await service.close();
      await demo.stop();
    }
  });
});

describe('npm run preview on a managed laptop behind a proxy', () => {
  it('takes the policies and reaches the marketplace through the proxy, trusting the CA the environment names', async () => {
    const dataDir = await mkdtemp(join(home, 'preview-process-'));
    const policies = join(dataDir, 'policies');
    await mkdir(join(policies, 'managed'), { recursive: true });
    await writeFile(
      join(policies, 'managed', 'fleet.json'),
      JSON.stringify({ baseUrl: internal(), clientId: 'demo-client' }),
    );
    const child = spawnTs('main/preview/cli.ts', ['--port', '0', '--data-dir', dataDir], {
      HTTPS_PROXY: proxy.url,
      https_proxy: '',
      NO_PROXY: '',
      no_proxy: '',
      NODE_EXTRA_CA_CERTS: ca.caFile,
      SELLER_TRAY_POLICY_ROOT: policies,
    });
    try {
      const [, url] = await waitForLine(child, /^Seller Tray preview: (\S+)$/);
      const { origin, hash } = new URL(url ?? '');
      const token = new URLSearchParams(hash.slice(1)).get('token');
      const bridge = async (channel: string, body?: unknown) =>
        (
          await fetch(`${origin}/bridge/${channel}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}` },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          })
        ).json();
      expect(await bridge('getState')).toMatchObject({
        ok: true,
        value: { baseUrl: internal(), managed: { locked: expect.arrayContaining(['baseUrl', 'clientId']) } },
      });
      const before = proxy.tunnels.length;
      expect(
        await bridge('testConnection', {
          baseUrl: internal(),
          clientId: 'demo-client',
          secret: 'demo-secret',
        }),
      ).toMatchObject({ ok: true, value: { ok: true } });
      expect(proxy.tunnels.length).toBeGreaterThan(before);
      expect(await bridge('setSettings', { baseUrl: 'https://elsewhere.example' })).toMatchObject({
        ok: false,
        error: { code: 'managed' },
      });
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  }, 60_000);
});

describe('an automation’s webhook behind a proxy, with a private CA', () => {
  it('is delivered through the platform’s network client, as the marketplace is reached', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverFront = await startTlsFront(
      ca,
      `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    );
    try {
      const url = `https://${INTERNAL_HOST}:${receiverFront.port}/hooks/seller-tray`;
      const network = nodeNetwork({
        env: { HTTPS_PROXY: proxy.url },
        ca: [...tls.rootCertificates, ca.caPem],
      });
      // The CLI's and the preview's own POST, and a POST over the client's fetch (the desktop app's way, net.fetch there).
      for (const [at, viaProxy] of [network.post, transportPost(network.transport)].entries()) {
        const before = proxy.tunnels.length;
        const body = `{"event":"order.purchased","at":${at}}`;
        expect(await deliver(viaProxy, url, body, {})).toMatchObject({ status: 204, outcome: 'delivered' });
        expect(received.at(-1)).toBe(body);
        expect(proxy.tunnels.length).toBe(before + 1);
      }
      // Sent around the proxy, the internal name is not found: told, and tried again later.
      const direct = await deliver(httpPost, url, '{}', {});
      expect(direct).toMatchObject({ status: null, outcome: 'retry' });
      expect(direct.detail).toMatch(/ENOTFOUND|EAI_AGAIN/);
      expect(received).toHaveLength(2);
    } finally {
      await receiverFront.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
