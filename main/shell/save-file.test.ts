// The save dialog's adapter with a fake dialog: the suggested name offered in Documents, the file
// written where the user picked, nothing written when the dialog is cancelled.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SaveDialogPort, saveWithDialog } from './save-file';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function fakeDialog(answer: (defaultPath: string) => { canceled: boolean; filePath?: string }) {
  const asked: Parameters<SaveDialogPort['showSaveDialog']>[0][] = [];
  const dialog: SaveDialogPort = {
    showSaveDialog: async (options) => {
      asked.push(options);
      return answer(options.defaultPath);
    },
  };
  return { dialog, asked };
}

describe('saveWithDialog', () => {
  it('offers the name in Documents and writes the file where the user said', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'save-'));
    dirs.push(dir);
    const picked = join(dir, 'proof for finance.csv');
    const { dialog, asked } = fakeDialog(() => ({ canceled: false, filePath: picked }));
    const saved = await saveWithDialog(dialog, () => '/home/anna/Documents')('statuses.csv', 'a,b\r\n');
    expect(saved).toBe(picked);
    expect(await readFile(picked, 'utf8')).toBe('a,b\r\n');
    expect(asked).toEqual([
      {
        title: 'Export statuses',
        defaultPath: '/home/anna/Documents/statuses.csv',
        filters: [{ name: 'CSV', extensions: ['csv'] }],
      },
    ]);
  });

  it('writes nothing when the dialog is cancelled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'save-'));
    dirs.push(dir);
    const { dialog } = fakeDialog((defaultPath) => ({ canceled: true, filePath: join(dir, defaultPath) }));
    expect(await saveWithDialog(dialog, () => dir)('statuses.csv', 'x')).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });
});
