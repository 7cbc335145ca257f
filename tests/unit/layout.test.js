// Layout of a scene: unrelated models side by side without overlap, scenery seen from inside
// told apart by which way its surface faces (in the bind pose, whatever its clips do).
import { describe, expect, it } from 'vitest';
import { characterBounds, layoutCharacters } from '../../web/src/core/layout.js';
import { decode, fixture, HAVE_SAMPLES, sample } from './helpers.js';

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
});
