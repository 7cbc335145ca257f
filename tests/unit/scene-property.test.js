// Property-based tests of the layers above the decoders: random sets of files (real fixtures,
// truncated copies and junk) under random names — archive and cache names, Unicode, duplicates in
// other folders, companions missing — go through the decode stage and the scene assembler. They
// never throw, and every file is accounted for: decoded and used, or in a report record.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sceneToJSON } from '../../web/src/core/scene.js';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { decoder, fixture } from './helpers.js';

const SOURCES = [
  'two_bone.psk',
  'two_bone.psa',
  'knight_head.psk',
  'knight_body.psk',
  'knight.psa',
  'arm.pmd',
  'arm_wave.psa',
  'arm_bad.psa',
  'old_v1.pmd',
  'flag_d.3d',
  'flag_a.3d',
  'flag.uc',
  'flag.pcx',
  'dx_box_d.3d',
  'dx_box_a.3d',
  'skinned_box.psg',
  'box_textures.psg',
  'static.pskx',
  'morph.psk',
];
const BYTES = Object.fromEntries(SOURCES.map((n) => [n, fixture(n)]));

/** A file: which fixture, cut short or not, under which name in which folder. */
const fileArb = fc.record({
  source: fc.constantFrom(...SOURCES, 'junk', 'empty', 'actor'),
  cut: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
  folder: fc.constantFrom('', 'Mod/', 'Mod/Models/', 'другая папка/', 'a/b/c/'),
  name: fc.oneof(
    fc.constant(null), // its own name
    fc.constantFrom(
      'X.dae.cached.pmd',
      'walk.dae.0123456789abcdef.psa',
      'skin.png.cached.dds',
      'héros.psk',
      '角色_d.3d',
      '角色_a.3d',
      'evil\u202Ekcp.exe.psk',
      'Two_Bone.config',
      'a.mat',
      'b.props.txt',
      'c.json',
      'actor.xml',
      'README.md',
      'x_a.3d',
      'x_d.3d',
    ),
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => `${s.replace(/[\\/]/g, '_')}.psa`),
  ),
});

function bytesOf(f) {
  if (f.source === 'junk') return new TextEncoder().encode('not a model, just words\n'.repeat(3));
  if (f.source === 'empty') return new Uint8Array(0);
  if (f.source === 'actor')
    return new TextEncoder().encode(
      '<actor version="1"><group><variant><mesh>arm.dae</mesh><props><prop actor="actor.xml" attachpoint="prop_hand"/></props><animations><animation name="death" file="arm_wave.dae"/></animations></variant></group></actor>',
    );
  const b = BYTES[f.source];
  return f.cut === null ? b : b.subarray(0, Math.min(f.cut, b.length));
}

function accounted(set, scene) {
  const seen = new Set();
  for (const m of [...set.models, ...set.animations]) for (const f of m.files) seen.add(f);
  for (const t of set.textures) seen.add(t.path);
  for (const t of set.texts) seen.add(t.path);
  for (const r of scene.records) for (const f of r.files) seen.add(f);
  return seen;
}

describe('the scene of random file sets', () => {
  it('never throws and accounts for every file', async () => {
    const d = await decoder();
    await fc.assert(
      fc.asyncProperty(fc.array(fileArb, { minLength: 1, maxLength: 12 }), async (files) => {
        const entries = files.map((f, i) =>
          entryFromBytes(
            `${f.folder}${f.name ?? f.source}${files.slice(0, i).some((g) => `${g.folder}${g.name ?? g.source}` === `${f.folder}${f.name ?? f.source}`) ? `.${i}` : ''}`,
            bytesOf(f),
          ),
        );
        const set = await decodeFiles(entries, d);
        const scene = await assembleScene(set);
        const json = sceneToJSON(scene);
        expect(JSON.parse(JSON.stringify(json))).toEqual(json);
        const seen = accounted(set, scene);
        for (const e of entries) expect(seen.has(e.path)).toBe(true);
      }),
      { numRuns: 120, seed: 20261122 },
    );
  }, 120000);

  it('assembles the same scene whatever order the files come in', async () => {
    const d = await decoder();
    const names = [
      'knight_head.psk',
      'knight_body.psk',
      'knight_armour.psk',
      'knight.psa',
      'arm.pmd',
      'arm_wave.psa',
      'flag_d.3d',
      'flag_a.3d',
      'flag.uc',
      'flag.pcx',
    ];
    const scene = async (order) =>
      sceneToJSON(
        await assembleScene(
          await decodeFiles(
            order.map((n) => entryFromBytes(n, fixture(n))),
            d,
          ),
        ),
      );
    const reference = await scene(names);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(names, { minLength: names.length, maxLength: names.length }), async (order) => {
        expect(await scene(order)).toEqual(reference);
      }),
      { numRuns: 25, seed: 7 },
    );
  }, 120000);
});

describe('the CLI on random file names', () => {
  it('inspect and scene never crash and list every file', () => {
    const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
    fc.assert(
      fc.property(fc.array(fileArb, { minLength: 1, maxLength: 8 }), (files) => {
        const dir = mkdtempSync(join(tmpdir(), 'rigscope-prop-'));
        const paths = [];
        files.forEach((f, i) => {
          const folder = join(dir, `${i}`, f.folder);
          mkdirSync(folder, { recursive: true });
          const path = join(folder, f.name ?? f.source);
          writeFileSync(path, bytesOf(f));
          paths.push(path);
        });
        const inspect = spawnSync(process.execPath, [CLI, 'inspect', dir, '--json'], { encoding: 'utf8' });
        expect(inspect.stderr).not.toMatch(/TypeError|ReferenceError|Cannot read/);
        const records = JSON.parse(inspect.stdout);
        expect(records.map((r) => r.file).sort()).toEqual([...paths].sort());
        const scene = spawnSync(process.execPath, [CLI, 'scene', dir, '--json'], { encoding: 'utf8' });
        expect(scene.stderr).not.toMatch(/TypeError|ReferenceError|Cannot read/);
        expect(() => JSON.parse(scene.stdout)).not.toThrow();
      }),
      { numRuns: 12, seed: 42 },
    );
  }, 300000);
});
