// A UE1 mesh without its script is one clip of all its frames (issue #43: 1,498 frames ran for
// hours in GLTFExporter's per-target merge). `rigscope convert` writes it as one weights track per
// clip; the GLB validates, and three's GLTFLoader reads back every frame as a morph target named
// frame_N, the one clip, and at each sampled keyframe that frame's target alone at full weight,
// posing the mesh where the decoded model's frame puts it.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as THREE from 'three';
import { validateBytes } from 'gltf-validator';
import { buildScene } from '../../web/cli/convert.js';
import { decoder, glbJson, HAVE_SAMPLES, reimport, SAMPLES, writeUe1Wave } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;

/** `rigscope convert` of `paths`; the GLB it wrote. */
function convert(paths) {
  const out = join(mkdtempSync(join(tmpdir(), 'rigscope-long-clip-')), 'out.glb');
  const run = spawnSync(process.execPath, [CLI, 'convert', ...paths, '-o', out], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const b = readFileSync(out);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
}

/** The converted GLB of a script-less mesh against its decoded model: one clip of every frame. */
async function expectOneLongClip(paths, frames) {
  const glb = convert(paths);
  const report = await validateBytes(new Uint8Array(glb));
  expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  const { characters } = await buildScene(paths, await decoder());
  const [character] = characters;
  const [clip] = character.clips;
  expect(character.clips.map((c) => c.name)).toEqual(['All']);
  const va = character.vertexAnimations[0].data;
  expect(va.frameCount).toBe(frames);

  // One channel of every target's weight, a keyframe per frame (and the wrap key of a loop).
  const keys = frames + (clip.loop ? 1 : 0);
  const json = glbJson(glb);
  expect(json.animations.map((a) => a.name)).toEqual(['All']);
  const [animation] = json.animations;
  expect(animation.channels.map((c) => c.target.path)).toEqual(['weights']);
  const sampler = animation.samplers[animation.channels[0].sampler];
  expect(json.accessors[sampler.input].count).toBe(keys);
  expect(json.accessors[sampler.output].count).toBe(keys * frames);

  const gltf = await reimport(glb);
  const meshes = [];
  gltf.scene.traverse((o) => o.isMesh && meshes.push(o));
  // A mesh of several materials reads back as one three.js mesh per primitive, sharing its vertices.
  expect(json.nodes.filter((n) => n.mesh !== undefined).map((n) => n.name)).toEqual(character.meshes.map((m) => m.name));
  const names = Array.from({ length: frames }, (_, f) => `frame_${f}`);
  for (const m of meshes) expect(Object.keys(m.morphTargetDictionary)).toEqual(names);
  const [mesh] = meshes;
  expect(gltf.animations.map((a) => a.name)).toEqual(['All']);
  const [track] = gltf.animations[0].tracks;
  expect(track.times.length).toBe(keys);

  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(gltf.animations[0]).play();
  const stride = va.vertexCount * 3;
  const size = va.frames.reduce((m, x) => Math.max(m, Math.abs(x)), 0); // the model's reach from its origin
  const v = new THREE.Vector3();
  const sampled = [0, 1, Math.floor(frames / 2), frames - 1, ...(clip.loop ? [frames] : [])];
  for (const k of sampled) {
    const frame = k % frames; // the wrap key shows frame 0 again
    const weights = Array.from(track.values.subarray(k * frames, (k + 1) * frames));
    expect(weights.flatMap((w, t) => (w ? [[t, w]] : []))).toEqual([[frame, 1]]);
    mixer.setTime(track.times[k]);
    let error = 0;
    for (let i = 0; i < stride / 3; i++) {
      mesh.getVertexPosition(i, v);
      for (let c = 0; c < 3; c++) error = Math.max(error, Math.abs(v.getComponent(c) - va.frames[frame * stride + i * 3 + c]));
    }
    expect(error).toBeLessThanOrEqual(1e-5 * size);
  }
}

describe('a UE1 mesh without its script: one clip of all its frames', () => {
  it('1,498 frames convert to one weights track, every sampled keyframe that frame alone', async () => {
    await expectOneLongClip(writeUe1Wave(mkdtempSync(join(tmpdir(), 'rigscope-wave-')), 20, 1498), 1498);
  }, 120_000);

  it.skipIf(!HAVE_SAMPLES)(
    'the longest loose samples without their scripts: sg_GL1st (86 frames), the marine rifle (30)',
    async () => {
      await expectOneLongClip([`${SAMPLES}upackage/sources/sg_GL1st_d.3d`, `${SAMPLES}upackage/sources/sg_GL1st_a.3d`], 86);
      const rifle = `${SAMPLES}vertex3d/assimp-mar_rifle/mar_rifle`;
      await expectOneLongClip([`${rifle}_d.3d`, `${rifle}_a.3d`], 30);
    },
    120_000,
  );
});
