import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SETTING_ENTRIES } from '../../preload/settings-declaration';
import { accountFolder, accountRef } from './account/account-ref';
import {
  ConfSettingsStore,
  checkAccounts,
  DEFAULT_SETTINGS,
  LEFT_OUT_COPIES_KEPT,
  parseSettingsPatch,
  reconcileAccounts,
  type Settings,
} from './settings';

let dir: string;
const NOW = new Date('2026-11-21T16:50:00.123Z');
const store = (cwd = dir) => new ConfSettingsStore({ cwd, now: () => NOW });
const settingsFile = (cwd = dir) => path.join(cwd, 'settings.json');
const onDisk = (cwd = dir) => JSON.parse(readFileSync(settingsFile(cwd), 'utf8'));

const configured: Settings = {
  baseUrl: 'https://marketplace.example/api',
  clientId: 'client-1',
  accounts: [{ label: 'EU', baseUrl: 'https://marketplace.example/api', clientId: 'client-1' }],
  pollIntervalSeconds: 120,
  notificationsEnabled: false,
  pausedUntil: '2026-11-21T18:00:00Z',
  accountPauses: {},
  reminderAfterMinutes: 0,
  escalateAfterMinutes: 30,
  openAtLogin: true,
  checkForUpdatesAutomatically: false,
  undoSeconds: 5,
  actorName: 'Anna Virtanen',
  demoMode: false,
  api: { routes: { listNewEvents: { path: '/seller/v2/events/unseen' } }, pageSize: 50 },
  staleInProgressDays: 14,
  inboxSort: 'newest',
  automationsEnabled: true,
  automations: [
    {
      name: 'provision',
      enabled: true,
      products: ['sku-1'],
      orderTypes: [],
      accounts: 'all',
      action: { type: 'command', command: ['/opt/provision.sh', '--quiet'], timeoutSeconds: 60 },
      reportStatus: 'completed',
    },
    {
      name: 'Team chat',
      enabled: false,
      products: [],
      orderTypes: ['Trial'],
      accounts: ['3fa2c1d09b7e4a55'],
      action: { type: 'slack' },
      reportStatus: null,
    },
  ],
  runbooks: [
    {
      itemId: 'sku-1',
      name: 'Standard',
      checklist: ['Create the tenant', 'Send the welcome mail'],
      links: [{ label: 'Console', url: 'https://console.example/tenants/{buyerAccountId}?order={orderId}' }],
      reasons: [
        { description: 'Quota reached', detailedDescription: 'The tenant quota is reached.\nAsk sales.' },
      ],
    },
  ],
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seller-tray-settings-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

// File modes are POSIX: Windows keeps the file in the user's own profile folder instead.
describe.runIf(process.platform !== 'win32')('settings file mode', () => {
  it('is 0600, readable by its user only, also over a file an earlier version left 0644', () => {
    const mode = () => statSync(settingsFile()).mode & 0o777;
    store().save(configured);
    expect(mode()).toBe(0o600);
    chmodSync(settingsFile(), 0o644);
    store().save({ ...configured, pollIntervalSeconds: 90 });
    expect(mode()).toBe(0o600);
  });
});

describe('settings defaults', () => {
  it('are: not configured, every 60 s, notifications on, not paused (nor any account), reminder after 4 h, urgent after 1 h, no login item, update checks, no demo, in progress flagged after 7 days, longest waiting first, 10 s to undo, the account name', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      baseUrl: '',
      clientId: '',
      accounts: [],
      pollIntervalSeconds: 60,
      notificationsEnabled: true,
      pausedUntil: null,
      accountPauses: {},
      reminderAfterMinutes: 240,
      escalateAfterMinutes: 60,
      openAtLogin: false,
      checkForUpdatesAutomatically: true,
      demoMode: false,
      api: null,
      staleInProgressDays: 7,
      inboxSort: 'longest-waiting',
      undoSeconds: 10,
      actorName: '',
      automationsEnabled: false,
      automations: [],
      runbooks: [],
    });
  });
});

