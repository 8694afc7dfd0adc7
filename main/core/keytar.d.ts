// keytar is an optional dependency: where its native build fails, its types go with it. The app
// types what it uses of keytar itself (KeytarApi in secrets.ts, KeychainForTests in the tests), so
// the typecheck passes either way.
declare module 'keytar';
