// Type tests for the bridge, checked by `npm run typecheck` (never run): the code under each
// expect-error directive below must fail to compile, so a bridge the compiler no longer holds together
// (a channel without a handler, a misspelled one, a wrong answer or request) fails the build.

import type { Handler, Handlers, SellerTrayService } from '../../main/core/service';
import type { AppState, Bridge } from '../../preload/contract';

declare const handlers: Handlers;
declare const service: SellerTrayService;
declare const bridge: Bridge;

export async function answerTests(): Promise<unknown[]> {
  // @ts-expect-error: a channel resolves to an Answer (renderer/bridge/call.ts unwraps it), not the value
  const unwrapped: AppState = await bridge.getState(undefined);
  const answer = await bridge.getState(undefined);
  return [unwrapped, answer.ok ? answer.value.clientId : answer.error.code];
}

export function typeTests(): unknown[] {
  const { diagnose: _omitted, ...allButOne } = handlers;
  // @ts-expect-error: a channel of the contract without a handler
  const missingChannel: Handlers = allButOne;
  // @ts-expect-error: a handler under a misspelled channel does not stand for the real one
  const misspelledChannel: Handlers = { ...allButOne, diagnoze: handlers.diagnose };
  // @ts-expect-error: getState answers an AppState, not anything
  const wrongAnswer: Handler<'getState'> = async () => ({ ok: true });
  return [
    missingChannel,
    misspelledChannel,
    wrongAnswer,
    // @ts-expect-error: the shell's own call with a misspelled field
    service.handle('markStatus', { orderId: 'o-1', statusCod: 'ProvisioningInProgress' }),
    // @ts-expect-error: a status the user cannot mark
    service.handle('markStatus', { orderId: 'o-1', statusCode: 'ProvisioningStarted' }),
    // @ts-expect-error: a channel the contract does not have
    service.handle('deleteOrder', { orderId: 'o-1' }),
    // @ts-expect-error: the window's call with a request of the wrong shape
    bridge.getOrder({ id: 'o-1' }),
    // The same calls, well formed, compile.
    service.handle('markStatus', { orderId: 'o-1', statusCode: 'ProvisioningInProgress' }),
    bridge.getOrder({ orderId: 'o-1' }),
  ];
}