describe('settings file', () => {
  it('is not there at first start: the defaults, and nothing to tell the user', () => {
    expect(store().load()).toEqual({ settings: DEFAULT_SETTINGS });
  });

  it('gives back what was saved, in a new store as after a restart', () => {
    store().save(configured);
    expect(store().load()).toEqual({ settings: configured });
    expect(onDisk()).toEqual({ settingsVersion: 2, ...configured });
  });

  it('is written whole on every save, leaving no temporary files behind', () => {
    const s = store();
    s.save(configured);
    s.save({ ...configured, pollIntervalSeconds: 30 });
    expect(readdirSync(dir)).toEqual(['settings.json']);
    expect(onDisk().pollIntervalSeconds).toBe(30);
  });

  it('fills keys missing from an older file with their defaults', () => {
    writeFileSync(settingsFile(), JSON.stringify({ clientId: 'client-1', pollIntervalSeconds: 300 }));
    expect(store().load()).toEqual({
      settings: { ...DEFAULT_SETTINGS, clientId: 'client-1', pollIntervalSeconds: 300 },
    });
  });

  it('drops keys it does not know, and the next save writes only settings', () => {
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, fromANewerVersion: 1 }));
    const s = store();
    expect(s.load()).toEqual({ settings: configured });
    s.save(configured);
    expect(onDisk()).toEqual({ settingsVersion: 2, ...configured });
  });

  it('that is not JSON is kept aside, the defaults written, and the user told where it is', () => {
    writeFileSync(settingsFile(), '{"pollIntervalSeconds": 60,');
    const { settings, problem } = store().load();
    expect(settings).toEqual(DEFAULT_SETTINGS);
    const aside = `${settingsFile()}.corrupt-2026-11-21T16-50-00Z`;
    expect(problem).toBe(
      `Your settings file was unreadable (not valid JSON at line 1, column 28); it was kept as ${aside} and the defaults are in use.`,
    );
    expect(readFileSync(aside, 'utf8')).toBe('{"pollIntervalSeconds": 60,');
    expect(onDisk()).toEqual(DEFAULT_SETTINGS);
    // Told once: the next start finds good settings.
    expect(store().load()).toEqual({ settings: DEFAULT_SETTINGS });
  });

  it.each([
    ['empty', '', 'not valid JSON at line 1, column 1'],
    ['a JSON array', '[]', 'not a JSON object'],
    ['JSON null', 'null', 'not a JSON object'],
  ])('that is %s is treated as unreadable, not as empty settings', (_, content, why) => {
    writeFileSync(settingsFile(), content);
    const { settings, problem } = store().load();
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(problem).toMatch(
      new RegExp(
        `was unreadable \\(${why}\\); it was kept as .*settings\\.json\\.corrupt-2026-11-21T16-50-00Z`,
      ),
    );
  });

  it('says on which line and column the JSON broke, never quoting the file', () => {
    writeFileSync(
      settingsFile(),
      '{\n  "clientId": "client-1",\n  "pollIntervalSeconds": 60\n  "secretish": "do-not-quote"\n}',
    );
    const { problem } = store().load();
    expect(problem).toContain('was unreadable (not valid JSON at line 4, column 3)');
    expect(problem).not.toContain('do-not-quote');
    writeFileSync(settingsFile(), '{"accounts": [');
    expect(store().load().problem).toContain('(not valid JSON at line 1, column 15)');
  });

  it.each([
    ['a word where a value goes (CRLF line endings)', '{\r\n  "demoMode": True\r\n}', 2, 15],
    ['a value not in quotes', '{"demoMode": false,\n "clientId": marketplace-1}', 2, 14],
    ['a value started with a dot', '\uFEFF{"undoSeconds": .5}', 1, 17],
  ])('says where it broke for %s too, where JSON.parse names no position', (_, content, line, column) => {
    writeFileSync(settingsFile(), content);
    const { problem } = store().load();
    expect(problem).toContain(`(not valid JSON at line ${line}, column ${column})`);
    expect(problem).not.toMatch(/True|marketplace|undoSeconds/);
  });

  it('with values the schema refuses leaves out those settings, which take their defaults, and keeps the rest: the accounts above all', () => {
    const evil = 'http://evil.example';
    const good = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
    const bad = {
      ...configured,
      pollIntervalSeconds: 5,
      undoSeconds: 'ten',
      baseUrl: evil,
      accounts: [{ label: 'EU', baseUrl: evil, clientId: 'client-1' }, good],
    };
    writeFileSync(settingsFile(), JSON.stringify(bad));
    const { settings, problem } = store().load();
    expect(settings).toEqual({
      ...configured,
      pollIntervalSeconds: DEFAULT_SETTINGS.pollIntervalSeconds,
      undoSeconds: DEFAULT_SETTINGS.undoSeconds,
      accounts: [good],
      baseUrl: good.baseUrl,
      clientId: good.clientId,
    });
    expect(problem).toContain('pollIntervalSeconds must be a whole number of seconds from 30 to 3600');
    expect(problem).toContain('undoSeconds');
    expect(problem).toContain('(a setting left out takes its default)');
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
    // Nothing is lost: what was left out is in its copy, to correct and put back.
    const copy = /kept in (\S+settings\.json\.left-out-[0-9a-f]{12}):/.exec(problem ?? '')?.[1] ?? '';
    expect(JSON.parse(readFileSync(copy, 'utf8'))).toMatchObject({
      pollIntervalSeconds: 5,
      undoSeconds: 'ten',
      accounts: [{ label: 'EU', baseUrl: evil, clientId: 'client-1' }],
    });
    // Read again by another process (run following the file): the same settings, the same tolerance, told the same.
    expect(store().reread()).toEqual({ settings, problem });
  });

  it.each([
    ['alone (one written by hand)', {}, []],
    [
      'beside the first account kept at the top for 0.x',
      { baseUrl: 'https://marketplace.example/api', clientId: 'client-1' },
      [{ label: 'marketplace.example', baseUrl: 'https://marketplace.example/api', clientId: 'client-1' }],
    ],
  ])('with an account list that is no list, %s, says so and keeps it in a copy', (_, top, accounts) => {
    const single = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...top, accounts: single }));
    const { settings, problem } = store().load();
    expect(settings.accounts).toEqual(accounts);
    expect(problem).toContain('accounts must be a list of accounts');
    const copy =
      /kept in (\S+settings\.json\.left-out-[0-9a-f]{12}), to correct and put back\./.exec(
        problem ?? '',
      )?.[1] ?? '';
    expect(JSON.parse(readFileSync(copy, 'utf8'))).toEqual({ accounts: single });
  });

  it("says why an account's client id is refused, in words", () => {
    const good = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };
    const colon = { label: 'EU', baseUrl: 'https://eu.example.com', clientId: 'eu:client' };
    writeFileSync(settingsFile(), JSON.stringify({ accounts: [colon, good] }));
    const { settings, problem } = store().load();
    expect(settings.accounts).toEqual([good]);
    expect(problem).toContain(
      `account 1 ("EU", client eu:client at https://eu.example.com)'s clientId is not usable: it must not contain a colon (":") or control characters`,
    );
    expect(problem).not.toContain('Invalid input');
  });

  it('read again after a hand edit with values it refuses says so, and keeps them in a copy before the app saves over them', () => {
    const s = store();
    s.save(configured);
    const automation = {
      name: 'Tell the team',
      action: { type: 'webhook', url: 'http://chat.example/hook' },
    };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ ...configured, pollIntervalSeconds: 10, automations: [automation] }),
    );
    const read = s.reread();
    // The app's Settings saves a change of its own: the file no longer holds them, their copy does.
    s.save({ ...configured, undoSeconds: 20 });
    const copies = readdirSync(dir).filter((name) => name.includes('left-out'));
    expect(copies.map((name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')))).toEqual([
      { pollIntervalSeconds: 10, automations: [automation] },
    ]);
    // And the reader was told, as at a start.
    expect(read).toMatchObject({
      settings: { ...configured, pollIntervalSeconds: DEFAULT_SETTINGS.pollIntervalSeconds, automations: [] },
      problem: expect.stringContaining(
        'pollIntervalSeconds must be a whole number of seconds from 30 to 3600',
      ),
    });
  });

  it('in the CLI, one that cannot be used at all is left as it is, no save can replace it, and the load says so', () => {
    const cli = () => new ConfSettingsStore({ cwd: dir, now: () => NOW, unusableFile: 'leave' });
    writeFileSync(settingsFile(), '{"accounts": [');
    const loaded = cli().load();
    expect(loaded).toEqual({
      settings: DEFAULT_SETTINGS,
      problem: `Your settings file ${settingsFile()} was unreadable (not valid JSON at line 1, column 15); it was left as it is. Correct it (or move it away to start afresh), then run the command again.`,
      unusable: true,
    });
    const s = cli();
    s.load();
    expect(() => s.save(configured)).toThrow();
    expect(readFileSync(settingsFile(), 'utf8')).toBe('{"accounts": [');
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('kept aside twice in the same second keeps both bad files', () => {
    writeFileSync(settingsFile(), 'first');
    store().load();
    writeFileSync(settingsFile(), 'second');
    expect(store().load().problem).toContain('settings.json.corrupt-2026-11-21T16-50-00Z-2 ');
    expect(readFileSync(`${settingsFile()}.corrupt-2026-11-21T16-50-00Z`, 'utf8')).toBe('first');
    expect(readFileSync(`${settingsFile()}.corrupt-2026-11-21T16-50-00Z-2`, 'utf8')).toBe('second');
  });

  it('saved over a bad file that was never loaded still keeps the bad file aside', () => {
    writeFileSync(settingsFile(), 'not json');
    store().save(configured);
    expect(onDisk()).toEqual({ settingsVersion: 2, ...configured });
    expect(readFileSync(`${settingsFile()}.corrupt-2026-11-21T16-50-00Z`, 'utf8')).toBe('not json');
  });

  it('that cannot be read at all is left alone, and the defaults are used for now', () => {
    mkdirSync(settingsFile()); // reading a directory fails with EISDIR on every platform
    expect(store().load()).toEqual({
      settings: DEFAULT_SETTINGS,
      problem: `Your settings file ${settingsFile()} could not be read (EISDIR); the defaults are in use until it can be.`,
    });
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('read again after another process wrote it gives what it holds now; one not usable (mid-edit) is left as it is', () => {
    const s = store();
    s.save(configured);
    store().save({ ...configured, pollIntervalSeconds: 120 });
    expect(s.reread()).toEqual({ settings: expect.objectContaining({ pollIntervalSeconds: 120 }) });
    writeFileSync(settingsFile(), '{"pollIntervalSeconds": 1');
    expect(s.reread().settings).toBeUndefined();
    expect(readFileSync(settingsFile(), 'utf8')).toBe('{"pollIntervalSeconds": 1');
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
  });

  it('read again tells what the load tells, once per change of the problem: what it left out, where the JSON broke', () => {
    const s = store();
    s.save(configured);
    expect(s.load().problem).toBeUndefined();
    const [first] = configured.automations;
    const bad = { name: 'bad one', action: { type: 'webhook', url: 'http://billing.example/hook' } };
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, automations: [first, bad] }));
    const again = s.reread();
    expect(again.settings?.automations).toEqual([first]);
    expect(again.problem).toContain('automations[1].action.url');
    expect(again.problem).toContain('those items were left out');
    expect(again.problem).toMatch(
      /kept in \S+settings\.json\.left-out-[0-9a-f]{12}, to correct and put back\.$/,
    );
    // Read again with the same problem (another save, a touch): not told again.
    expect(s.reread()).toEqual({ settings: again.settings });
    // A second bad one beside a good one: a new problem, told.
    const good = { ...first, name: 'good one' };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ ...configured, automations: [first, bad, good, { ...bad, name: 'worse' }] }),
    );
    const third = s.reread();
    expect(third.settings?.automations.map((a) => a.name)).toEqual(['provision', 'good one']);
    expect(third.problem).toContain('automations[3].action.url');
    // Not JSON at all: where it broke, and that the settings in force stay; once.
    writeFileSync(settingsFile(), '{"automations": [');
    const broken = s.reread();
    expect(broken).toEqual({
      settings: undefined,
      problem: `Your settings file ${settingsFile()} was unreadable (not valid JSON at line 1, column 18); it was left as it is, and the settings in force stay until it can be used.`,
    });
    expect(s.reread()).toEqual({ settings: undefined });
    expect(readFileSync(settingsFile(), 'utf8')).toBe('{"automations": [');
    // Corrected: read without a problem, and the same problem coming back is told again.
    writeFileSync(settingsFile(), JSON.stringify(configured));
    expect(s.reread()).toEqual({ settings: configured });
    writeFileSync(settingsFile(), '{"automations": [');
    expect(s.reread().problem).toContain('line 1, column 18');
  });

  it('never holds the client secret, even when a caller slips it in', () => {
    const withSecret = { ...configured, clientSecret: 's3cr3t-value' } as Settings;
    store().save(withSecret);
    const text = readFileSync(settingsFile(), 'utf8');
    expect(text).not.toContain('s3cr3t-value');
    expect(text).not.toContain('clientSecret');
    expect(store().load()).toEqual({ settings: configured });
  });

  it('refuses to write invalid settings, leaving the saved ones as they were', () => {
    const s = store();
    s.save(configured);
    expect(() => s.save({ ...configured, pollIntervalSeconds: 1 })).toThrow(
      'Settings not saved: pollIntervalSeconds must be a whole number of seconds from 30 to 3600 (30 seconds to 1 hour)',
    );
    expect(onDisk()).toEqual({ settingsVersion: 2, ...configured });
  });

  it('of two user data directories are independent, like two laptops', () => {
    const other = mkdtempSync(path.join(tmpdir(), 'seller-tray-settings-'));
    try {
      store(dir).save(configured);
      expect(store(other).load()).toEqual({ settings: DEFAULT_SETTINGS });
      store(other).save({ ...DEFAULT_SETTINGS, demoMode: true });
      expect(store(dir).load().settings).toEqual(configured);
      expect(store(other).load().settings.demoMode).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('normalises the base URL the way the API client reads it', () => {
    store().save({ ...configured, baseUrl: ' https://marketplace.example/api/ ' });
    expect(onDisk().baseUrl).toBe('https://marketplace.example/api');
  });
});

describe('a settings change from the UI', () => {
  it('may name any subset of the settings', () => {
    expect(parseSettingsPatch({})).toEqual({ ok: true, patch: {} });
    expect(parseSettingsPatch({ pollIntervalSeconds: 30 })).toEqual({
      ok: true,
      patch: { pollIntervalSeconds: 30 },
    });
    expect(
      parseSettingsPatch({
        baseUrl: 'http://127.0.0.1:4010/',
        clientId: ' client-1 ',
        pollIntervalSeconds: 3600,
        notificationsEnabled: false,
        pausedUntil: '2026-11-21T18:00:00+01:00',
        reminderAfterMinutes: 15,
        openAtLogin: true,
        undoSeconds: 0,
        actorName: '  Anna Virtanen ',
        demoMode: true,
        staleInProgressDays: 0,
        inboxSort: 'newest',
      }),
    ).toEqual({
      ok: true,
      patch: {
        baseUrl: 'http://127.0.0.1:4010',
        clientId: 'client-1',
        pollIntervalSeconds: 3600,
        notificationsEnabled: false,
        pausedUntil: '2026-11-21T18:00:00+01:00',
        reminderAfterMinutes: 15,
        openAtLogin: true,
        undoSeconds: 0,
        actorName: 'Anna Virtanen',
        demoMode: true,
        staleInProgressDays: 0,
        inboxSort: 'newest',
      },
    });
  });

  it('can clear the base URL and client id, lift a pause and turn the reminder off', () => {
    expect(
      parseSettingsPatch({ baseUrl: '', clientId: '', pausedUntil: null, reminderAfterMinutes: 0 }),
    ).toEqual({
      ok: true,
      patch: { baseUrl: '', clientId: '', pausedUntil: null, reminderAfterMinutes: 0 },
    });
  });

  it('leaves out keys given as undefined, so applying it never blanks a setting', () => {
    expect(parseSettingsPatch({ demoMode: true, clientId: undefined })).toEqual({
      ok: true,
      patch: { demoMode: true },
    });
  });

  it.each([
    [{ pollIntervalSeconds: 29 }, 'pollIntervalSeconds', 'Check interval', 'from 30 to 3600'],
    [{ pollIntervalSeconds: 3601 }, 'pollIntervalSeconds', 'Check interval', 'from 30 to 3600'],
    [{ pollIntervalSeconds: 60.5 }, 'pollIntervalSeconds', 'Check interval', 'whole number'],
    [{ pollIntervalSeconds: '60' }, 'pollIntervalSeconds', 'Check interval', 'whole number'],
    [{ baseUrl: 'http://marketplace.example' }, 'baseUrl', 'Base URL', 'must use https'],
    [{ baseUrl: 'marketplace.example' }, 'baseUrl', 'Base URL', 'is not a URL'],
    [{ baseUrl: 42 }, 'baseUrl', 'Base URL', 'address of the Seller API'],
    [{ clientId: 'x'.repeat(201) }, 'clientId', 'Client id', 'at most 200 characters'],
    [{ clientId: 'a:b' }, 'clientId', 'Client id', 'colon'],
    [{ notificationsEnabled: 'yes' }, 'notificationsEnabled', 'Notifications', 'true or false'],
    [{ pausedUntil: 'tomorrow' }, 'pausedUntil', 'Pause', 'date and time'],
    [{ reminderAfterMinutes: 5 }, 'reminderAfterMinutes', 'Reminder delay', 'or 0 for no reminder'],
    [{ reminderAfterMinutes: 10081 }, 'reminderAfterMinutes', 'Reminder delay', 'from 15 to 10080'],
    [{ escalateAfterMinutes: 4 }, 'escalateAfterMinutes', 'Urgent after', 'from 5 to 1440 (a day), or 0'],
    [{ escalateAfterMinutes: 1441 }, 'escalateAfterMinutes', 'Urgent after', 'from 5 to 1440'],
    [{ openAtLogin: 1 }, 'openAtLogin', 'Open at login', 'true or false'],
    [{ demoMode: null }, 'demoMode', 'Demo mode', 'true or false'],
    [{ staleInProgressDays: 366 }, 'staleInProgressDays', 'In-progress limit', 'from 1 to 365, or 0'],
    [{ staleInProgressDays: 1.5 }, 'staleInProgressDays', 'In-progress limit', 'whole number of days'],
    [{ inboxSort: 'oldest' }, 'inboxSort', 'Inbox order', 'longest-waiting, newest'],
    [{ undoSeconds: 61 }, 'undoSeconds', 'Time to undo', 'from 0 to 60'],
    [{ undoSeconds: -1 }, 'undoSeconds', 'Time to undo', 'from 0 to 60'],
    [{ undoSeconds: 2.5 }, 'undoSeconds', 'Time to undo', 'whole number'],
    [{ actorName: 'Anna: admin' }, 'actorName', 'Your name', 'colon'],
    [{ actorName: 'Anna\nVirtanen' }, 'actorName', 'Your name', 'control characters'],
    [{ actorName: 'A'.repeat(101) }, 'actorName', 'Your name', 'at most 100 characters'],
    [{ actorName: 7 }, 'actorName', 'Your name', 'without a colon'],
    [{ theme: 'dark' }, 'theme', 'theme', 'theme is not a setting'],
    [{ clientSecret: 'pw' }, 'clientSecret', 'clientSecret', 'kept in the system keychain'],
  ])('refuses %j, naming %s as the form labels it', (input, field, label, words) => {
    const result = parseSettingsPatch(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.field).toBe(field);
    expect(result.errors[0]?.message).toMatch(new RegExp(`^${label} `));
    expect(result.errors[0]?.message).toContain(words);
    expect(result.message).toBe(result.errors[0]?.message);
  });

  it.each<[unknown, string]>([
    [
      { routes: { listEvents: { path: 'seller/v1/events' } } },
      'api.routes.listEvents.path must be a path starting with "/"',
    ],
    [
      { routes: { getOrder: { path: '/orders/{id}' } } },
      'api.routes.getOrder.path must have the parameter(s) {orderId}',
    ],
    [
      { routes: { listOrders: { path: '/orders/{orderId}' } } },
      'api.routes.listOrders.path must have no {parameter}',
    ],
    [{ routes: { listOrders: { path: '/a/../orders' } } }, 'must not contain "." or ".." segments'],
    // Dot segments in the spellings a URL parser or a server decodes: out of the base URL's path.
    ...[
      '/%2e%2e/orders',
      '/%2E./orders',
      '/.%2e/orders',
      '/%252e%252e/orders',
      '/a/%2e/orders',
      '/a\\..\\orders',
      '/a%2f..%2forders',
      '/a%5c..%5corders',
    ].map((path): [unknown, string] => [
      { routes: { listOrders: { path } } },
      'must not contain "." or ".." segments, in any encoding',
    ]),
    [
      { routes: { listOrders: { path: '/orders%zz%2e' } } },
      'must not hold percent escapes that cannot be decoded',
    ],
    [
      { routes: { listEverything: { path: '/all' } } },
      'api.routes.listEverything is not an operation: use one of ping,',
    ],
    [{ routes: { listOrders: { method: 'DELETE' } } }, 'api must be null or an object'],
    [{ pageSize: 500 }, 'page sizes from 1 to 100'],
  ])('refuses the api section %j in the settings file, saying what is wrong', (api, words) => {
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, api }));
    const { settings, problem } = store().load();
    expect(settings.api).toBeNull();
    expect(problem).toContain(words);
  });

  it("takes an api section from the settings file whose paths keep their operation's parameters", () => {
    const api = {
      routes: { getOrder: { method: 'GET', path: '/v2/order%20book/{orderId}' } },
      pageSize: 25,
    };
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, api }));
    expect(store().load()).toEqual({ settings: { ...configured, api } });
  });

  it('takes automations from the settings file, filling their defaults', () => {
    const automations = [
      { name: 'hook', action: { type: 'webhook', url: 'http://127.0.0.1:9000/hook' } },
      { name: 'run it', action: { type: 'command', command: ['provision'] }, reportStatus: 'in-progress' },
    ];
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, automations }));
    expect(store().load().settings.automations).toEqual([
      { ...automations[0], enabled: true, products: [], orderTypes: [], accounts: 'all', reportStatus: null },
      {
        ...automations[1],
        action: { type: 'command', command: ['provision'], timeoutSeconds: 300 },
        enabled: true,
        products: [],
        orderTypes: [],
        accounts: 'all',
      },
    ]);
  });

  it.each([
    [
      [{ name: 'a', action: { type: 'webhook', url: 'http://hooks.example.com/x' } }],
      'automations[0].action.url: the address must use https://',
    ],
    [
      [{ name: 'a', action: { type: 'webhook', url: 'https://user:pw@hooks.example.com/x' } }],
      'must not carry a user name',
    ],
    [
      [{ name: 'by me: x', action: { type: 'slack' } }],
      'automations[0].name: a name starts with a letter or digit',
    ],
    [[{ name: 'a', action: { type: 'command', command: [] } }], 'automations[0].action.command'],
    [
      [{ name: 'a', action: { type: 'command', command: ['x'], cwd: 'relative' } }],
      'cwd must be an absolute folder',
    ],
    [
      [{ name: 'a', action: { type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' } }],
      'automations[0].action',
    ],
    [[{ name: 'a', action: { type: 'shell', command: 'rm -rf /' } }], 'automations[0].action.type'],
    [
      [
        { name: 'a', action: { type: 'teams' } },
        { name: 'A', action: { type: 'slack' } },
      ],
      'automations name A twice',
    ],
    [[{ name: 'a', action: { type: 'slack' }, accounts: [] }], 'accounts must name at least one account'],
    [[{ name: 'a', action: { type: 'slack' }, accounts: ['EU'] }], 'an account is named by its id'],
  ])('drops the bad automation of %j, saying where and why', (automations, words) => {
    writeFileSync(settingsFile(), JSON.stringify({ ...configured, automations }));
    const { settings, problem } = store().load();
    // Each case has one bad item (of a repeat, the second): only it goes.
    expect(settings.automations.map((a) => a.name)).toEqual(automations.slice(0, -1).map((a) => a.name));
    expect(settings.accounts).toEqual(configured.accounts);
    expect(problem).toContain(words);
  });

  it('drops only the runbook of the file that cannot be used, telling it; the accounts and the rest stay', () => {
    const good = configured.runbooks[0];
    const other = { ...good, itemId: 'sku-2', name: 'Add-on' };
    const runbooks = [good, { ...good, itemId: 'sku-new', notes: 'from a newer version' }, other];
    const text = JSON.stringify({ ...configured, runbooks });
    writeFileSync(settingsFile(), text);
    const { settings, problem } = store().load();
    expect(settings).toEqual({ ...configured, runbooks: [good, other] });
    expect(problem).toContain('Runbook 2 (sku-new): notes is not part of a runbook');
    expect(problem).toContain(
      'those items were left out (or relabelled, as said) and the rest of your settings are in use',
    );
    expect(readFileSync(settingsFile(), 'utf8')).toBe(text);
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
  });

  it('drops only the automation of the file that cannot be used, telling it; the accounts and the rest stay', () => {
    const [first, second] = configured.automations;
    const automations = [first, { name: 'newer', action: { type: 'teams' }, retries: 3 }, second];
    const text = JSON.stringify({ ...configured, automations });
    writeFileSync(settingsFile(), text);
    const { settings, problem } = store().load();
    expect(settings).toEqual({ ...configured, automations: [first, second] });
    expect(problem).toContain('automations[1]: retries');
    expect(readFileSync(settingsFile(), 'utf8')).toBe(text);
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
    // The window, the bridge and the CLI still refuse such a list whole.
    expect(parseSettingsPatch({ automations }).ok).toBe(false);
  });

  it('takes runbooks from the window whole, or refuses them whole naming each bad item', () => {
    const runbook = {
      itemId: 'SS-STD',
      name: 'Standard',
      checklist: ['Create the tenant'],
      links: [{ label: 'Console', url: 'https://console.example/t/{buyerAccountId}' }],
      reasons: [{ description: 'Quota reached', detailedDescription: 'The tenant quota is reached.' }],
    };
    expect(parseSettingsPatch({ runbooks: [runbook] })).toEqual({ ok: true, patch: { runbooks: [runbook] } });
    const refused = parseSettingsPatch({
      runbooks: [
        runbook,
        { ...runbook, itemId: 'AN-ADD', links: [{ label: 'x', url: 'file:///etc/passwd' }] },
      ],
    });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.errors).toEqual([
      {
        field: 'runbooks',
        message:
          "Runbooks: Runbook 2 (AN-ADD): link 1's address must start with https:// or http:// (no javascript:, file:, data: or relative addresses)",
      },
    ]);
    // The file is held to the same rules, its bad runbook left out (and told) rather than the file.
    writeFileSync(settingsFile(), JSON.stringify({ runbooks: [{ itemId: 'A' }] }));
    expect(store().load().problem).toMatch(/runbooks: Runbook 1 \(A\): the name must be text/);
  });

  it('refuses an api section from the window or the CLI: only the settings file sets it', () => {
    for (const api of [null, { routes: { listOrders: { path: '/elsewhere' } } }]) {
      const result = parseSettingsPatch({ api });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toEqual([
        { field: 'api', message: 'api is set in the settings file only, by whoever deploys Seller Tray' },
      ]);
    }
  });

  it('reports every bad field at once', () => {
    const result = parseSettingsPatch({ pollIntervalSeconds: 5, demoMode: 'no', extra: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.field).sort()).toEqual(['demoMode', 'extra', 'pollIntervalSeconds']);
  });

  it.each([null, 'pollIntervalSeconds=60', [], 42])('refuses %j, which is no object of settings', (input) => {
    const result = parseSettingsPatch(input);
    expect(result).toEqual({
      ok: false,
      errors: [{ field: null, message: 'the settings must be an object of setting names and values' }],
      message: 'the settings must be an object of setting names and values',
    });
  });
});

