// Where each platform keeps an organization's policies, read into documents for layers.ts:
// - Linux: /etc/seller-tray/policies/{managed,recommended}/*.json, one JSON object a file;
// - macOS: the managed preferences a configuration profile installs for the app id (root keys
//   managed, a `Recommended` dictionary), XML or binary plists, read with `plist`;
// - Windows: HKLM\SOFTWARE\Policies\SellerTray, then the same under HKCU, each with a
//   `Recommended` subkey, read with `reg export` (reg.exe, on every Windows) behind a small port.
// A source never throws: what it cannot read is a problem, and the documents it could read stand.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/** A key exported as a .reg file's text (`reg export`), subkeys included; undefined when the key does not exist. */
export type RegExport = (key: string) => Promise<string | undefined>;

/**
 * reg.exe, present on every Windows: `reg export` writes the key to a file in UTF-16, so a value
 * outside the console's code page (a name with ü, a label in Greek) reads back whole, which
 * `reg query`'s output would not. It exits 1 when the key does not exist.
 */
export const regExport: RegExport = async (key) => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'seller-tray-policies-'));
  const file = path.join(folder, 'policies.reg');
  try {
    const exported = await new Promise<boolean>((resolve, reject) => {
      execFile('reg', ['export', key, file, '/y'], { windowsHide: true, timeout: 10_000 }, (error) => {
        if (!error) resolve(true);
        else if ((error as { code?: unknown }).code === 1) resolve(false);
        else reject(error);
      });
    });
    return exported ? decodeRegFile(readFileSync(file)) : undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};

/** A .reg file's bytes as text: UTF-16LE with a byte-order mark as reg.exe writes it, else UTF-8. */
export function decodeRegFile(bytes: Buffer): string {
  return bytes[0] === 0xff && bytes[1] === 0xfe
    ? bytes.subarray(2).toString('utf16le')
    : bytes.toString('utf8');
}

/** HKLM before HKCU (the machine's policy wins over one set for the user), each key's `Recommended` subkey recommended. */
export function windowsPolicySource(exportKey: RegExport = regExport): PolicySource {
  return {
    watched: [],
    read: async () => {
      const read: PolicyRead = { documents: [], problems: [] };
      const byLevel: Record<PolicyLevel, PolicyDocument[]> = { managed: [], recommended: [] };
      for (const hive of HIVES) {
        const key = `${hive}\\${WINDOWS_POLICY_KEY}`;
        let text: string | undefined;
        try {
          text = await exportKey(key);
        } catch (error) {
          read.problems.push(problemOf(key, error));
          continue;
        }
        const keys = parseRegExport(text ?? '');
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
 * A .reg file (Windows Registry Editor Version 5.00): `[key]` lines, then `"name"=value` lines,
 * long values continued by a trailing backslash. Text (`"..."`, with \\ and \" escaped) and
 * expandable text (hex(2), UTF-16LE bytes) come back as text, REG_DWORD (dword:) and REG_QWORD
 * (hex(b), little-endian) as numbers; any other type as its raw form, which no policy accepts.
 * Keys come back by their lower-case name (the registry ignores case).
 */
export function parseRegExport(text: string): Map<string, Record<string, unknown>> {
  const keys = new Map<string, Record<string, unknown>>();
  let current: Record<string, unknown> | undefined;
  const lines = text.replace(/\\\r?\n\s*/g, '').split(/\r?\n/);
  for (const line of lines) {
    const key = /^\[(.+)\]\s*$/.exec(line);
    if (key) {
      current = {};
      keys.set((key[1] as string).toLowerCase(), current);
      continue;
    }
    const value = /^"((?:[^"\\]|\\.)*)"=(.*)$/.exec(line);
    if (!value || !current) continue;
    current[unescapeReg(value[1] as string)] = regValue(value[2] as string);
  }
  return keys;
}

const unescapeReg = (text: string): string => text.replace(/\\(.)/g, '$1');

function regValue(raw: string): unknown {
  const text = /^"((?:[^"\\]|\\.)*)"$/.exec(raw);
  if (text) return unescapeReg(text[1] as string);
  const dword = /^dword:([0-9a-f]{8})$/i.exec(raw);
  if (dword) return Number.parseInt(dword[1] as string, 16);
  const hex = /^hex\((2|b)\):([0-9a-f,\s]*)$/i.exec(raw);
  if (!hex) return raw;
  const bytes = Buffer.from(
    ((hex[2] as string).match(/[0-9a-f]{2}/gi) ?? []).map((b) => Number.parseInt(b, 16)),
  );
  if (hex[1] === '2') return bytes.toString('utf16le').replace(/\0+$/, '');
  return bytes.length === 8 ? Number(bytes.readBigUInt64LE()) : raw;
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
