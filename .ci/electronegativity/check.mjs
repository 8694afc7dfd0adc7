// Electronegativity (Doyensec's scanner for Electron security anti-patterns) over the app's own
// sources: the main process, the preload and the renderer, tests left out. Every finding must be
// listed in accepted-findings.json with the reason it is not a problem; a finding not listed, or a
// listed one no longer found, fails (so the list stays true). Run by .ci/run, and by
// `npm run electronegativity` after `npm ci --prefix .ci/electronegativity`.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
// Its programmatic entry, which also returns the files it could not parse (the command line
// prints those only when it writes no report).
const scan = createRequire(import.meta.url)('@doyensec/electronegativity/dist/runner.js');
const SOURCES = ['main', 'preload', 'renderer'];
const isTestFile = (path) => /\.test\.tsx?$/.test(path);

const input = mkdtempSync(join(tmpdir(), 'electronegativity-'));
try {
  for (const dir of SOURCES) {
    cpSync(join(root, dir), join(input, dir), {
      recursive: true,
      filter: (path) => !isTestFile(relative(root, path)),
    });
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const electron = pkg.devDependencies.electron.replace(/^[^\d]*/, '');
  // It also tries to fetch Electron's release list and its translations; offline it says so in
  // words that read as failures and carries on with the version given. Those lines are expected
  // here (no internet) and are left out; anything else it prints is passed on.
  const OFFLINE =
    /^(Could not retrieve updated translations|Fetching Electron's new releases|Something went wrong while fetching Electron's releases)/;
  const { log, error } = console;
  const passOn =
    (write) =>
    (first, ...rest) => {
      if (!OFFLINE.test(String(first))) write(first, ...rest);
    };
  console.log = passOn(log);
  console.error = passOn(error);
  let result;
  try {
    result = await scan({
      input,
      customScan: [],
      isRelative: true,
      isVerbose: false,
      electronVersionOverride: electron,
      parserPlugins: [],
    });
  } finally {
    console.log = log;
    console.error = error;
  }
  const { issues, errors } = result;
  const unparsed = errors.filter((e) => !e.tolerable);
  for (const e of unparsed)
    console.error(`not scanned, could not be parsed: ${relative(input, e.file)}: ${e.message}`);

  const line = (file, number) =>
    readFileSync(join(input, file), 'utf8').split('\n')[number - 1]?.trim() ?? '';
  /** A finding by its check, file and line of code: stable when lines move. */
  const found = issues.map((issue) => ({
    check: issue.id,
    file: issue.file,
    code: issue.file === 'N/A' ? '' : line(issue.file, issue.location.line),
  }));
  const accepted = JSON.parse(readFileSync(join(here, 'accepted-findings.json'), 'utf8'));
  const key = (f) => `${f.check} ${f.file}: ${f.code}`;
  const acceptedKeys = new Set(accepted.map(key));
  const foundKeys = new Set(found.map(key));
  const fresh = found.filter((f) => !acceptedKeys.has(key(f)));
  const gone = accepted.filter((f) => !foundKeys.has(key(f)));

  for (const f of fresh) console.error(`new finding: ${key(f)}`);
  for (const f of gone) console.error(`accepted but no longer found (remove it): ${key(f)}`);
  if (fresh.length > 0) {
    console.error(
      'Fix each new finding, or add it to .ci/electronegativity/accepted-findings.json with its reason.',
    );
  }
  const clean = fresh.length + gone.length + unparsed.length === 0;
  console.log(`electronegativity: ${found.length} findings, all accepted${clean ? '' : ': no'}`);
  process.exitCode = clean ? 0 : 1;
} finally {
  rmSync(input, { recursive: true, force: true });
}
