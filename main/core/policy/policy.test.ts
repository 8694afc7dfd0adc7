// The policy layers and their sources: Linux's JSON folders for real, the macOS managed
// preferences (XML and binary plists) and `reg export`'s .reg files from fixtures in their real formats,
// the layering and its refusals, and the watch of a folder.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID } from '../app-identity';
import { silentLog } from '../log';
import { DEFAULT_SETTINGS, type Settings } from '../settings';
import {
  applyPolicies,
  demoAllowed,
  lockedSettings,
  NO_POLICIES,
  type PolicyRead,
  policyProblems,
  policyRefusals,
  policyReport,
  resolvePolicies,
  userSettingsAfter,
} from './layers';
import { ManagedSettingsStore } from './managed-settings';
import {
  decodeRegFile,
  linuxPolicySource,
  macPolicySource,
  parseRegExport,
  windowsPolicySource,
} from './sources';
import { fixedPolicies, PolicyWatcher } from './watcher';

const fixture = (name: string) => path.join(import.meta.dirname, 'fixtures', name);
let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'policies-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (relative: string, content: unknown) => {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

const docs = (...documents: PolicyRead['documents']): PolicyRead => ({ documents, problems: [] });

describe('resolvePolicies', () => {
  it('checks each value with the settings declarations and keeps the good ones when one is bad', () => {
    const policies = resolvePolicies(
      docs({
        level: 'managed',
        origin: 'a.json',
        values: {
          baseUrl: 'https://marketplace.example/',
          pollIntervalSeconds: 5,
          clientSecret: 'hunter2',
          colour: 'blue',
          pausedUntil: null,
          locale: 'en-GB',
        },
      }),
    );
    expect(policies.managed).toEqual({ baseUrl: 'https://marketplace.example', demoMode: false });
    expect(policies.rules).toEqual({ locale: 'en-GB' });
    expect(policies.problems.map((p) => [p.key, p.message])).toEqual([
      [
        'pollIntervalSeconds',
        expect.stringMatching(/^pollIntervalSeconds must be a whole number of seconds from 30.*ignored$/),
      ],
      ['clientSecret', expect.stringContaining('never a policy')],
      ['colour', 'colour is not a Seller Tray policy'],
      ['pausedUntil', 'pausedUntil cannot be set by a policy'],
    ]);
  });

  it("takes IT's runbooks only when every item in them is usable, naming the bad one", () => {
    const runbook = { itemId: 'SS-STD', name: 'Standard', checklist: ['Create the tenant'] };
    const good = resolvePolicies(
      docs({ level: 'managed', origin: 'a.json', values: { runbooks: [runbook] } }),
    );
    expect(good.managed.runbooks).toEqual([{ ...runbook, links: [], reasons: [] }]);
    const bad = resolvePolicies(
      docs({
        level: 'managed',
        origin: 'a.json',
        values: {
          runbooks: [runbook, { ...runbook, itemId: 'X', links: [{ label: 'x', url: 'data:text/html,x' }] }],
        },
      }),
    );
    expect(bad.managed.runbooks).toBeUndefined();
    expect(bad.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(
        /^runbooks: Runbook 2 \(X\): link 1's address must start with https:\/\/.*ignored$/,
      ),
    ]);
  });

  it('takes the first document to set a key, and rules only as managed', () => {
    const policies = resolvePolicies(
      docs(
        { level: 'managed', origin: 'high', values: { clientId: 'a' } },
        { level: 'managed', origin: 'low', values: { clientId: 'b', undoSeconds: 5 } },
        { level: 'recommended', origin: 'rec', values: { clientId: 'c', demoAllowed: false } },
      ),
    );
    expect(policies.managed).toMatchObject({ clientId: 'a', undoSeconds: 5 });
    expect(policies.recommended).toEqual({ clientId: 'c' });
    expect(policies.inForce.map((p) => `${p.key}@${p.origin}`)).toEqual([
      'clientId@high',
      'undoSeconds@low',
      'clientId@rec',
    ]);
    expect(policies.problems).toEqual([
      { origin: 'rec', key: 'demoAllowed', message: 'demoAllowed is a rule, set as a managed policy only' },
    ]);
  });

  it('locks what the rules imply: the demo, "Your name", automatic update checks, automations', () => {
    const policies = resolvePolicies(
      docs({
        level: 'managed',
        origin: 'x',
        values: { actorNameSource: 'computer-account', updatesEnabled: false, automationsAllowed: false },
      }),
    );
    expect(policies.managed).toEqual({
      actorName: '',
      checkForUpdatesAutomatically: false,
      automationsEnabled: false,
    });
    expect(demoAllowed(policies)).toBe(true);
    const pointed = resolvePolicies(
      docs({ level: 'managed', origin: 'x', values: { baseUrl: 'https://m.example' } }),
    );
    expect(demoAllowed(pointed)).toBe(false);
    expect(lockedSettings(pointed).sort()).toEqual(['baseUrl', 'demoMode']);
  });

  it('says a locked check interval under the shortest the organization allows is raised to it, everywhere alike', () => {
    const policies = resolvePolicies(
      docs({
        level: 'managed',
        origin: 'x',
        values: { pollIntervalSeconds: 60, pollIntervalMinimumSeconds: 120 },
      }),
    );
    // What Diagnose and doctor list is what the window shows and the poller uses.
    expect(applyPolicies(DEFAULT_SETTINGS, policies).pollIntervalSeconds).toBe(120);
    expect(policies.managed.pollIntervalSeconds).toBe(120);
    expect(policies.inForce.find((p) => p.key === 'pollIntervalSeconds')?.value).toBe(120);
    expect(policyProblems(policies).changed).toEqual([
      {
        origin: 'x',
        key: 'pollIntervalSeconds',
        message: 'pollIntervalSeconds 60 is shorter than pollIntervalMinimumSeconds 120: 120 is in force',
        changed: true,
      },
    ]);
  });
});

