// The simulator's state file: written atomically (a temporary file renamed over the old
// one), coalesced so that a burst of changes costs one write.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** How long changes gather before they are written. */
const WRITE_DELAY_MS = 100;

export async function readState(file: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read simulator state ${file}: ${(error as Error).message}`);
  }
}

export async function writeStateAtomically(file: string, state: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
  await rename(temporary, file);
}

export class StateWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly snapshot: () => unknown,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Marks the state changed; it is written shortly. */
  changed(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, WRITE_DELAY_MS);
  }

  /** Writes pending changes now (on shutdown). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.write();
    }
    await this.writing;
  }

  private write(): Promise<void> {
    const state = this.snapshot();
    this.writing = this.writing
      .then(() => writeStateAtomically(this.file, state))
      .catch((error: Error) => this.onError(error));
    return this.writing;
  }
}
