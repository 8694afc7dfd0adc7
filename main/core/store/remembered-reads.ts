// Inbox reads kept while what they stand on has not changed: one store's counts and keys
// (AccountStore), and a whole page across accounts (inbox-across.ts), each checked by a version
// (what the stores have written) and the time span the read holds for.

interface Kept {
  version: string;
  from: number;
  until: number;
  value: unknown;
}

export class RememberedReads {
  private readonly kept = new Map<string, Kept>();

  /** `most`: how many reads are kept, the oldest forgotten first. */
  constructor(private readonly most: number) {}

  /**
   * The read named `name` as last made, while the version is the same and `when` (ms) lies in
   * [the moment it was read, the moment the list regroups by the clock alone (`regroupsAt`)):
   * between those, the same read reads the same. Otherwise read again, and kept. (A version never
   * comes back, so a read kept under an old one is never served: it waits to be forgotten.)
   * `covers`, when given, also asks whether the kept value holds what is wanted now (a run of rows
   * holding the rows asked for); a value that does not is read again and replaces it.
   */
  read<T>(
    name: string,
    version: string,
    when: number,
    read: () => { value: T; regroupsAt: string | null },
    covers: (kept: T) => boolean = () => true,
  ): T {
    const kept = this.kept.get(name);
    if (kept?.version === version && when >= kept.from && when < kept.until && covers(kept.value as T)) {
      return kept.value as T;
    }
    const { value, regroupsAt } = read();
    const until = regroupsAt === null ? Number.POSITIVE_INFINITY : Date.parse(regroupsAt);
    this.kept.delete(name);
    if (this.kept.size >= this.most) this.kept.delete(this.kept.keys().next().value ?? '');
    this.kept.set(name, { version, from: when, until, value });
    return value;
  }

  forget(): void {
    this.kept.clear();
  }
}

/** A query's time (ISO) as ms, 0 when absent or unreadable (the span check then holds for it alone). */
export function readAt(now: string | undefined): number {
  const at = Date.parse(now ?? '');
  return Number.isFinite(at) ? at : 0;
}
