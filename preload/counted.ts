// A count in words ("1 status", "2 statuses"), shared by the window, the core's messages and the CLI.

/** `count` and the noun it counts, singular for one. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
