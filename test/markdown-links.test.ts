// No reference leaves the repository: every relative link in the project's Markdown files names a
// file or folder of the repository, so a clone has what its documents cite (the specification and
// the design notes included), every `#anchor` names a heading of the page it points to, and every
// Markdown document the code, scripts or configuration cite by path is in the repository.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/processes';

/**
 * The repository's Markdown files: those git tracks and those not yet added (git's ignore rules
 * leave out node_modules, dist and test results), so a new page is checked before its commit.
 */
function markdownFiles(): string[] {
  const { execFileSync } = process.getBuiltinModule(
    'node:child_process',
  ) as typeof import('node:child_process');
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return [...new Set(listed.split('\n'))].filter((file) => file !== '' && existsSync(join(REPO_ROOT, file)));
}

/** Text without its fenced code blocks. */
function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Text without its code blocks and code spans: a link written as code is an example, not a link. */
function withoutCode(markdown: string): string {
  return withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, '');
}

/**
 * The targets of a file's links and images: inline `[text](target "title")`, reference
 * definitions `[name]: target`, and HTML `href`/`src` attributes.
 */
function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  return [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ''),
    ...[...text.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm)].map((m) => m[1] ?? ''),
    ...[...text.matchAll(/\s(?:href|src)\s*=\s*"([^"]*)"/g)].map((m) => m[1] ?? ''),
  ];
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link of `file`, or null when it resolves inside the repository. */
function problem(file: string, target: string): string | null {
  const [pathPart = '', fragment] = target.split('#');
  const path =
    pathPart === '' ? join(REPO_ROOT, file) : resolve(REPO_ROOT, dirname(file), decodeURIComponent(pathPart));
  if (relative(REPO_ROOT, path).startsWith('..')) return 'leaves the repository';
  if (!existsSync(path)) return 'names nothing';
  if (fragment === undefined || !path.endsWith('.md') || statSync(path).isDirectory()) return null;
  return headingAnchors(readFileSync(path, 'utf8')).has(decodeURIComponent(fragment))
    ? null
    : 'names no heading';
}

/** The Markdown documents the code, scripts and configuration cite by path (`docs/cli.md`). */
function citedDocuments(): { file: string; cited: string }[] {
  const { execFileSync } = process.getBuiltinModule(
    'node:child_process',
  ) as typeof import('node:child_process');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => /\.(ts|tsx|mjs|js|json|ya?ml|sh|css|html)$/.test(file) || file === '.ci/run')
    .filter((file) => file !== 'test/markdown-links.test.ts' && existsSync(join(REPO_ROOT, file)));
  return files.flatMap((file) =>
    [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/[\w./-]*\w\.md\b/g)]
      .map((m) => m[0])
      .filter((cited) => !cited.includes('node_modules'))
      .map((cited) => ({ file, cited })),
  );
}

describe('the Markdown files', () => {
  it('link only to what the repository holds, and to headings that exist', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    expect(files).toContain('.github/CONTRIBUTING.md');
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(readFileSync(join(REPO_ROOT, file), 'utf8'))) {
        if (external(target)) continue;
        const wrong = problem(file, target);
        if (wrong) broken.push(`${file}: ${target} ${wrong}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('are where the code, scripts and configuration say they are', () => {
    const cited = citedDocuments();
    expect(cited.map((c) => c.cited)).toContain('main/core/api/seller-api.md');
    // From the repository's root or from the citing file's folder, and inside the repository.
    const found = (path: string) => !relative(REPO_ROOT, path).startsWith('..') && existsSync(path);
    const missing = cited.filter(
      ({ file, cited }) => !found(join(REPO_ROOT, cited)) && !found(resolve(REPO_ROOT, dirname(file), cited)),
    );
    expect(missing.map(({ file, cited }) => `${file}: ${cited}`)).toEqual([]);
  });

  it('finds every kind of link, and no link written as code', () => {
    // The check above would pass on any text without links: it must see the kinds it checks.
    const page = [
      'see [the spec](../elsewhere/spec.md "spec") and [a site](https://example.com)',
      '[notes]: docs/notes.md',
      '<img src="docs/images/inbox.png" alt="">',
      'an example, `[not a link](nowhere.md)`, and:',
      '```',
      '[nor this](nowhere.md)',
      '```',
    ].join('\n');
    expect(linkTargets(page)).toEqual([
      '../elsewhere/spec.md',
      'https://example.com',
      'docs/notes.md',
      'docs/images/inbox.png',
    ]);
  });

  it('names headings as GitHub anchors them', () => {
    const anchors = headingAnchors(
      '# Seller Tray\n## Links to orders: `seller-tray://order/<orderId>`\n## Updates (`main/shell/updater.ts`)\n## FAQ\n## FAQ\n```\n# not a heading\n```',
    );
    expect([...anchors]).toEqual([
      'seller-tray',
      'links-to-orders-seller-trayorderorderid',
      'updates-mainshellupdaterts',
      'faq',
      'faq-1',
    ]);
  });

  it('refuses a link that leaves the repository, names nothing, or names no heading', () => {
    expect(problem('docs/user-guide.md', '../../elsewhere/spec.md')).toBe('leaves the repository');
    expect(problem('docs/user-guide.md', 'no-such-page.md')).toBe('names nothing');
    expect(problem('docs/user-guide.md', '../README.md#no-such-heading')).toBe('names no heading');
    expect(problem('docs/user-guide.md', '../README.md#where-data-and-logs-live')).toBeNull();
  });
});
