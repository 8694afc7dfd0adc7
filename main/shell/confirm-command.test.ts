// The shell's own question before a command automation is saved: Cancel by default, yes only
// on "Allow and save", and the program and arguments shown exactly, controls made visible.
import { describe, expect, it } from 'vitest';
import type { AutomationSetting } from '../../preload/automations';
import { commandDetail, confirmCommandWithDialog, type MessageBoxPort } from './confirm-command';

const provision: AutomationSetting = {
  name: 'provision',
  enabled: true,
  products: [],
  orderTypes: [],
  accounts: 'all',
  action: {
    type: 'command',
    command: ['/opt/acme/run.sh', '--region eu\n--all', 'x\u202etxt.exe'],
    timeoutSeconds: 30,
  },
  reportStatus: null,
};

function dialogAnswering(response: number) {
  const asked: Parameters<MessageBoxPort['showMessageBox']>[0][] = [];
  const dialog: MessageBoxPort = {
    showMessageBox: async (options) => {
      asked.push(options);
      return { response };
    },
  };
  return { dialog, asked };
}

describe('confirmCommandWithDialog', () => {
  it('allows only on "Allow and save"; Cancel is the default and the escape', async () => {
    const cancelled = dialogAnswering(0);
    expect(await confirmCommandWithDialog(cancelled.dialog)(provision)).toBe(false);
    const [options] = cancelled.asked;
    expect(options?.buttons[options.defaultId]).toBe('Cancel');
    expect(options?.buttons[options.cancelId]).toBe('Cancel');
    expect(await confirmCommandWithDialog(dialogAnswering(1).dialog)(provision)).toBe(true);
  });

  it('shows the program and each argument exactly, a newline or a direction mark as a visible escape', () => {
    const detail = commandDetail(provision);
    expect(detail).toContain('Program: "/opt/acme/run.sh"');
    expect(detail).toContain('Arguments: "--region eu\\n--all" "x\\u202etxt.exe"');
    expect(detail).toContain("Folder: the account's automations folder");
    expect(detail).not.toMatch(/[\u202e]/);
  });
});
