// A keychain in memory, for services and views whose secrets the test sets itself; `values`
// holds them by entry (`<client id>@<origin>`) for a test to look at.
import type { SecretOwner, SecretStore } from '../../main/core/secrets';

export const memorySecrets = (values = new Map<string, string>()): SecretStore => {
  const key = (owner: SecretOwner) => `${owner.clientId}@${owner.origin}`;
  return {
    get: async (owner) => values.get(key(owner)),
    set: async (owner, secret) => void values.set(key(owner), secret),
    delete: async (owner) => values.delete(key(owner)),
    adoptUnbound: async () => false,
  };
};
