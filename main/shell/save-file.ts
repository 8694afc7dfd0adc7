// "Export statuses": the service's SaveFilePort over Electron's save dialog, behind the small
// interface below (Electron's `dialog` satisfies it; the tests pass a fake). The dialog offers the
// suggested name in the Documents folder, the file is written where the user says, and a cancel
// writes nothing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SaveFilePort } from '../core/service';

/** The part of Electron's `dialog.showSaveDialog` answer used here. */
export interface SaveDialogPort {
  showSaveDialog(options: {
    title: string;
    defaultPath: string;
    filters: { name: string; extensions: string[] }[];
  }): Promise<{ canceled: boolean; filePath?: string | undefined }>;
}

/** Asks where to save with the platform's dialog (from the Documents folder), then writes the file there. */
export function saveWithDialog(
  dialog: SaveDialogPort,
  documentsDir: () => string,
  write: (path: string, content: string) => Promise<void> = (path, content) => writeFile(path, content),
): SaveFilePort {
  return async (suggestedName, content) => {
    const extension = suggestedName.split('.').pop() ?? '';
    const answer = await dialog.showSaveDialog({
      title: 'Export statuses',
      defaultPath: join(documentsDir(), suggestedName),
      filters: [{ name: extension.toUpperCase(), extensions: [extension] }],
    });
    if (answer.canceled || !answer.filePath) return null;
    await write(answer.filePath, content);
    return answer.filePath;
  };
}
