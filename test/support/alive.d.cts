// The types of alive.cjs (plain CommonJS so that a command under test can `require` it).
/** Whether the process runs (a zombie does not). */
export function alive(pid: number): boolean;
