// keytar for tests that look into the keychain directly, loaded as the app loads it (so the
// typecheck never needs keytar's own types: it is an optional dependency that may not build).
import { importKeytar, type KeytarApi } from '../../main/core/secrets';

export interface KeychainForTests extends KeytarApi {
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

export const keytar = (await importKeytar()) as KeychainForTests;
