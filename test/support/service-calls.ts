// A service's requests as a test makes them: `call` gives the answer's value (or throws its
// message, with its code), `refusal` gives the error of a request that must be refused.
import type { SellerTrayService } from '../../main/core/service';
import type { AnswerError, Channel, Requests, Responses } from '../../preload/contract';

export function serviceCalls(service: SellerTrayService) {
  const call = async <C extends Channel>(channel: C, payload?: Requests[C]): Promise<Responses[C]> => {
    const answer = await service.handle(channel, payload as Requests[C]);
    if (!answer.ok) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
    return answer.value;
  };
  const refusal = async (channel: Channel, payload?: unknown): Promise<AnswerError> => {
    const answer = await service.handleMessage(channel, payload);
    if (answer.ok) throw new Error(`${channel} was accepted`);
    return answer.error;
  };
  return { call, refusal };
}
