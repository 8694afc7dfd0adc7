// A marketplace of one seller with one client, on an origin of its own: the several-accounts
// tests (issue 23) serve two or more of them at once, each secret its own.

import { type Simulator, startSimulator } from '../../simulator/server';
import type { ClientCredential } from '../../simulator/store';

export function oneSellerMarketplace(
  seed: number,
  sellerId: number,
  orders: number,
  client: ClientCredential,
): Promise<Simulator> {
  return startSimulator({ port: 0, seed, sellers: [{ sellerId, orders, clients: [client] }] });
}