describe('settings declared once (preload/settings-declaration.ts)', () => {
  it('derive the defaults, the limits and the refusals of every whole-number setting', () => {
    for (const [key, setting] of SETTING_ENTRIES) {
      expect(DEFAULT_SETTINGS[key]).toEqual(setting.default);
      if (setting.type !== 'whole') continue;
      expect(parseSettingsPatch({ [key]: setting.max }).ok).toBe(true);
      expect(parseSettingsPatch({ [key]: setting.min }).ok).toBe(true);
      if (setting.off !== undefined) expect(parseSettingsPatch({ [key]: setting.off }).ok).toBe(true);
      for (const wrong of [setting.max + 1, setting.min - 1, setting.min + 0.5]) {
        if (wrong === setting.off) continue;
        expect(parseSettingsPatch({ [key]: wrong })).toEqual({
          ok: false,
          errors: [{ field: key, message: `${setting.label} ${setting.rule}` }],
          message: `${setting.label} ${setting.rule}`,
        });
      }
    }
  });

  it('keep the file-only settings out of every change from the window or the CLI', () => {
    const fileOnly = SETTING_ENTRIES.filter(([, setting]) => setting.shows.in === 'file');
    expect(fileOnly.map(([key]) => key)).toEqual(['api']);
    for (const [key] of fileOnly) expect(parseSettingsPatch({ [key]: null }).ok).toBe(false);
  });

  it('refuse a key that is no setting, even one every object inherits', () => {
    expect(parseSettingsPatch({ toString: 1 })).toMatchObject({
      ok: false,
      errors: [{ field: 'toString', message: 'toString is not a setting' }],
    });
  });

  it('refuse the automations through setSettings, saying where they change', () => {
    expect(parseSettingsPatch({ automations: [] })).toMatchObject({
      ok: false,
      errors: [
        {
          field: 'automations',
          message: 'automations change in Settings → Automations, one automation at a time',
        },
      ],
    });
  });
});

