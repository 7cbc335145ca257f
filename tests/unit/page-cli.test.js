// `rigscope page`: the standalone page from the command line. What the page holds is read back
// the way the page reads it (its pack, unpacked); exit codes: 0 written, 1 written but something
// given was not used / nothing to show, 2 a bad command line (with the usage).
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase64Url, unpackScene } from '../../web/src/core/pack.js';
import { PACK_TAG } from '../../web/src/core/page.js';
import { FIXTURES } from './helpers.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLI = `${ROOT}web/cli/rigscope.js`;
const TEMPLATE = `${ROOT}build/standalone/rigscope-page.html`;
const run = (...args) => spawnSync(process.execPath, [CLI, 'page', ...args], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'rigscope-page-'));

beforeAll(() => {
  if (!existsSync(TEMPLATE)) execFileSync(process.execPath, [`${ROOT}scripts/build-standalone.mjs`], { cwd: ROOT });
}, 120000);

/** The template (titled after the page's hero), and the files and state packed into a written page. */
async function readPage(path) {
  const html = readFileSync(path, 'utf8');
  const title = /<title>([^<]*) — Rigscope<\/title>/.exec(html)?.[1];
  expect(title).toBeTruthy();
  const template = readFileSync(TEMPLATE, 'utf8').replace('<title>Rigscope</title>', `<title>${title} — Rigscope</title>`);
  expect(html.startsWith(template)).toBe(true);
  const tag = html
    .slice(template.length)
    .match(new RegExp(`^<script type="application/octet-stream" id="${PACK_TAG}">([A-Za-z0-9_-]+)</script>\\n$`));
  expect(tag).not.toBeNull();
  const { files, state } = await unpackScene(fromBase64Url(tag[1]));
  return { files: files.map((f) => [f.name, f.bytes.length]), state };
}

describe('rigscope page', () => {
  it('writes the template with the files the scene uses, and the clip asked for (any case)', async () => {
    const out = join(dir, 'bone.html');
    const r = run(`${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`, '-o', out, '--clip', 'bend');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/bone\.html: .*, 2 file\(s\) .*, clip Bend\n$/);
    const page = await readPage(out);
    const size = (n) => readFileSync(`${FIXTURES}${n}`).length;
    expect(page.files).toEqual([
      ['two_bone.psk', size('two_bone.psk')],
      ['two_bone.psa', size('two_bone.psa')],
    ]);
    expect(page.state).toEqual({ clip: 'Bend' });
  });

  it("names a folder's files from the folder on, and leaves out what the scene does not use (exit 1)", async () => {
    const folder = join(dir, 'flag');
    mkdirSync(join(folder, 'Models'), { recursive: true });
    for (const n of ['flag_d.3d', 'flag_a.3d', 'flag.pcx']) copyFileSync(`${FIXTURES}${n}`, join(folder, 'Models', n));
    copyFileSync(`${FIXTURES}flag.uc`, join(folder, 'flag.uc'));
    // An animation for another skeleton: not played on anything, so not in the page.
    copyFileSync(`${FIXTURES}knight.psa`, join(folder, 'knight.psa'));
    const out = join(dir, 'flag.html');
    const r = run(folder, '-o', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/knight\.psa: not played on any model/);
    expect(r.stdout).toMatch(/4 file\(s\) .*; 1 file\(s\) left out \(not used\)\n$/);
    const page = await readPage(out);
    expect(page.files.map(([n]) => n).sort()).toEqual([
      'flag/Models/flag.pcx',
      'flag/Models/flag_a.3d',
      'flag/Models/flag_d.3d',
      'flag/flag.uc',
    ]);
    expect(page.state).toEqual({});
  });

  it('packs every level of a part and opens at the level asked for', async () => {
    const goblin = `${FIXTURES}lod_export/fmodel/Characters/Goblin`;
    const out = join(dir, 'goblin.html');
    const r = run(goblin, '-o', out, '--lod', 'ALL');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/5 file\(s\) .*, LOD all\n$/);
    const page = await readPage(out);
    expect(page.files.map(([n]) => n).sort()).toEqual([
      'Goblin/SK_Goblin_Cape_LOD0.psk',
      'Goblin/SK_Goblin_Cape_LOD1.psk',
      'Goblin/SK_Goblin_Torso_LOD0.psk',
      'Goblin/SK_Goblin_Torso_LOD1.psk',
      'Goblin/SK_Goblin_Torso_LOD2.psk',
    ]);
    expect(page.state).toEqual({ lod: 'all' });
    run(goblin, '-o', out, '--lod', '1');
    // In the links' words (text), as the viewer's Save page writes it: the player reads no number.
    expect((await readPage(out)).state).toEqual({ lod: '1' });
    run(goblin, '-o', out);
    expect((await readPage(out)).state).toEqual({});
  });

  it('refuses a bad command line with exit 2, the reason and the usage', () => {
    const psk = `${FIXTURES}two_bone.psk`;
    const cases = [
      [[psk], /page needs -o OUT\.html/],
      [[psk, '-o'], /-o needs a value/],
      [['-o', join(dir, 'x.html')], /usage: rigscope/],
      [[psk, '-o', join(dir, 'x.glb')], /-o .*x\.glb: the page is an \.html file/],
      [[psk, '-o', join(dir, 'x.html'), '--frame', '3'], /page does not take --frame/],
      [[`${FIXTURES}no-such-file.psk`, '-o', join(dir, 'x.html')], /no-such-file\.psk: no such file or folder/],
      [[psk, `${FIXTURES}two_bone.psa`, '-o', join(dir, 'x.html'), '--clip', 'Wave'], /--clip Wave: no clip of that name; clips: Bend/],
      [[psk, '-o', join(dir, 'x.html'), '--lod', 'finest'], /--lod finest: a level number \(0 is the finest\) or all/],
    ];
    for (const [args, message] of cases) {
      const r = run(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('rigscope page FILE|FOLDER... -o OUT.html [--clip NAME] [--lod N|all]');
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'x.html'))).toBe(false);
  });

  it('writes nothing when nothing can be shown (exit 1)', () => {
    const out = join(dir, 'nothing.html');
    const r = run(`${FIXTURES}two_bone.psa`, '-o', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/nothing to show: no mesh among the files/);
    expect(existsSync(out)).toBe(false);
  });
});
