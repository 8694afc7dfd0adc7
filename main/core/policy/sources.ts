// Where each platform keeps an organization's policies, read into documents for layers.ts:
// - Linux: /etc/seller-tray/policies/{managed,recommended}/*.json, one JSON object a file;
// - macOS: the managed preferences a configuration profile installs for the app id (root keys
//   managed, a `Recommended` dictionary), XML or binary plists, read with `plist`;
// - Windows: HKLM\SOFTWARE\Policies\SellerTray, then the same under HKCU, each with a
//   `Recommended` subkey, read with `reg query` (reg.exe, on every Windows) behind a small port.
// A source never throws: what it cannot read is a problem, and the documents it could read stand.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseBinary, parse as parsePlist } from 'plist';
import { APP_ID } from '../app-identity';
import type { PolicyDocument, PolicyLevel, PolicyProblem, PolicyRead } from './layers';

export interface PolicySource {
  read(): Promise<PolicyRead>;
  /** Folders whose changes may change the policies (watched where the platform can); none: re-read on a timer. */
  watched: string[];
}

const LEVELS: readonly PolicyLevel[] = ['managed', 'recommended'];

const problemOf = (origin: string, error: unknown): PolicyProblem => ({
  origin,
  key: null,
  message: `could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); its policies are not in force`,
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);

// ---------------------------------------------------------------------------------------------
// Linux

export const LINUX_POLICY_ROOT = '/etc/seller-tray/policies';

/** Each level's *.json files, the last by name first: 90-site.json overrides 10-base.json, as in conf.d folders. */
export function linuxPolicySource(root: string = LINUX_POLICY_ROOT): PolicySource {
  return {
    watched: [root, ...LEVELS.map((level) => path.join(root, level))],
    read: async () => {
      const read: PolicyRead = { documents: [], problems: [] };
      for (const level of LEVELS) {
        const folder = path.join(root, level);
        let names: string[];
        try {
          names = readdirSync(folder).filter((name) => name.endsWith('.json'));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
            read.problems.push(problemOf(folder, error));
          continue;
        }
        for (const name of names.sort().reverse()) {
          const file = path.join(folder, name);
          try {
            const values: unknown = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
            if (!isObject(values)) {
              read.problems.push({
                origin: file,
                key: null,
                message: 'does not hold a JSON object; ignored',
              });
              continue;
            }
            read.documents.push({ level, origin: file, values });
          } catch (error) {
            const message =
              error instanceof SyntaxError ? 'is not valid JSON; its policies are not in force' : undefined;
            read.problems.push(message ? { origin: file, key: null, message } : problemOf(file, error));
          }
        }
      }
      return read;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// macOS

export const MAC_MANAGED_PREFERENCES = '/Library/Managed Preferences';

/**
 * The managed preferences of the app id: the user's own (a profile installed for this user) before
 * the computer's. Keys a profile's payload carries about itself (PayloadUUID…) are not policies.
 */
export function macPolicySource(
  root: string = MAC_MANAGED_PREFERENCES,
  user: string = os.userInfo().username,
): PolicySource {
  const files = [path.join(root, user, `${APP_ID}.plist`), path.join(root, `${APP_ID}.plist`)];
  return {
    watched: [root, path.join(root, user)],
    read: async () => {
      const read: PolicyRead = { documents: [], problems: [] };
      for (const file of files) {
        let bytes: Buffer;
        try {
          bytes = readFileSync(file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') read.problems.push(problemOf(file, error));
          continue;
        }
        let root: unknown;
        try {
          root =
            bytes.subarray(0, 6).toString('latin1') === 'bplist'
              ? parseBinary(bytes)
              : parsePlist(bytes.toString('utf8'));
        } catch {
          read.problems.push({
            origin: file,
            key: null,
            message: 'is not a property list; its policies are not in force',
          });
          continue;
        }
        if (!isObject(root)) {
          read.problems.push({ origin: file, key: null, message: 'does not hold a dictionary; ignored' });
          continue;
        }
        const { Recommended: recommended, ...managed } = root;
        read.documents.push({ level: 'managed', origin: file, values: withoutPayloadKeys(managed) });
        if (isObject(recommended))
          read.documents.push({ level: 'recommended', origin: `${file} (Recommended)`, values: recommended });
        else if (recommended !== undefined)
          read.problems.push({
            origin: file,
            key: 'Recommended',
            message: 'Recommended must be a dictionary; ignored',
          });
      }
      return read;
    },
  };
}

function withoutPayloadKeys(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([key]) => !key.startsWith('Payload')));
}

// ---------------------------------------------------------------------------------------------
// Windows

export const WINDOWS_POLICY_KEY = 'SOFTWARE\\Policies\\SellerTray';
const HIVES = ['HKEY_LOCAL_MACHINE', 'HKEY_CURRENT_USER'] as const;

/** `reg query <key> /s`'s output; undefined when the key does not exist. */
export type RegQuery = (key: string) => Promise<string | undefined>;

/** reg.exe, present on every Windows; it exits 1 when the key does not exist. */
export const regQuery: RegQuery = (key) =>
  new Promise((resolve, reject) => {
    execFile('reg', ['query', key, '/s'], { windowsHide: true, timeout: 10_000 }, (error, stdout) => {
      if (!error) resolve(stdout);
      else if ((error as { code?: unknown }).code === 1) resolve(undefined);
      else reject(error);
    });
  });

/** HKLM before HKCU (the machine's policy wins over one set for the user), each key's `Recommended` subkey recommended. */
export function windowsPolicySource(query: RegQuery = regQuery): PolicySource {
  return {
    watched: [],
    read: async () => {
      const read: PolicyRead = { documents: [], problems: [] };
      const byLevel: Record<PolicyLevel, PolicyDocument[]> = { managed: [], recommended: [] };
      for (const hive of HIVES) {
        const key = `${hive}\\${WINDOWS_POLICY_KEY}`;
        let output: string | undefined;
        try {
          output = await query(key);
        } catch (error) {
          read.problems.push(problemOf(key, error));
          continue;
        }
        const keys = parseRegQuery(output ?? '');
        for (const [level, name] of [
          ['managed', key],
          ['recommended', `${key}\\Recommended`],
        ] as const) {
          const values = keys.get(name.toLowerCase());
          if (values) byLevel[level].push({ level, origin: name, values, encoding: 'registry' });
        }
      }
      read.documents.push(...byLevel.managed, ...byLevel.recommended);
      return read;
    },
  };
}

/**
 * `reg query /s` output: a key's full name on a line of its own, then its values indented by four
 * spaces as `name    REG_TYPE    data`. Numbers (REG_DWORD, REG_QWORD) come as hexadecimal, text as
 * it is. Keys come back by their lower-case name (the registry ignores case).
 */
export function parseRegQuery(output: string): Map<string, Record<string, unknown>> {
  const keys = new Map<string, Record<string, unknown>>();
  let current: Record<string, unknown> | undefined;
  for (const line of output.split(/\r?\n/)) {
    if (/^HKEY_/i.test(line)) {
      current = {};
      keys.set(line.trim().toLowerCase(), current);
      continue;
    }
    const value = /^ {4}(.+?) {4}(REG_[A-Z_]+)(?: {4}(.*))?$/.exec(line);
    if (!value || !current) continue;
    const [, name, type, data = ''] = value as unknown as [string, string, string, string?];
    if (name === '(Default)') continue;
    current[name] = /^REG_(DWORD|QWORD)$/.test(type) ? Number.parseInt(data, 16) : data;
  }
  return keys;
}

/** The platform's source; Linux's is also the one for any other Unix. */
export function platformPolicySource(platform: NodeJS.Platform = process.platform): PolicySource {
  if (platform === 'win32') return windowsPolicySource();
  if (platform === 'darwin') return macPolicySource();
  return linuxPolicySource();
}

/** Several sources as one, the first highest: a key the first sets, a later one cannot change. */
export function combinedSource(...sources: PolicySource[]): PolicySource {
  return {
    watched: sources.flatMap((source) => source.watched),
    read: async () => {
      const reads = await Promise.all(sources.map((source) => source.read()));
      return {
        documents: reads.flatMap((read) => read.documents),
        problems: reads.flatMap((read) => read.problems),
      };
    },
  };
}

/**
 * Where the app, the preview and the CLI read policies: the platform's place, then the folder
 * SELLER_TRAY_POLICY_ROOT names (laid out as Linux's), below it: a way to try policies out and to
 * test them, which can add a policy but never lift one the system sets.
 */
export function policySourceFor(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): PolicySource {
  const system = platformPolicySource(platform);
  const extra = env.SELLER_TRAY_POLICY_ROOT;
  return extra ? combinedSource(system, linuxPolicySource(extra)) : system;
}
