// The simulator's state file: written durably and atomically (the core's own writer),
// coalesced so that a burst of changes costs one write.
import { readTextIfExists, writeFileDurably } from '../main/core/durable-file';

/** How long changes gather before they are written. */
const WRITE_DELAY_MS = 100;

/** A state file that cannot be used: unreadable, not JSON, or not a marketplace's state (`reason` says which). */
export class StateFileError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

export async function readState(file: string): Promise<unknown | undefined> {
  try {
    const text = await readTextIfExists(file);
    return text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw new StateFileError(`cannot read simulator state ${file}: ${reason}`, reason);
  }
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
      .then(() => writeFileDurably(this.file, JSON.stringify(state)))
      .catch((error: Error) => this.onError(error));
    return this.writing;
  }
}
