// The window as order links see it (main/shell/order-links.ts), for tests that open links: what it
// was asked to show, and every lookup asked for.
import type { OrderLookup } from '../../main/core/service';
import type { OrderLinkPorts } from '../../main/shell/order-links';

export function recordingPorts(lookUp: (orderId: string, account?: string) => Promise<OrderLookup>) {
  const shown: { order?: string; account?: string; problem?: string; details?: string[] }[] = [];
  const lookups: string[] = [];
  const ports: OrderLinkPorts = {
    lookUp: (orderId, account) => {
      lookups.push(orderId);
      return lookUp(orderId, account);
    },
    showOrder: (order, account) => shown.push({ order, account }),
    showProblem: (problem, details) => shown.push({ problem, details }),
  };
  return { ports, shown, lookups };
}
