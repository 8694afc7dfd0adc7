// `call`, the one place the window unwraps the bridge's `Answer`s: a value comes back as it is, a
// failed answer is thrown as a `CodedError` with the main process's code, message, details and fields.
import { describe, expect, it } from 'vitest';
import { CodedError } from '../../preload/coded-error';
import { createFakeBridge } from '../../test/support/renderer/fake-bridge';
import { asCodedError, call, explained } from './call';

describe('call', () => {
  it('resolves to the answer’s value', async () => {
    const bridge = createFakeBridge();
    expect(await call(bridge, 'getState', undefined)).toBe(bridge.state);
  });

  it('throws a failed answer as a CodedError with its code, message, details and fields', async () => {
    const details = ['Operation: getOrder', 'HTTP status: 503 ServiceUnavailable', 'Request id: r-1'];
    const fields = [{ field: 'baseUrl', message: 'Use https.' }];
    const bridge = createFakeBridge();
    bridge.handle('getOrder', () => {
      throw new CodedError('api-http', 'The marketplace is having problems.', { details, fields });
    });
    const error = await call(bridge, 'getOrder', { orderId: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toMatchObject({
      code: 'api-http',
      message: 'The marketplace is having problems.',
      details,
      fields,
    });
    expect(explained(error)).toEqual({ message: 'The marketplace is having problems.', details });
  });

  it('passes a failed connection test through: it is an answer’s value, not an error', async () => {
    const bridge = createFakeBridge();
    const failed = { ok: false, reason: 'credentials', message: 'rejected' } as const;
    bridge.handle('testConnection', () => failed);
    expect(await call(bridge, 'testConnection', { baseUrl: 'https://x.example', clientId: 'c' })).toEqual(
      failed,
    );
  });

  it('gives failures of the window’s own code a message the user can read', () => {
    expect(asCodedError(new Error('boom'))).toMatchObject({ code: 'internal', message: 'boom' });
    expect(asCodedError('lost')).toMatchObject({ code: 'internal', message: 'lost' });
    expect(explained(42)).toEqual({ message: expect.stringMatching(/^Something went wrong/), details: [] });
  });
});
