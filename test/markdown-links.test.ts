// No reference leaves the repository: every relative link in the project's Markdown files names a
// file or folder of the repository, so a clone has what its documents cite (the specification and
// the design notes included).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/processes';

/** The Markdown files the repository tracks (git knows which; node_modules and the like are not among them). */
function markdownFiles(): string[] {
  const { execFileSync } = process.getBuiltinModule(
    'node:child_process',
  ) as typeof import('node:child_process');
  return execFileSync('git', ['ls-files', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '');
}

/** The targets of a file's links and images: `[text](target)`, less a `#fragment` and a title. */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#');

describe('the Markdown files', () => {
  it('link only to what the repository holds', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      for (const target of linkTargets(text).filter((t) => !external(t))) {
        const path = resolve(REPO_ROOT, dirname(file), decodeURIComponent(target.split('#')[0] ?? ''));
        const inside = !relative(REPO_ROOT, path).startsWith('..');
        if (!inside || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds a link that leaves the repository', () => {
    // The check above would pass on any text without links: it must see the kind it forbids.
    expect(
      linkTargets('see [the spec](../elsewhere/spec.md "spec") and [a site](https://example.com)'),
    ).toEqual(['../elsewhere/spec.md', 'https://example.com']);
  });
});
