// "Allow this command?": the service's ConfirmCommandPort over Electron's message box, behind the
// small interface below (Electron's `dialog` satisfies it; the tests pass a fake). The question
// is the shell's own, drawn outside the window, so nothing running in the window can answer it:
// a command automation, which runs a program on this computer, is saved only when the person at
// it says yes. Cancel is the default. The program and each argument are shown exactly, every
// control or direction character as a visible escape, so what is read is what will run.
import type { AutomationSetting } from '../../preload/automations';
import { escapedControls } from '../../preload/marketplace-text';
import type { ConfirmCommandPort } from '../core/automation/automation-editing';

/** The part of Electron's `dialog.showMessageBox` used here. */
export interface MessageBoxPort {
  showMessageBox(options: {
    type: 'warning';
    title: string;
    message: string;
    detail: string;
    buttons: string[];
    defaultId: number;
    cancelId: number;
    noLink: boolean;
  }): Promise<{ response: number }>;
}

const ALLOW = 1;

/** Asks with the platform's message box whether `automation` may run its command. */
export function confirmCommandWithDialog(dialog: MessageBoxPort): ConfirmCommandPort {
  return async (automation) => {
    const { response } = await dialog.showMessageBox({
      type: 'warning',
      title: 'Allow a command',
      message: `Let the automation "${escapedControls(automation.name)}" run a program on this computer?`,
      detail: commandDetail(automation),
      buttons: ['Cancel', 'Allow and save'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    });
    return response === ALLOW;
  };
}

/** What the command runs, where and for how long, one item a line, each argument quoted. */
export function commandDetail(automation: AutomationSetting): string {
  if (automation.action.type !== 'command') return '';
  const [program = '', ...args] = automation.action.command;
  const quoted = (text: string) => `"${escapedControls(text)}"`;
  return [
    `Program: ${quoted(program)}`,
    args.length > 0 ? `Arguments: ${args.map(quoted).join(' ')}` : 'Arguments: none',
    `Folder: ${automation.action.cwd ? quoted(automation.action.cwd) : "the account's automations folder"}`,
    `Time limit: ${automation.action.timeoutSeconds} s`,
    '',
    'It runs for each new order it is for, with the order as JSON on its standard input. Allow it only if you set it up yourself.',
  ].join('\n');
}
