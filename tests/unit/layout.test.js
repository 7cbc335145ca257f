// Layout of a scene: unrelated models side by side without overlap, scenery seen from inside
// told apart by which way its surface faces (in the bind pose, whatever its clips do).
import { describe, expect, it } from 'vitest';
import { characterBounds, chooseHero, layoutCharacters } from '../../web/src/core/layout.js';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { entriesFromPaths } from '../../web/cli/entries.js';
import { decode, decoder, fixture, HAVE_SAMPLES, sample, SAMPLES } from './helpers.js';

const character = (model, extra = {}) => ({ models: [model], ...extra });
const moved = (sc) => {
  const b = sc.motionBounds ?? characterBounds(sc);
  return { min: b.min.map((v, k) => v + sc.offset[k]), max: b.max.map((v, k) => v + sc.offset[k]) };
};
const overlap = (a, b) => [0, 1, 2].every((k) => a.min[k] < b.max[k] && b.min[k] < a.max[k]);

describe('layout', () => {
  it('stands unrelated models side by side on the ground, with room for their motion', async () => {
    const strip = await decode('decodePsk', fixture('two_bone.psk'), 'two_bone.psk');
    const cube = await decode('decodePsk', fixture('static.pskx'), 'static.pskx');
    const arm = await decode('decodePmd', fixture('arm.pmd'), 'arm.pmd');
    // The strip bends forward in its clip: its motion bounds reach 10 units out in z.
    const list = [character(strip, { motionBounds: { min: [-1, 0, 0], max: [1, 20, 10] } }), character(cube), character(arm)];
    layoutCharacters(list);
    expect(list.map((c) => c.enclosing)).toEqual([false, false, false]);
    const boxes = list.map(moved);
    for (let i = 0; i < 3; i++) {
      expect(boxes[i].min[1]).toBeCloseTo(0, 5); // on the ground
      for (let j = i + 1; j < 3; j++) expect(overlap(boxes[i], boxes[j])).toBe(false);
    }
  });

  it('leaves a model alone where it is', async () => {
    const strip = character(await decode('decodePsk', fixture('two_bone.psk'), 'two_bone.psk'));
    layoutCharacters([strip]);
    expect(strip.offset).toEqual([0, 0, 0]);
  });

  it.skipIf(!HAVE_SAMPLES)('shows the sky dome apart: seen from inside, hidden while there are models', async () => {
    const sky = character(await decode('decodePsg', sample('psg/skybox_night.psg'), 'skybox_night.psg'));
    const strip = character(await decode('decodePsk', fixture('two_bone.psk'), 'two_bone.psk'));
    layoutCharacters([sky]);
    expect([sky.enclosing, sky.hidden]).toEqual([true, false]);
    layoutCharacters([sky, strip]);
    expect([sky.enclosing, sky.hidden, strip.enclosing, strip.hidden]).toEqual([true, true, false, false]);
  });

  it('stands the hero at the origin and every other model behind it, small ones near, big ones in rows of their own', async () => {
    const strip = await decode('decodePsk', fixture('two_bone.psk'), 'two_bone.psk');
    const cube = await decode('decodePsk', fixture('static.pskx'), 'static.pskx');
    // A prop that sorts first, 100 times the hero's size, and small props of the hero's size.
    const big = { min: [0, 0, 0], max: [100, 100, 100] };
    const list = [
      character(cube, { name: 'aaa_building', motionBounds: big }),
      ...[0, 1, 2, 3, 4, 5].map((i) => character(cube, { name: `prop${i}` })),
      character(strip, { name: 'hero', clips: [{ frames: 30 }, { frames: 10 }] }),
    ];
    layoutCharacters(list);
    const hero = list.at(-1);
    expect(chooseHero(list)).toBe(hero);
    expect(list.map((c) => c.hero)).toEqual([false, false, false, false, false, false, false, true]);
    const boxes = list.map(moved);
    const h = boxes.at(-1);
    // Centred on the origin, on the ground.
    expect((h.min[0] + h.max[0]) / 2).toBeCloseTo(0, 5);
    expect((h.min[2] + h.max[2]) / 2).toBeCloseTo(0, 5);
    expect(h.min[1]).toBeCloseTo(0, 5);
    // Nothing stands in front of the hero (the default camera looks from +z): none can hide it.
    for (const b of boxes.slice(0, -1)) expect(b.max[2]).toBeLessThan(h.min[2]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i], boxes[j])).toBe(false);
    // The props stand near each other, spaced for their size, not the building's: all of them
    // within a few of their own sizes of the hero; the building behind them.
    const props = boxes.slice(1, -1);
    for (const b of props) expect(Math.max(Math.abs(b.min[0]), Math.abs(b.max[0]), Math.abs(b.min[2]))).toBeLessThan(6);
    for (const b of props) expect(boxes[0].max[2]).toBeLessThan(b.min[2]);
  });

  it('chooses the hero by clips with motion, then clips, then vertices; never scenery while there are models', () => {
    const mesh = (n) => ({ meshes: [{ positions: new Float32Array(n * 3), indices: new Uint32Array(0) }] });
    const one = (name, n, clips = [], extra = {}) => ({ name, models: [mesh(n)], clips, ...extra });
    const pose = { frames: 1 };
    const walk = { frames: 30 };
    const a = one('a', 1000, [pose, pose]);
    const b = one('b', 10, [walk]);
    const c = one('c', 20, [walk]);
    expect(chooseHero([a, b])).toBe(b); // a moving clip beats two poses
    expect(chooseHero([a, b, c])).toBe(c); // then vertices
    expect(chooseHero([b, one('b2', 10, [walk])])).toBe(b); // a tie: the first
    expect(chooseHero([one('sky', 5000, [walk, walk], { enclosing: true }), b])).toBe(b);
    expect(chooseHero([one('sky', 5000, [], { enclosing: true })]).name).toBe('sky');
    expect(chooseHero([one('empty', 0, [walk, walk])])).toBe(null);
  });

  // The sample folders decoded through the WASM in Node, assembled as every output assembles them.
  const heroOf = async (paths) => {
    const scene = await assembleScene(await decodeFiles(await entriesFromPaths(paths), await decoder()));
    return { scene, hero: scene.characters.find((c) => c.hero) };
  };

  it.skipIf(!HAVE_SAMPLES)(
    'finds the hero of real mod folders, alone and all dropped together',
    async () => {
      // The marine's rifle is the one model of vertex3d with motion; its props have one-frame poses.
      expect((await heroOf([`${SAMPLES}vertex3d`])).hero.name).toBe('mar_rifle_d.3d');
      // Four one-frame props: the one of the most vertices, not the flat sheet whose name sorts first.
      const fire = await heroOf([`${SAMPLES}vertex3d/firetrucks`]);
      const verts = (sc) => sc.models.reduce((n, m) => n + m.meshes.reduce((k, x) => k + x.positions.length / 3, 0), 0);
      expect(fire.hero.name).not.toBe('FlatSheet_d.3d');
      expect(verts(fire.hero)).toBe(Math.max(...fire.scene.characters.map(verts)));
      // Every family's folder at once: the one with the most clips with motion.
      const all = await heroOf([SAMPLES]);
      const moving = (sc) => sc.clips.filter((k) => k.frames > 2).length;
      expect(moving(all.hero)).toBe(Math.max(...all.scene.characters.map(moving)));
      expect(moving(all.hero)).toBeGreaterThan(1);
    },
    120000,
  );
});
