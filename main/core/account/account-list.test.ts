// Labels an interrupted removal still goes by are not given to another account (the advice to
// finish that removal names the label), and a label in advice is one argument of the command.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../settings';
import { renameAccount } from './account-list';
import { labelArgument } from './account-ref';
import { interruptedRemovalWords, writeRemovalNote } from './removal-notes';

let dataRoot: string;
beforeEach(async () => {
  dataRoot = await mkdtemp(join(tmpdir(), 'account-list-'));
});
afterEach(() => rm(dataRoot, { recursive: true, force: true }));

const eu = { label: 'EU', baseUrl: 'https://eu.example.com', clientId: 'eu-client' };
const us = { label: 'US', baseUrl: 'https://us.example.com', clientId: 'us-client' };

describe('renaming an account', () => {
  it('refuses the label of an account whose removal was interrupted, in any case, and allows it once the removal is gone', () => {
    const settings = { ...DEFAULT_SETTINGS, accounts: [us] };
    expect(renameAccount(settings, 'US', 'eu', dataRoot).accounts).toEqual([{ ...us, label: 'eu' }]);
    writeRemovalNote(dataRoot, { entry: eu, at: 0, automations: [] });
    expect(() => renameAccount(settings, 'US', 'eu', dataRoot)).toThrow(
      'EU is the label of an account whose removal was interrupted (client eu-client at https://eu.example.com)',
    );
    expect(renameAccount(settings, 'US', 'Americas', dataRoot).accounts).toEqual([
      { ...us, label: 'Americas' },
    ]);
  });
});

describe('a label in advice', () => {
  it('is left as it is when it is one plain word', () => {
    for (const label of ['EU', 'example.com', 'Zürich-2', 'test_1', 'ops@acme'])
      expect(labelArgument(label, 'linux')).toBe(label);
  });

  it('is quoted for a POSIX shell, a quote in it included, so it stays one argument that runs nothing', () => {
    expect(labelArgument('example.com 2', 'linux')).toBe("'example.com 2'");
    expect(labelArgument("O'Brien $(rm -rf ~)", 'darwin')).toBe(`'O'\\''Brien $(rm -rf ~)'`);
    expect(labelArgument('`id`;x', 'linux')).toBe("'`id`;x'");
  });

  it('is quoted for cmd and PowerShell on Windows', () => {
    expect(labelArgument('EU west', 'win32')).toBe('"EU west"');
    expect(labelArgument('say "hi"', 'win32')).toBe('"say ""hi"""');
  });

  it('is quoted in what the app says of an interrupted removal', () => {
    expect(interruptedRemovalWords('EU west')).toContain(
      process.platform === 'win32'
        ? 'seller-tray accounts remove "EU west" to finish it'
        : "seller-tray accounts remove 'EU west' to finish it",
    );
  });
});
