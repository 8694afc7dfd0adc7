import { describe, expect, it } from 'vitest';
import type { Bridge } from '../../preload/contract';
import { createFakeBridge, FakeBridgeError } from '../../test/support/renderer/fake-bridge';
import { BridgeCallError, call, explained } from './call';

describe('call', () => {
  it('resolves to the response', async () => {
    const bridge = createFakeBridge();
    expect(await call(bridge, 'getState', undefined)).toBe(bridge.state);
  });

  it('turns a thrown error with a code into a BridgeCallError', async () => {
    const bridge = createFakeBridge();
    bridge.handle('getOrder', () => {
      throw new FakeBridgeError('unusual-transition', 'Confirm it');
    });
    const error = await call(bridge, 'getOrder', { orderId: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeCallError);
    expect(error).toMatchObject({ code: 'unusual-transition', message: 'Confirm it' });
  });

  it('turns an Answer of {ok: false, error} into a thrown BridgeCallError', async () => {
    const bridge = createFakeBridge();
    const answering = {
      ...bridge,
      getState: async () => ({ ok: false, error: { code: 'internal', message: 'Boom' } }),
    };
    await expect(call(answering as unknown as Bridge, 'getState', undefined)).rejects.toMatchObject({
      name: 'BridgeCallError',
      code: 'internal',
      message: 'Boom',
    });
  });

  it("keeps a failure's details for the window, whether it was thrown or answered", async () => {
    const details = ['Operation: getOrder', 'HTTP status: 503 ServiceUnavailable', 'Request id: r-1'];
    const bridge = createFakeBridge();
    bridge.handle('getOrder', () => {
      throw new FakeBridgeError('api-http', 'The marketplace is having problems.', details);
    });
    const thrown = await call(bridge, 'getOrder', { orderId: 'x' }).catch(explained);
    expect(thrown).toEqual({ message: 'The marketplace is having problems.', details });
    const answering = {
      ...bridge,
      getState: async () => ({ ok: false, error: { code: 'api-http', message: 'Down.', details } }),
    };
    const answered = await call(answering as unknown as Bridge, 'getState', undefined).catch(explained);
    expect(answered).toEqual({ message: 'Down.', details });
    expect(explained(42)).toEqual({ message: expect.stringMatching(/^Something went wrong/), details: [] });
  });

  it('unwraps an Answer of {ok: true, value}', async () => {
    const bridge = createFakeBridge();
    const answering = { ...bridge, getState: async () => ({ ok: true, value: bridge.state }) };
    expect(await call(answering as unknown as Bridge, 'getState', undefined)).toBe(bridge.state);
  });

  it('passes a failed connection test through: it is an answer, not an error', async () => {
    const bridge = createFakeBridge();
    const failed = { ok: false, reason: 'credentials', message: 'rejected' } as const;
    bridge.handle('testConnection', () => failed);
    expect(await call(bridge, 'testConnection', { baseUrl: 'https://x.example', clientId: 'c' })).toEqual(
      failed,
    );
  });

  it('gives errors without a code or message one the user can read', async () => {
    const bridge = createFakeBridge();
    bridge.handle('getState', () => {
      throw 42;
    });
    await expect(call(bridge, 'getState', undefined)).rejects.toMatchObject({ code: 'internal' });
    bridge.handle('getState', () => {
      throw new Error("Error invoking remote method 'seller-tray:getState': boom");
    });
    await expect(call(bridge, 'getState', undefined)).rejects.toMatchObject({
      code: 'internal',
      message: "Error invoking remote method 'seller-tray:getState': boom",
    });
  });
});