describe('applying the layers', () => {
  const policies = resolvePolicies(
    docs(
      { level: 'managed', origin: 'm', values: { clientId: 'fleet', pollIntervalMinimumSeconds: 300 } },
      { level: 'recommended', origin: 'r', values: { reminderAfterMinutes: 60, undoSeconds: 20 } },
    ),
  );
  const user: Settings = { ...DEFAULT_SETTINGS, clientId: 'mine', undoSeconds: 3, pollIntervalSeconds: 60 };

  it('puts locks over the user, the user over a recommendation, a recommendation over the default', () => {
    const effective = applyPolicies(user, policies);
    expect(effective).toMatchObject({
      clientId: 'fleet', // managed
      undoSeconds: 3, // the user chose it
      reminderAfterMinutes: 60, // recommended: the user kept the default
      pollIntervalSeconds: 300, // raised to IT's shortest
    });
    expect(applyPolicies(user, NO_POLICIES)).toEqual(user);
  });

  it("saves the user's change, never a policy's value", () => {
    const next = { ...applyPolicies(user, policies), notificationsEnabled: false };
    expect(userSettingsAfter(next, user, policies)).toEqual({ ...user, notificationsEnabled: false });
    // A recommended value the user did not touch keeps following IT.
    expect(userSettingsAfter(next, user, policies).reminderAfterMinutes).toBe(
      DEFAULT_SETTINGS.reminderAfterMinutes,
    );
  });

  it('refuses a locked setting changed and a check interval under the shortest, and lets the same value through', () => {
    expect(policyRefusals({ clientId: 'other', pollIntervalSeconds: 60, undoSeconds: 1 }, policies)).toEqual([
      { field: 'clientId', message: 'Client id is managed by your organization' },
      {
        field: 'pollIntervalSeconds',
        message: 'Check interval must be at least 300 seconds: your organization allows no shorter',
      },
    ]);
    expect(policyRefusals({ clientId: 'fleet', pollIntervalSeconds: 300 }, policies)).toEqual([]);
  });
});

