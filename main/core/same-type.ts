// Compile-time checks that a zod schema reads exactly the type another module declares: the
// cross-process types live in preload/ (plain, for every process), their schemas here in main.

/** The named fields of a type, without its index signature (which would accept any field). */
type Named<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/** Whether each type's values are the other's. */
export type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Whether two object types have the same named fields, each accepting the same values. */
export type Same<A, B> =
  Mutual<keyof Named<A>, keyof Named<B>> extends true ? Mutual<Named<A>, Named<B>> : false;
