// The service as the tests open it, and its requests as a test makes them: `openTestService` with
// the settings file in a data folder, manual timers and a fixed computer account; `call` gives an
// answer's value (or throws its message, with its code), `refusal` the error of a request that
// must be refused.
import { SellerTrayService, type ServiceEvent, type ServicePorts } from '../../main/core/service';
import { ConfSettingsStore } from '../../main/core/settings';
import type { AnswerError, Channel, Requests, Responses } from '../../preload/contract';
import { ManualTimers } from './core';

/** The service over `dir`, each event it emits recorded in `events`; `ports` add to or replace the defaults. */
export async function openTestService(
  dir: string,
  ports: Pick<ServicePorts, 'secrets'> & Partial<ServicePorts>,
): Promise<{ service: SellerTrayService; events: ServiceEvent[] }> {
  const service = await SellerTrayService.open({
    settings: new ConfSettingsStore({ cwd: dir }),
    dataRoot: dir,
    timers: new ManualTimers(),
    accountName: () => 'Anna Virtanen',
    ...ports,
  });
  const events: ServiceEvent[] = [];
  service.onEvent((e) => events.push(e));
  service.listening();
  return { service, events };
}

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