describe('the settings store under policies', () => {
  it('refuses a save that changes a locked setting, whichever path it comes by, and writes only the user’s own', () => {
    let file: Settings = { ...DEFAULT_SETTINGS, clientId: 'mine' };
    const inner = {
      load: () => ({ settings: file }),
      save: (settings: Settings) => {
        file = settings;
      },
    };
    const policies = resolvePolicies(docs({ level: 'managed', origin: 'm', values: { clientId: 'fleet' } }));
    const store = new ManagedSettingsStore(inner, fixedPolicies(policies));
    const inForce = store.load().settings;
    expect(inForce.clientId).toBe('fleet');
    expect(() => store.save({ ...inForce, clientId: 'other' })).toThrow(
      expect.objectContaining({ code: 'managed', message: 'Client id is managed by your organization' }),
    );
    expect(file.clientId).toBe('mine');
    store.save({ ...inForce, undoSeconds: 3 });
    expect(file).toEqual({ ...DEFAULT_SETTINGS, clientId: 'mine', undoSeconds: 3 });
  });
});

describe('Linux: /etc/seller-tray/policies', () => {
  it('reads each level’s JSON files, a later name over an earlier, and reports the unreadable ones', async () => {
    write('managed/10-base.json', { clientId: 'base', undoSeconds: 5 });
    write('managed/90-site.json', { clientId: 'site' });
    write('managed/50-broken.json', '{"clientId": ');
    write('managed/60-list.json', ['clientId']);
    write('managed/README.txt', 'not a policy');
    write('recommended/r.json', { inboxSort: 'newest' });
    const policies = resolvePolicies(await linuxPolicySource(root).read());
    expect(policies.managed).toMatchObject({ clientId: 'site', undoSeconds: 5 });
    expect(policies.recommended).toEqual({ inboxSort: 'newest' });
    expect(policies.problems.map((p) => `${path.basename(p.origin)}: ${p.message}`)).toEqual([
      '60-list.json: does not hold a JSON object; ignored',
      '50-broken.json: is not valid JSON; its policies are not in force',
    ]);
  });

  it('has no policies when the folder is not there', async () => {
    expect(await linuxPolicySource(path.join(root, 'absent')).read()).toEqual({
      documents: [],
      problems: [],
    });
  });

  it('is watched: a file IT adds is in force without a restart, and a change is told once', async () => {
    mkdirSync(path.join(root, 'managed'), { recursive: true });
    const watcher = await PolicyWatcher.start(linuxPolicySource(root), { log: silentLog, settleMs: 50 });
    const heard: string[] = [];
    watcher.onChange((p) => heard.push(String(p.managed.clientId)));
    try {
      write('managed/fleet.json', { clientId: 'fleet' });
      await expect.poll(() => watcher.current().managed.clientId, { timeout: 5000 }).toBe('fleet');
      await watcher.refresh(); // read again, nothing changed: not told
      expect(heard).toEqual(['fleet']);
    } finally {
      watcher.close();
    }
  });

  it('keeps watching a folder IT removes and makes again', async () => {
    write('managed/a.json', { clientId: 'first' });
    const watcher = await PolicyWatcher.start(linuxPolicySource(root), { log: silentLog, settleMs: 50 });
    try {
      rmSync(path.join(root, 'managed'), { recursive: true });
      await expect.poll(() => watcher.current().managed.clientId, { timeout: 5000 }).toBeUndefined();
      write('managed/b.json', { clientId: 'second' });
      await expect.poll(() => watcher.current().managed.clientId, { timeout: 5000 }).toBe('second');
      write('managed/b.json', { clientId: 'third' }); // a change inside the folder made again
      await expect.poll(() => watcher.current().managed.clientId, { timeout: 5000 }).toBe('third');
    } finally {
      watcher.close();
    }
  });
});