describe('the account list (settings file version 2)', () => {
  /** Written by Seller Tray at 46efe6c (one account, no list) through its ConfSettingsStore. */
  const V1_FILE = path.join(import.meta.dirname, '../../test/fixtures/settings-v1.json');

  it('takes a version 1 file: its one account is the list, in the data folder 0.x used, and the next save writes version 2', () => {
    copyFileSync(V1_FILE, settingsFile());
    const s = store();
    const { settings, problem } = s.load();
    expect(problem).toBeUndefined();
    const account = {
      label: 'marketplace.example',
      baseUrl: 'https://marketplace.example/api',
      clientId: 'seller-client-7',
    };
    expect(settings).toMatchObject({
      baseUrl: account.baseUrl,
      clientId: account.clientId,
      accounts: [account],
      pollIntervalSeconds: 120,
      undoSeconds: 5,
    });
    // The folder 46efe6c's accountDir named for this account: its history and outbox carry on.
    expect(accountFolder('/data', accountRef(account).id)).toBe(
      path.join('/data', 'accounts', 'bc5099cc16c89181'),
    );
    s.save({ ...s.load().settings, actorName: 'Anna V.' });
    const written = onDisk();
    expect(written).toMatchObject({ settingsVersion: 2, accounts: [account], actorName: 'Anna V.' });
    // A downgrade to 0.x still finds the first account where it looks.
    expect(written).toMatchObject({ baseUrl: account.baseUrl, clientId: account.clientId });
    expect(store().load()).toEqual({
      settings: { ...DEFAULT_SETTINGS, ...written, settingsVersion: undefined },
    });
  });

  it.each([
    ['a base URL', { baseUrl: 'http://marketplace.example/api' }, 'the base URL must use https'],
    ['a client id', { clientId: 'seller:7' }, 'clientId must not contain a colon'],
  ])(
    'takes a version 1 file whose account has %s it refuses: the account left out whole, the rest kept',
    (_, bad, why) => {
      const v1 = { ...JSON.parse(readFileSync(V1_FILE, 'utf8')), ...bad };
      writeFileSync(settingsFile(), JSON.stringify(v1));
      const { settings, problem } = store().load();
      // No half of an account stays at the top: the window would show a client with no account.
      expect(settings).toMatchObject({ accounts: [], baseUrl: '', clientId: '', pollIntervalSeconds: 120 });
      expect(problem).toContain(why);
      const copy = /kept in (\S+settings\.json\.left-out-[0-9a-f]{12}):/.exec(problem ?? '')?.[1] ?? '';
      expect(JSON.parse(readFileSync(copy, 'utf8')).accounts).toEqual([
        expect.objectContaining({ baseUrl: v1.baseUrl, clientId: v1.clientId }),
      ]);
    },
  );

  const EU = { label: 'EU', baseUrl: 'https://eu.marketplace.example', clientId: 'eu-client' };
  const US = { label: 'US', baseUrl: 'https://us.marketplace.example', clientId: 'us-client' };
  const both: Settings = {
    ...DEFAULT_SETTINGS,
    baseUrl: EU.baseUrl,
    clientId: EU.clientId,
    accounts: [EU, US],
  };

  it('lets the window change its (first) account, keeping the label the user chose and the others', () => {
    const moved = reconcileAccounts(both, { ...both, clientId: 'eu-client-2' });
    expect(moved.accounts).toEqual([{ ...EU, clientId: 'eu-client-2' }, US]);
    // Clearing it (leaving the demo) removes it: the next account is the window's.
    const cleared = reconcileAccounts(both, { ...both, baseUrl: '', clientId: '' });
    expect(cleared).toMatchObject({ baseUrl: US.baseUrl, clientId: US.clientId, accounts: [US] });
  });

  it("takes an account's own routes from the file, checked as the settings' are", () => {
    const own = { routes: { listNewEvents: { path: '/gateway/unseen' } } };
    const listed = { label: 'EU', baseUrl: 'https://eu.marketplace.example', clientId: 'eu' };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, accounts: [{ ...listed, api: own }] }),
    );
    expect(store().load().settings.accounts).toEqual([{ ...listed, api: own }]);
    const wrong = { routes: { listEverything: { path: '/all' } } };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, accounts: [{ ...listed, api: wrong }] }),
    );
    expect(store().load().problem).toMatch(/api\.routes\.listEverything is not an operation/);
  });

  it.each([
    [
      'a label longer than this version takes',
      { ...US, label: 'US, from a newer version of the app' },
      'label',
    ],
    ['a client listed twice', { ...EU, label: 'EU again' }, 'repeats "EU"'],
    ['a key of a newer version', { ...US, region: 'us-east' }, 'region'],
  ])('drops only the account of %s, telling it; the other accounts and the rest stay', (_, odd, words) => {
    const T = { label: 'Test', baseUrl: 'https://test.marketplace.example', clientId: 't' };
    const text = JSON.stringify({ settingsVersion: 2, ...both, actorName: 'Anna', accounts: [EU, odd, T] });
    writeFileSync(settingsFile(), text);
    const { settings, problem } = store().load();
    expect(settings).toMatchObject({ actorName: 'Anna', baseUrl: EU.baseUrl, accounts: [EU, T] });
    expect(problem).toContain(words);
    expect(problem).toContain(
      'those items were left out (or relabelled, as said) and the rest of your settings are in use',
    );
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toEqual([]);
  });

  // An entry with a key it does not know costs an older version the account (above); a setting it
  // does not know costs it that setting alone: an account's pause is therefore kept beside the list.
  it("keeps an account's pause beside the list, where a version that does not know it drops the pause alone, every account kept", () => {
    const paused = { ...both, accountPauses: { [accountRef(US).id]: '2026-11-21T18:00:00.000Z' } };
    store().save(paused);
    const written = onDisk();
    expect(written.accounts).toEqual([EU, US]);
    expect(written.accountPauses).toEqual(paused.accountPauses);
    expect(store().load()).toEqual({ settings: paused });
    // As an older version finds it: a key it does not know at the top.
    const { accountPauses, ...rest } = written;
    writeFileSync(settingsFile(), JSON.stringify({ ...rest, pausesOfANewerVersion: accountPauses }));
    expect(store().load()).toEqual({ settings: both });
  });

  it('keeps an account whose label only repeats another’s, relabelled and told', () => {
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, { ...US, label: 'eu' }] }),
    );
    const { settings, problem } = store().load();
    // Its client id after it, so the label names this account however the list changes.
    expect(settings.accounts).toEqual([EU, { ...US, label: 'eu (us-client)' }]);
    expect(problem).toContain(`account 2 ("eu", client ${US.clientId} at ${US.baseUrl}) repeats "EU"`);
    expect(problem).toContain('kept as "eu (us-client)"');
  });

  it('reads a label with invisible characters (an earlier version took them) as plain text, keeping the account', () => {
    const odd = { ...US, label: 'U\u202eS\u2028 west\u200f' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, odd] }));
    expect(store().load()).toEqual({ settings: { ...both, accounts: [EU, { ...US, label: 'US west' }] } });
  });

  it('drops a first account that cannot be used: the next is the window’s', () => {
    const odd = { ...EU, label: '' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [odd, US] }));
    const { settings, problem } = store().load();
    expect(settings).toMatchObject({ baseUrl: US.baseUrl, clientId: US.clientId, accounts: [US] });
    expect(problem).toContain('label');
  });

  it('tells every account it leaves out, not only the first, with its client and marketplace', () => {
    const long = { ...US, label: 'US, from a newer version of the app' };
    const T = { label: 'Test', baseUrl: 'https://test.marketplace.example', clientId: 't', region: 'x' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, long, T] }));
    const { settings, problem } = store().load();
    expect(settings.accounts).toEqual([EU]);
    expect(problem).toContain('account 2');
    expect(problem).toContain('account 3');
  });

  it('keeps a copy of the file with an account it leaves out, which the next save no longer holds', () => {
    const long = { ...US, label: 'US, from a newer version of the app' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, long] }));
    const s = store();
    s.save({ ...s.load().settings, actorName: 'Anna' });
    const everywhere = readdirSync(dir)
      .map((name) => readFileSync(path.join(dir, name), 'utf8'))
      .join('\n');
    expect(everywhere).toContain(US.clientId);
  });

  it('keeps both accounts of two labels an earlier version kept apart (a double space, an RLM)', () => {
    const spaced = { ...US, label: 'Sales  EU' };
    const marked = { label: 'Sales EU\u200f', baseUrl: 'https://t.marketplace.example', clientId: 't' };
    const plain = { ...EU, label: 'Sales EU' };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, ...both, accounts: [plain, spaced, marked] }),
    );
    expect(store().load().settings.accounts).toHaveLength(3);
  });

  // the relabel takes a label a later account of the file really has.
  it('a relabelled account never takes the label of a later account, which keeps its own', () => {
    const spaced = { ...US, label: 'Sales  EU' };
    const plain = { ...EU, label: 'Sales EU' };
    const second = { label: 'Sales EU (2)', baseUrl: 'https://t.marketplace.example', clientId: 't' };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, ...both, accounts: [plain, spaced, second] }),
    );
    const labels = store()
      .load()
      .settings.accounts.map((a) => a.label);
    expect(labels).toHaveLength(3);
    // Its own label, as the user and `--account "Sales EU (2)"` know it, not the relabelled one's.
    expect(labels[2]).toBe('Sales EU (2)');
  });

  // a left-out account is named with its raw address, credentials and all.
  it('an account left out for credentials in its address is named without them', () => {
    const leaky = { ...US, baseUrl: 'https://us-client:s3cret-Pa55@us.marketplace.example' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, leaky] }));
    const { settings, problem } = store().load();
    expect(settings.accounts).toEqual([EU]);
    expect(problem).toContain('must not carry credentials');
    expect(problem).not.toContain('s3cret-Pa55');
  });

  // an address that is not even a URL (a port out of range) is quoted whole by
  // checkBaseUrl's problem ("\"…\" is not a URL"), credentials and all: addressShown's '?' only
  // covers the identity, not the reason after it.
  it('an account left out for an address that is no URL is named without its credentials', () => {
    const leaky = { ...US, baseUrl: 'https://us-client:s3cret-Pa55@us.marketplace.example:99999' };
    writeFileSync(settingsFile(), JSON.stringify({ settingsVersion: 2, ...both, accounts: [EU, leaky] }));
    const { settings, problem } = store().load();
    expect(settings.accounts).toEqual([EU]);
    expect(problem).toContain('account 2');
    expect(problem).not.toContain('s3cret-Pa55');
  });

  // the relabel cuts the label by UTF-16 units, so an emoji at the cut is halved
  // and the kept label holds a lone surrogate (shown as � in the tray, header, notifications).
  it('a relabelled label is never cut inside a character (an emoji at the cut)', () => {
    const label = `${'x'.repeat(19)}\u{1F600}\u{1F600}`; // 23 UTF-16 units, within the 24
    writeFileSync(
      settingsFile(),
      JSON.stringify({
        settingsVersion: 2,
        ...both,
        accounts: [
          { ...EU, label },
          { ...US, label },
        ],
      }),
    );
    const labels = store()
      .load()
      .settings.accounts.map((a) => a.label);
    expect(labels).toHaveLength(2);
    expect(labels[1]).toMatch(/ \(us-client\)$/);
    expect(labels[1]).not.toMatch(/[\uD800-\uDFFF]/u); // a lone surrogate, in unicode mode
  });

  // the copy of a file with a left-out account is the file whole, so a secret in it
  // (an address's password, the very reason the account is left out; a client secret pasted in)
  // stays on disk for good, where the file's own decision is that it leaves at the next save.
  it('a secret the file held is in no file of the folder after the next save, copy or not', () => {
    const leaky = { ...US, baseUrl: 'https://us-client:s3cret-Pa55@us.marketplace.example' };
    writeFileSync(
      settingsFile(),
      JSON.stringify({ settingsVersion: 2, ...both, clientSecret: 'pasted-S3cret', accounts: [EU, leaky] }),
    );
    const s = store();
    s.save({ ...s.load().settings, actorName: 'Anna' });
    const everywhere = readdirSync(dir)
      .map((name) => readFileSync(path.join(dir, name), 'utf8'))
      .join('\n');
    expect(everywhere).toContain(US.clientId); // the left-out account can still be found again
    expect(everywhere).not.toContain('s3cret-Pa55');
    expect(everywhere).not.toContain('pasted-S3cret');
  });

  describe('copies of what was left out', () => {
    /** The file with one account that cannot be used, told apart by its client. */
    const withBadAccount = (n: number) =>
      writeFileSync(
        settingsFile(),
        JSON.stringify({
          settingsVersion: 2,
          ...both,
          accounts: [EU, { label: `Bad ${n}`, baseUrl: 'ftp://bad.example', clientId: `bad-${n}` }],
        }),
      );
    const copies = () => readdirSync(dir).filter((name) => name.startsWith('settings.json.left-out-'));
    /** A start of the app or the CLI (a store of its own) at `minute`: the copy its message names. */
    const started = (minute: number) => {
      const load = new ConfSettingsStore({
        cwd: dir,
        now: () => new Date(NOW.getTime() + minute * 60_000),
      }).load();
      const named = /kept in (\S+): /.exec(load.problem ?? '')?.[1];
      expect(named).toBeDefined();
      return path.basename(named ?? '');
    };

    it('keeps only the ones named last, the one just named always among them', () => {
      const named: string[] = [];
      for (let n = 1; n <= LEFT_OUT_COPIES_KEPT + 3; n++) {
        withBadAccount(n);
        named.push(started(n));
        expect(copies()).toContain(named.at(-1));
      }
      expect(new Set(named).size).toBe(LEFT_OUT_COPIES_KEPT + 3);
      expect(copies().sort()).toEqual(named.slice(-LEFT_OUT_COPIES_KEPT).sort());
    });

    it('counts a copy named again as new: the file read again with the same problem keeps its copy', () => {
      withBadAccount(0);
      const first = started(0);
      for (let n = 1; n <= LEFT_OUT_COPIES_KEPT + 2; n++) {
        withBadAccount(n);
        started(2 * n - 1);
        // The first problem back (the file restored from a backup, say): its copy, named again.
        withBadAccount(0);
        expect(started(2 * n)).toBe(first);
      }
      expect(copies()).toHaveLength(LEFT_OUT_COPIES_KEPT);
      expect(copies()).toContain(first);
    });

    it('never deletes a copy a message of this process named; the next start prunes them', () => {
      const s = new ConfSettingsStore({ cwd: dir, now: () => NOW });
      const named: string[] = [];
      // The app reading the file again as it changes: each message it showed may still be on screen.
      for (let n = 0; n <= LEFT_OUT_COPIES_KEPT + 2; n++) {
        withBadAccount(n);
        named.push(path.basename(/kept in (\S+): /.exec(s.load().problem ?? '')?.[1] ?? ''));
      }
      expect(copies().sort()).toEqual([...named].sort());
      withBadAccount(99);
      const next = started(1);
      expect(copies()).toHaveLength(LEFT_OUT_COPIES_KEPT);
      expect(copies()).toContain(next);
    });
  });

  it('lets the list change (the CLI), the first account then named at the top', () => {
    const removed = reconcileAccounts(both, { ...both, accounts: [US] });
    expect(removed).toMatchObject({ baseUrl: US.baseUrl, clientId: US.clientId, accounts: [US] });
    const s = store();
    s.save({ ...DEFAULT_SETTINGS, accounts: [US, EU] });
    expect(store().load().settings).toMatchObject({ baseUrl: US.baseUrl, accounts: [US, EU] });
  });

  it('gives an account added by its address a label of its own, numbered at a marketplace already listed', () => {
    const one = { label: 'marketplace.example', baseUrl: 'https://marketplace.example', clientId: 'a' };
    const added = reconcileAccounts(
      { ...DEFAULT_SETTINGS, accounts: [] },
      { ...DEFAULT_SETTINGS, baseUrl: 'https://marketplace.example', clientId: 'b', accounts: [one] },
    );
    expect(added.accounts.map((a) => a.label)).toEqual(['marketplace.example 2', 'marketplace.example']);
  });

  it('refuses a list naming one account twice, or one label twice, in words', () => {
    // Not through setSettings: the list changes one account at a time (account-list.ts).
    expect(parseSettingsPatch({ accounts: [] })).toMatchObject({
      ok: false,
      message: 'accounts change by adding, renaming and removing accounts, one at a time',
    });
    for (const accounts of [
      [EU, { ...US, label: 'eu' }],
      [EU, { ...EU, label: 'Other' }],
    ]) {
      const result = checkAccounts(accounts);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/^Accounts: account 2 repeats "EU"/);
    }
  });
});
