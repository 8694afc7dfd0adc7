// seller-tray doctor and the answer cap, over real HTTP: the simulator's answers say their
// length (Content-Length), so a cap under a page's length refuses the page unread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../simulator/server';
import { diagnose } from './diagnosis';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, orders: 20 });
});
afterAll(() => sim.close());

describe('a diagnosis whose answers are over the cap', () => {
  it("names an answer refused by its Content-Length as over the cap, in the client's words, not as an empty page", async () => {
    const diagnosis = await diagnose({
      baseUrl: sim.url,
      credentials: { clientId: 'demo-client', clientSecret: async () => 'demo-secret' },
      maxAnswerBytes: 4096,
    });
    const orders = diagnosis.steps.find((step) => step.operation === 'listOrders');
    expect(orders?.notes).toContain(
      'an answer was larger than 4096 bytes, more than Seller Tray reads: a page so is asked again in smaller pages, an item so alone is kept aside',
    );
    expect(orders?.notes.join('\n')).not.toMatch(/no body|empty page|MiB/);
  });
});