describe('macOS: managed preferences', () => {
  const install = (name: string, where: string) => {
    mkdirSync(path.dirname(path.join(root, where)), { recursive: true });
    copyFileSync(fixture(name), path.join(root, where));
  };

  it('enforces the root keys and recommends the Recommended dictionary, ignoring the payload’s own keys', async () => {
    install('com.sellertray.desktop.plist', `${APP_ID}.plist`);
    const policies = resolvePolicies(await macPolicySource(root, 'anna').read());
    expect(policies.managed).toEqual({
      baseUrl: 'https://marketplace.example.com/seller',
      clientId: 'acme-fleet',
      actorName: '',
      demoMode: false,
    });
    expect(policies.rules).toEqual({ pollIntervalMinimumSeconds: 120, actorNameSource: 'computer-account' });
    expect(policies.recommended).toEqual({ notificationsEnabled: false, reminderAfterMinutes: 60 });
    expect(policies.problems.map((p) => p.key)).toEqual(['undoSeconds']); // 600 is over the 60 allowed
  });

  it('reads a binary plist too, and the user’s profile before the computer’s', async () => {
    install('com.sellertray.desktop.plist', `${APP_ID}.plist`);
    install('com.sellertray.desktop.binary.plist', `anna/${APP_ID}.plist`);
    expect(readFileSync(fixture('com.sellertray.desktop.binary.plist')).subarray(0, 8).toString()).toBe(
      'bplist00',
    );
    const policies = resolvePolicies(await macPolicySource(root, 'anna').read());
    expect(policies.managed.clientId).toBe('binary-fleet');
  });

  it('reports a damaged file and keeps going', async () => {
    write(`${APP_ID}.plist`, '<plist><dict><key>baseUrl</key>');
    const read = await macPolicySource(root, 'anna').read();
    expect(read.documents).toEqual([]);
    expect(read.problems[0]?.message).toMatch(/not a property list/);
  });
});

