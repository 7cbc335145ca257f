// A UE1 mesh without its script is one clip of all its frames (issue #43: 1,498 frames ran for
// hours in GLTFExporter's per-target merge). `rigscope convert` writes it as one weights track per
// clip; the GLB validates, and three's GLTFLoader reads back every frame as a morph target named
// frame_N, the one clip, and at each sampled keyframe that frame's target alone at full weight,
// posing the mesh where the decoded model's frame puts it.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as THREE from 'three';
import { validateBytes } from 'gltf-validator';
import { buildScene } from '../../web/cli/convert.js';
import { decoder, glbJson, HAVE_SAMPLES, reimport, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;

/** A `_d.3d` of a `side` × `side` grid of vertices, two triangles a cell (spec §2). */
function gridData(side) {
  const cells = (side - 1) ** 2;
  const out = new DataView(new ArrayBuffer(48 + 16 * 2 * cells));
  out.setUint16(0, 2 * cells, true);
  out.setUint16(2, side * side, true);
  let at = 48;
  const triangle = (a, b, c, u, v) => {
    [a, b, c].forEach((i, k) => out.setUint16(at + 2 * k, i, true));
    [u, v, u + 8, v, u, v + 8].forEach((x, k) => out.setUint8(at + 8 + k, x));
    out.setUint8(at + 14, 1); // texture slot 1, as UT meshes number them
    at += 16;
  };
  for (let y = 0; y < side - 1; y++)
    for (let x = 0; x < side - 1; x++) {
      const i = y * side + x;
      triangle(i, i + 1, i + side, x * 8, y * 8);
      triangle(i + 1, i + side + 1, i + side, x * 8, y * 8);
    }
  return new Uint8Array(out.buffer);
}

/** An `_a.3d` of `frames` packed 11:11:10 frames (spec §3.2) of the grid waving: every frame differs. */
function waveAnim(side, frames) {
  const n = side * side;
  const out = new DataView(new ArrayBuffer(4 + frames * n * 4));
  out.setUint16(0, frames, true);
  out.setUint16(2, n * 4, true);
  for (let f = 0; f < frames; f++)
    for (let i = 0; i < n; i++) {
      const [x, y] = [(i % side) * 40 - 400, Math.floor(i / side) * 40 - 400];
      const z = Math.round(300 * Math.sin(f * 0.05 + (i % side) * 0.3 + Math.floor(i / side) * 0.2));
      out.setUint32(4 + (f * n + i) * 4, ((x & 0x7ff) | ((y & 0x7ff) << 11) | ((z & 0x3ff) << 22)) >>> 0, true);
    }
  return new Uint8Array(out.buffer);
}

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
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-wave-'));
    await writeFile(join(dir, 'wave_d.3d'), gridData(20));
    await writeFile(join(dir, 'wave_a.3d'), waveAnim(20, 1498));
    await expectOneLongClip([join(dir, 'wave_d.3d'), join(dir, 'wave_a.3d')], 1498);
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
