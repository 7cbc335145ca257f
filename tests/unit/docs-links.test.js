// Every relative link and picture in README.md and docs/ leads somewhere: the file exists, and a
// `#anchor` is the slug of a heading of the page it points into (GitHub's rules). The pictures stay
// small enough for a page to load quickly: each at most 150 KB, together at most 1.5 MB.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const PAGES = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The page's text without fenced code blocks and with inline code spans blanked (links there are examples). */
function prose(markdown) {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]+`/g, 'code');
}

/** GitHub's heading anchors (github-slugger): lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function headingSlugs(markdown) {
  const seen = new Map();
  const slugs = new Set();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const shown = text
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link shows its text
      .replace(/[`*]/g, ''); // code and emphasis marks are not shown
    const base = shown
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n ? `${base}-${n}` : base);
  }
  return slugs;
}

/** Relative link and picture targets of a page: [text](target), ![alt](target), <img src="target">. */
function linkTargets(markdown) {
  const text = prose(markdown);
  const targets = [...text.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  targets.push(...[...text.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]));
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t)); // http:, https:, mailto: are not ours
}

/** What is wrong with each relative link of `page` (a path under root), as sentences. */
function brokenLinks(page, markdown = readFileSync(join(root, page), 'utf8')) {
  const problems = [];
  for (const target of linkTargets(markdown)) {
    const [path, anchor] = target.split('#');
    const file = path ? join(dirname(join(root, page)), decodeURIComponent(path)) : join(root, page);
    if (!existsSync(file)) {
      problems.push(`${page}: ${target}: no file ${relative(root, file)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!file.endsWith('.md') || statSync(file).isDirectory()) {
      problems.push(`${page}: ${target}: an anchor into ${relative(root, file)}, which has no headings`);
      continue;
    }
    const slugs = headingSlugs(path ? readFileSync(file, 'utf8') : markdown);
    if (!slugs.has(anchor)) problems.push(`${page}: ${target}: ${relative(root, file)} has no heading #${anchor}`);
  }
  return problems;
}

describe('links in the README and docs/', () => {
  it('finds links, pictures and anchors as GitHub does, and can fail', () => {
    const page = [
      '# The `<rigscope-viewer>` element: one tag',
      '## Loaders for three.js apps',
      '## Loaders for three.js apps',
      '## UE1 packages: `.u`, `.utx` (and `.umx`)',
      '[ok](#loaders-for-threejs-apps-1) [ok](#the-rigscope-viewer-element-one-tag) ![pic](docs/img/none.png)',
      '[ok](#ue1-packages-u-utx-and-umx) [web](https://example.org/x.md) `[not a link](nowhere.md)`',
      '[bad](#no-such-heading) [bad](docs/no-such-page.md) [bad](docs/cli.md#no-such-option)',
      '```',
      '[not a link](in-code.md)',
      '```',
    ].join('\n');
    expect([...headingSlugs(page)]).toEqual([
      'the-rigscope-viewer-element-one-tag',
      'loaders-for-threejs-apps',
      'loaders-for-threejs-apps-1',
      'ue1-packages-u-utx-and-umx',
    ]);
    expect(brokenLinks('README.md', page)).toEqual([
      'README.md: docs/img/none.png: no file docs/img/none.png',
      'README.md: #no-such-heading: README.md has no heading #no-such-heading',
      'README.md: docs/no-such-page.md: no file docs/no-such-page.md',
      'README.md: docs/cli.md#no-such-option: docs/cli.md has no heading #no-such-option',
    ]);
  });

  it.each(PAGES)('%s: every relative link and picture resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('every page of docs/ is reached from the README', () => {
    const reached = new Set(linkTargets(readFileSync(join(root, 'README.md'), 'utf8')).map((t) => t.split('#')[0]));
    expect(PAGES.filter((p) => p !== 'README.md' && !reached.has(p))).toEqual([]);
  });

  it('every picture in docs/img is shown somewhere, each at most 150 KB, together at most 1.5 MB', () => {
    const shown = new Set();
    for (const page of PAGES)
      for (const t of linkTargets(readFileSync(join(root, page), 'utf8')))
        shown.add(relative(root, join(dirname(join(root, page)), t.split('#')[0])));
    const pictures = readdirSync(join(root, 'docs/img')).map((f) => `docs/img/${f}`);
    expect(pictures.filter((p) => !shown.has(p))).toEqual([]);
    const sizes = pictures.map((p) => statSync(join(root, p)).size);
    expect(pictures.filter((p, i) => sizes[i] > 150 * 1024)).toEqual([]);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.5 * 1024 * 1024);
  });
});