describe('Windows: HKLM then HKCU, each with Recommended', () => {
  /** Each hive's key as `reg export` writes it: UTF-16LE with a byte-order mark. */
  const exported = async (key: string) =>
    decodeRegFile(
      readFileSync(
        fixture(key.startsWith('HKEY_LOCAL_MACHINE') ? 'reg-export-hklm.reg' : 'reg-export-hkcu.reg'),
      ),
    );

  it('parses a .reg export: text unescaped and whole, DWORD and QWORD as numbers, continued lines, keys by their lower-case name', async () => {
    const keys = parseRegExport(await exported('HKEY_LOCAL_MACHINE'));
    expect(keys.get('hkey_local_machine\\software\\policies\\sellertray')).toEqual({
      BaseUrl: 'https://marketplace.example.com/seller',
      ClientId: 'acme-fleet',
      PollIntervalMinimumSeconds: 120,
      UpdatesEnabled: 0,
      DemoAllowed: 2,
      api: '{"pageSize": 50}',
      UpdateFeedUrl: 'https://updates.example.com/seller-tray',
    });
    expect(keys.get('hkey_local_machine\\software\\policies\\sellertray\\recommended')).toMatchObject({
      StaleInProgressDays: 14,
    });
    expect(readFileSync(fixture('reg-export-hkcu.reg')).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
  });

  it('gives the machine precedence, reads DWORD booleans, JSON text and any script, and never takes a secret', async () => {
    const policies = resolvePolicies(await windowsPolicySource(exported).read());
    expect(policies.managed).toEqual({
      baseUrl: 'https://marketplace.example.com/seller',
      clientId: 'acme-fleet', // HKLM over HKCU's someone-else
      api: { pageSize: 50 },
      notificationsEnabled: false, // HKCU only
      actorName: 'Jürgen Łuczak', // outside any console code page, read whole
      checkForUpdatesAutomatically: false, // UpdatesEnabled 0
      demoMode: false, // the marketplace is IT's
    });
    expect(policies.rules).toEqual({
      pollIntervalMinimumSeconds: 120,
      updatesEnabled: false,
      updateFeedUrl: 'https://updates.example.com/seller-tray',
    });
    expect(policies.recommended).toEqual({
      reminderAfterMinutes: 60,
      inboxSort: 'newest',
      staleInProgressDays: 14,
      undoSeconds: 5,
    });
    expect(policies.problems.map((p) => `${p.key}: ${p.message}`)).toEqual([
      'DemoAllowed: demoAllowed must be true or false; ignored', // DWORD 2
      "ClientSecret: ClientSecret is never a policy: the client secret is kept in each laptop's keychain",
    ]);
  });

  it('has no policies where neither key exists, and reports a reg.exe that fails', async () => {
    expect(await windowsPolicySource(async () => undefined).read()).toEqual({ documents: [], problems: [] });
    const failed = await windowsPolicySource(async () => {
      throw Object.assign(new Error('spawn reg ENOENT'), { code: 'ENOENT' });
    }).read();
    expect(failed.problems).toHaveLength(2);
    expect(failed.problems[0]?.message).toContain('ENOENT');
  });
});

// A policy's account list, read with readAccountList as the settings file's is.
describe('a managed account list whose labels collapse', () => {
  const account = (label: string, clientId: string) => ({
    label,
    baseUrl: 'https://marketplace.example',
    clientId,
  });
  const managedList = (accounts: unknown[]) =>
    resolvePolicies(docs({ level: 'managed', origin: 'fleet.json', values: { accounts } }));
  const labels = (accounts: unknown[]) =>
    new Map(
      (managedList(accounts).managed.accounts as { label: string; clientId: string }[]).map((a) => [
        a.label,
        a.clientId,
      ]),
    );

  it('never gives a label to another client when the administrator removes an account', () => {
    // The policy is never saved, so its relabelling is done again on every read: a label a person
    // types (--account "EU (eu-3)", the tray, titles) must keep naming the same client.
    const fleet = [
      account('EU', 'eu-1'),
      account('eu ', 'eu-2'),
      account('E\u200bU', 'eu-3'),
      account('\u200fEU', 'eu-4'),
    ];
    const before = labels(fleet);
    const after = labels(fleet.filter((a) => a.clientId !== 'eu-2'));
    const moved = [...after].filter(([label, client]) => before.has(label) && before.get(label) !== client);
    expect(moved).toEqual([]);
  });

  it('relabels an account whose label differs from another only by a joiner', () => {
    // "E\u200dU" shows as "EU": two tray entries, titles and --account choices that look the same.
    expect([...labels([account('EU', 'eu-1'), account('E\u200dU', 'eu-2')]).keys()]).toEqual([
      'EU',
      'EU (eu-2)',
    ]);
    // Where plain text keeps a joiner (a Devanagari conjunct), the labels are still compared without it.
    expect([...labels([account('क्ष', 'd-1'), account('क्\u200dष', 'd-2')]).keys()]).toEqual([
      'क्ष',
      'क्\u200dष (d-2)',
    ]);
  });

  it('says an account left out is ignored, not "changed", and counts it', () => {
    const policies = managedList([
      account('EU', 'eu-1'),
      { label: 'US', baseUrl: 'ftp://marketplace.example', clientId: 'us-1' },
    ]);
    const report = policyReport(policies).join('\n');
    // The administrator reads "changed" as "in force, changed as said": account 2 is not in force at all.
    expect(report).toMatch(/ignored: .*account 2 \("US"/);
    expect(report).toContain('1 ignored');
    // doctor --json: policies.ignored holds what is not in force, policies.changed what is, changed.
    const relabelled = managedList([account('EU', 'eu-1'), account('eu', 'eu-2'), account('US', 'x')]);
    expect(policyProblems(policies).ignored.map((p) => p.message)).toEqual([
      expect.stringMatching(/account 2 \("US".*left out/),
    ]);
    expect(policyProblems(relabelled)).toEqual({
      ignored: [],
      changed: [expect.objectContaining({ message: expect.stringContaining('kept as "eu (eu-2)"') })],
    });
  });
});
