// The import graph's layers (decoder → core → families → three → element → app, the CLI beside
// app) and no cycles, checked by dependency-cruiser with the rules in .dependency-cruiser.cjs.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';

const root = new URL('../..', import.meta.url).pathname;
const rules = createRequire(import.meta.url)('../../.dependency-cruiser.cjs');

/** Rule breaks as `rule: from → to`, cruising `files` (paths from the repository root). */
async function violations(files, forbidden = rules.forbidden, options = rules.options) {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(files, { ...options, ruleSet: { forbidden }, validate: true });
    return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe('architecture', () => {
  it('has no import that runs up a layer, and no cycle', async () => {
    expect(await violations(['web'])).toEqual([]);
  }, 60000);

  it('would catch a lower layer importing a higher one, and a cycle', async () => {
    // The same rules over a small tree built to break them: proves the check can fail.
    const dir = mkdtempSync(`${root}build/arch-`);
    const rel = dir.slice(root.length);
    try {
      for (const d of ['web/src/core', 'web/src/app']) mkdirSync(`${dir}/${d}`, { recursive: true });
      writeFileSync(`${dir}/web/src/core/a.js`, "import './b.js';\nimport '../app/page.js';\n");
      writeFileSync(`${dir}/web/src/core/b.js`, "import './a.js';\n");
      writeFileSync(`${dir}/web/src/app/page.js`, 'export {};\n');
      const rebased = rules.forbidden.map((r) => JSON.parse(JSON.stringify(r).replaceAll('^web/', `^${rel}/web/`)));
      const found = (await violations([`${rel}/web`], rebased, {})).map((v) => v.split(':')[0]);
      expect(found).toContain('core-imports-only-below');
      expect(found).toContain('no-cycles');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60000);
});
