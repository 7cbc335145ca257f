import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { App } from '../../web/src/app/app.js';
import { Character } from '../../web/src/three/character.js';
import { VertexAnimation } from '../../web/src/three/vertex-animation.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { describeRecord } from '../../web/src/core/report.js';
import { bytes, decode, decoder, fixture, FIXTURES, HAVE_SAMPLES, sample, SAMPLES, fakeViewer } from './helpers.js';

const text = (path) => readFileSync(path, 'utf8');
const ue1 = (dir, base, uc = '', ucName = '') =>
  decode(
    'decodeUe1',
    new Uint8Array(readFileSync(`${dir}${base}_d.3d`)),
    `${base}_d.3d`,
    new Uint8Array(readFileSync(`${dir}${base}_a.3d`)),
    `${base}_a.3d`,
    uc,
    ucName,
  );
const flag = () => ue1(FIXTURES, 'flag', text(`${FIXTURES}flag.uc`), 'flag.uc');

const lines = (report) => report.records.map((r) => describeRecord(r));
const appWith = async () => new App(fakeViewer(), await decoder());

/** Shows `seqName` at `frame` (the file's own frame number) the way the viewer does. */
function showFrame(character, seqName, frame) {
  const clip = character.clips.find((c) => c.name === seqName);
  clip.select(true);
  character.mixer.stopAllAction();
  character.mixer.clipAction(clip.build()).play();
  character.mixer.setTime((frame - clip.firstFrame) / clip.fps);
  character.update();
  return character.meshes[0];
}

/** The render vertex whose UV is (U/256, 1 − V/256). */
function byUV(model, U, V) {
  const uv = model.meshes[0].uvs[0];
  for (let i = 0; i < uv.length / 2; i++)
    if (Math.abs(uv[2 * i] - U / 256) < 1e-6 && Math.abs(uv[2 * i + 1] - (1 - V / 256)) < 1e-6) return i;
  return -1;
}

// Independent reading of the raw files (spec §2.2, §3.2, §3.3, §0 transform with origin 0, no rotation).
function rawVertex(anim, numVertices, frame, v) {
  const frameSize = anim[2] | (anim[3] << 8);
  const view = new DataView(anim.buffer, anim.byteOffset);
  const at = 4 + frame * frameSize;
  if (frameSize === 8 * numVertices) return [0, 2, 4].map((k) => view.getInt16(at + v * 8 + k, true));
  const w = view.getUint32(at + v * 4, true);
  return [(w << 21) >> 21, (w << 10) >> 21, w >> 22];
}
const toThree = ([x, y, z], [sx, sy, sz]) => new THREE.Vector3(-y * sy, z * sz, x * sx);

describe('UE1 fixtures through the WASM module', () => {
  it('decodes the flag with its documented facts', async () => {
    const m = await flag();
    expect(m.format).toBe('ue1');
    expect(m.counts).toMatchObject({ polygons: 64, vertices: 45, renderVertices: 45, triangles: 64, frames: 24 });
    expect(m.info).toMatchObject({ encoding: 'packed', types: 'two-sided ×64', textureNumbers: '0', scale: '0.1 0.1 0.2' });
    expect(m.materials.map((x) => [x.name, x.twoSided, x.blend, x.textureNames])).toEqual([
      ['tex0_twosided', true, 'opaque', ['flag', 'FlagTex']],
    ]);
    expect(m.vertexAnimation.sequences.map((s) => [s.name, s.startFrame, s.frameCount, s.rate])).toEqual([
      ['Still', 0, 1, 12],
      ['Wave', 1, 23, 12],
    ]);
    const va = m.vertexAnimation;
    const at = (frame, col, row) =>
      new THREE.Vector3().fromArray(
        va.frames,
        (frame * va.vertexCount + byUV(m, Math.min(col * 32, 255), Math.min((4 - row) * 64, 255))) * 3,
      );
    expect(at(0, 0, 0).distanceTo(new THREE.Vector3(6.4, 0, 0))).toBeLessThan(1e-5);
    expect(at(3, 8, 4).distanceTo(new THREE.Vector3(-6.4, 6.4, 3.2))).toBeLessThan(1e-5);
    expect(at(7, 8, 4).distanceTo(new THREE.Vector3(-6.4, 6.4, -3.2))).toBeLessThan(1e-5);
    expect(at(3, 4, 2).distanceTo(new THREE.Vector3(0, 3.2, -1.6))).toBeLessThan(1e-5);
    for (let i = 0; i < 45; i++) expect(va.normals[i * 3 + 2]).toBeCloseTo(1, 5);
  });

  it('decodes the Deus Ex box with its hidden weapon triangle and attachment', async () => {
    const m = await ue1(FIXTURES, 'dx_box');
    expect(m.info.encoding).toBe('dx16');
    expect(m.counts.renderVertices).toBe(23);
    expect(m.materials.map((x) => [x.name, x.hidden])).toEqual([
      ['tex0_normal', false],
      ['weapon', true],
      ['tex1_normal', false],
    ]);
    expect(m.warnings.join()).toMatch(/MESHMAP SCALE/);
    const [a] = m.attachments;
    expect(a.name).toBe('weapon');
    expect(Array.from(a.translation)).toEqual([0, 0, 3500]);
    [0.70711, 0, 0.70711, 0].forEach((q, k) => expect(Math.abs(a.rotation[k])).toBeCloseTo(q, 4));
    const va = m.vertexAnimation;
    const r = [...Array(va.vertexCount).keys()].find(
      (i) => new THREE.Vector3().fromArray(va.frames, i * 3).distanceTo(new THREE.Vector3(-2000, 1000, 3000)) < 1e-3,
    );
    expect(new THREE.Vector3().fromArray(va.frames, (va.vertexCount + r) * 3).toArray()).toEqual([-2000, 2000, 3000]);
    // The weapon material is not drawn.
    const c = new Character(m);
    expect(c.materials.find((x) => x.name === 'weapon').visible).toBe(false);
  });

  it('decodes the flag PCX with palette index 0 transparent only when asked', async () => {
    const px = (t, x, y) => Array.from(t.mips[0].slice((y * t.width + x) * 4, (y * t.width + x) * 4 + 4));
    const masked = (await decode('decodePcx', fixture('flag.pcx'), 'flag.pcx', true)).textures[0];
    expect([masked.width, masked.height, masked.format]).toEqual([32, 16, 'rgba8']);
    expect(px(masked, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(px(masked, 10, 0)).toEqual([200, 16, 32, 255]);
    expect(px(masked, 10, 15)).toEqual([16, 48, 160, 255]);
    expect(px(masked, 31, 15)[3]).toBe(0);
    const plain = (await decode('decodePcx', fixture('flag.pcx'), 'flag.pcx', false)).textures[0];
    expect(px(plain, 31, 15)).toEqual([255, 0, 255, 255]);
  });

  it("plays the Wave sequence: the mesh shows the documented vertex at the file's frame 3 and 7", async () => {
    const m = await flag();
    const c = new Character(m);
    expect(c.clips.map((x) => [x.name, x.firstFrame, x.frameCount, x.fps])).toEqual([
      ['Still', 0, 1, 12],
      ['Wave', 1, 23, 12],
    ]);
    const r = byUV(m, 255, 0);
    const got = new THREE.Vector3();
    showFrame(c, 'Wave', 3).getVertexPosition(r, got);
    expect(got.distanceTo(new THREE.Vector3(-6.4, 6.4, 3.2))).toBeLessThan(1e-4);
    showFrame(c, 'Wave', 7).getVertexPosition(r, got);
    expect(got.distanceTo(new THREE.Vector3(-6.4, 6.4, -3.2))).toBeLessThan(1e-4);
  });

  it("steps through the file's own frame numbers, looping or held at the end", async () => {
    const app = await appWith();
    await app.loadFiles(['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((n) => entryFromBytes(n, fixture(n))));
    const wave = app.allClips.find((x) => x.clip.name === 'Wave');
    app.select(wave.character, wave.clip);
    const fileFrame = () => app.current.clip.firstFrame + app.frame;
    app.setTime(0);
    expect(fileFrame()).toBe(1);
    app.step(1);
    expect(fileFrame()).toBe(2);
    app.step(-2);
    expect(fileFrame()).toBe(23); // loops back to the last frame
    app.setLoop(false);
    app.step(5);
    expect(fileFrame()).toBe(23); // play once: held at the end
    app.step(-30);
    expect(fileFrame()).toBe(1);
    // The flag's texture came from its script.
    expect(wave.character.materials[0].map).toBe(app.textures.find((r) => r.key === 'flag').texture);
  });

  it('gives texture number N the N-th texture file in name order when no script names it', async () => {
    const app = await appWith();
    const pcx = fixture('flag.pcx');
    const report = await app.loadFiles([
      entryFromBytes('dx_box_d.3d', fixture('dx_box_d.3d')),
      entryFromBytes('dx_box_a.3d', fixture('dx_box_a.3d')),
      entryFromBytes('Zeta.pcx', pcx),
      entryFromBytes('alpha.PCX', pcx),
      entryFromBytes('beta.pcx', pcx),
    ]);
    const maps = Object.fromEntries(app.characters[0].materials.map((m) => [m.name, m.map?.name]));
    expect(maps).toEqual({ tex0_normal: 'alpha', weapon: undefined, tex1_normal: 'beta' });
    expect(lines(report)).toContain('alpha.PCX → material tex0_normal of dx_box_d.3d (file-name order)');
  });

  it('shows a set of textures alone as named quads', async () => {
    const app = await appWith();
    const report = await app.loadFiles([entryFromBytes('flag.pcx', fixture('flag.pcx'))]);
    expect(app.characters).toHaveLength(1);
    const board = app.characters[0];
    expect(board.textureBoard).toBe(true);
    expect(board.materials[0].map.image.width).toBe(32);
    expect(board.attachments.map((a) => a.name)).toEqual(['flag.pcx']);
    const box = new THREE.Box3().setFromBufferAttribute(board.meshes[0].geometry.attributes.position);
    expect(box.getSize(new THREE.Vector3()).toArray()).toEqual([1, 0.5, 0]);
    expect(app.scene.boards).toHaveLength(1);
    expect(report.records.filter((r) => r.kind !== 'texture')).toEqual([]);
  });
});

describe('UE1 materials', () => {
  it('renders each triangle type as the engine does', async () => {
    const c = new Character({
      file: 'types',
      format: 'ue1',
      meshes: [],
      materials: ['normal', 'twosided', 'translucent', 'masked', 'modulated']
        .map((t, i) => ({
          name: `tex0_${t}`,
          textureNames: [],
          twoSided: i > 0,
          blend: { translucent: 'translucent', masked: 'masked', modulated: 'modulated' }[t] ?? 'opaque',
          unlit: false,
          hidden: false,
        }))
        .concat([{ name: 'tex1_translucent_unlit', textureNames: [], twoSided: true, blend: 'translucent', unlit: true }]),
    });
    const [normal, two, trans, masked, mod, unlitTrans] = c.materials;
    expect([normal.side, normal.transparent, normal.alphaTest]).toEqual([THREE.FrontSide, false, 0]);
    expect(two.side).toBe(THREE.DoubleSide);
    expect([trans.blending, trans.blendSrc, trans.blendDst, trans.depthWrite, trans.side]).toEqual([
      THREE.CustomBlending,
      THREE.OneFactor,
      THREE.OneMinusSrcColorFactor,
      false,
      THREE.DoubleSide,
    ]);
    expect([masked.alphaTest, masked.transparent, masked.side]).toEqual([0.5, false, THREE.DoubleSide]);
    expect([mod.blending, mod.blendSrc, mod.blendDst, mod.depthWrite, mod.isMeshBasicMaterial]).toEqual([
      THREE.CustomBlending,
      THREE.DstColorFactor,
      THREE.SrcColorFactor,
      false,
      true,
    ]);
    expect([unlitTrans.isMeshBasicMaterial, unlitTrans.blendSrc, unlitTrans.blendDst]).toEqual([
      true,
      THREE.OneFactor,
      THREE.OneMinusSrcColorFactor,
    ]);
  });
});

describe('vertex animation at scale', () => {
  it('plays 700 frames × 2,000 vertices without allocating new buffers', () => {
    const vertexCount = 2000,
      frameCount = 700;
    const frames = new Float32Array(frameCount * vertexCount * 3).map((_, i) => Math.sin(i));
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(frames.slice(0, vertexCount * 3), 3));
    geometry.setAttribute('normal', new THREE.BufferAttribute(frames.slice(0, vertexCount * 3), 3));
    const mesh = new THREE.Mesh(geometry);
    mesh.name = 'm';
    const va = new VertexAnimation(mesh, { frameCount, vertexCount, frames, normals: frames, sequences: [] });
    const seq = { name: 'All', startFrame: 0, frameCount, rate: 30 };
    va.setSequence(seq, true);
    const mixer = new THREE.AnimationMixer(mesh);
    mixer.clipAction(va.clipFor(seq)).play();
    const arrays = [geometry.attributes.position.array, geometry.attributes.normal.array];
    // Halfway (700 updates of 1/60 s at 30 frames a second) the mesh shows frame 350, in the same buffers.
    const frame350 = frames.subarray(350 * vertexCount * 3, 351 * vertexCount * 3);
    for (let k = 0; k < 1400; k++) {
      mixer.update(1 / 60);
      va.update();
      if (k === 699) expect(maxDifference(geometry.attributes.position.array, frame350)).toBeLessThan(1e-4);
    }
    expect(geometry.attributes.position.array).toBe(arrays[0]);
    expect(geometry.attributes.normal.array).toBe(arrays[1]);
  });
});

// Expected facts from shared/samples/README.md (vertex3d section).
const PAIRS = [
  ['assimp-mar_rifle/mar_rifle', 572, 421, 30, 'packed', 'normal ×572', '1'],
  ['firetrucks/Models/FlatSheet', 2, 4, 1, 'packed', 'normal ×2', '1'],
  ['firetrucks/Models/bottle', 72, 40, 1, 'packed', 'normal ×34, translucent+flat ×38', '1,2'],
  ['firetrucks/Models/key', 88, 44, 1, 'packed', 'normal ×88', '1'],
  ['firetrucks/Models/tankard', 92, 46, 1, 'packed', 'normal ×92', '1'],
  ['partystuff/Models/kebab', 412, 264, 1, 'dx16', 'normal ×412', '0,1'],
  ['partystuff/Models/redbull', 28, 16, 1, 'dx16', 'normal ×28', '0,1,2'],
  ['partystuff/Models/sandwich', 62, 45, 1, 'dx16', 'normal ×62', '0,1'],
  ['trashbag/Models/BoozeDeco2', 638, 322, 1, 'packed', 'normal ×12, normal+environment ×626', '1,2'],
  ['trashbag/Models/Hamburger01', 378, 217, 1, 'packed', 'normal ×358, two-sided ×18, masked ×2', '1,2,3,4,5,6,7'],
  ['trashbag/Models/coin1', 24, 14, 1, 'packed', 'normal ×24', '1'],
  ['trashbag/Models/coin5', 120, 70, 1, 'packed', 'normal ×120', '1'],
  ['trashbag/Models/coin10', 120, 70, 1, 'packed', 'normal ×120', '1'],
  ['trashbag/Models/coin20', 120, 70, 1, 'packed', 'normal ×120', '1'],
  ['trashbag/Models/coin50', 468, 292, 1, 'packed', 'normal ×468', '1,2'],
  ['trashbag/Models/coin100', 900, 516, 1, 'packed', 'normal ×900', '1,2,3'],
  ['trashbag/Models/corndog', 378, 200, 1, 'packed', 'normal ×348, two-sided ×30', '1'],
  ['trashbag/Models/hairclip', 16, 14, 1, 'packed', 'normal ×8, masked ×8', '1'],
  ['trashbag/Models/lavender', 351, 191, 1, 'packed', 'normal ×96, masked ×255', '1'],
  ['trashbag/Models/openscroll', 88, 54, 1, 'packed', 'normal ×80, two-sided ×8', '1,2,3,4'],
  ['trashbag/Models/plaque2a', 92, 48, 1, 'packed', 'normal ×92', '1'],
  ['trashbag/Models/rollychair', 283, 168, 1, 'packed', 'normal ×283', '1'],
  ['trashbag/Models/scroll', 86, 50, 1, 'packed', 'normal ×82, two-sided ×4', '1'],
  ['trashbag/Models/steak', 68, 36, 1, 'packed', 'normal ×68', '1'],
  ['trashbag/Models/trashbag', 116, 60, 1, 'packed', 'normal ×116', '1'],
];

describe.skipIf(!HAVE_SAMPLES)('UE1 samples', () => {
  const V = `${SAMPLES}vertex3d/`;
  const split = (p) => [V + p.slice(0, p.lastIndexOf('/') + 1), p.slice(p.lastIndexOf('/') + 1)];

  it.each(PAIRS)('%s decodes with its documented facts', async (path, polys, verts, frames, encoding, types, texNums) => {
    const m = await ue1(...split(path));
    expect(m.counts).toMatchObject({ polygons: polys, vertices: verts, frames });
    expect(m.info).toMatchObject({ encoding, types, textureNumbers: texNums });
  });

  it('reads the .uc sequence tables', async () => {
    const seqs = async (path, uc) =>
      (await ue1(...split(path), text(V + uc), uc.split('/').pop())).vertexAnimation.sequences.map((s) => [
        s.name,
        s.startFrame,
        s.frameCount,
        s.rate,
      ]);
    expect(await seqs('assimp-mar_rifle/mar_rifle', 'assimp-mar_rifle/mar_rifle.uc')).toEqual([['All', 0, 30, 30]]);
    expect(await seqs('firetrucks/Models/FlatSheet', 'firetrucks/Classes/FlatSheet.uc')).toEqual([
      ['All', 0, 1, 30],
      ['FLATSHEET', 0, 1, 30],
    ]);
    expect(await seqs('trashbag/Models/BoozeDeco2', 'trashbag/Classes/BoozeDeco2.uc')).toEqual([
      ['All', 0, 1, 30],
      ['GutRottingGoodness', 0, 1, 30],
    ]);
    const rifle = await ue1(...split('assimp-mar_rifle/mar_rifle'), text(`${V}assimp-mar_rifle/mar_rifle.uc`), 'mar_rifle.uc');
    expect(rifle.info.scale).toBe('0.1 0.1 0.2');
    // Last import first: the missing texture1.pcx, then the BMP.
    expect(rifle.materials.map((x) => [x.name, x.blend, x.textureNames.slice(0, 2)])).toEqual([
      ['tex1_normal', 'masked', ['texture1', 'm_rifl']],
    ]);
  });

  it('shows the rifle at frame 17 exactly where the raw _a.3d bytes put it', async () => {
    const [dir] = split('assimp-mar_rifle/mar_rifle');
    const model = await ue1(dir, 'mar_rifle', text(`${dir}mar_rifle.uc`), 'mar_rifle.uc');
    const data = sample('vertex3d/assimp-mar_rifle/mar_rifle_d.3d');
    const anim = sample('vertex3d/assimp-mar_rifle/mar_rifle_a.3d');
    const scale = [0.1, 0.1, 0.2];
    // (vertex, U, V) of every triangle corner, from the raw _d.3d bytes.
    const corners = new Map();
    for (let t = 0; t < 572; t++) {
      const o = 48 + t * 16;
      for (let k = 0; k < 3; k++)
        corners.set(
          `${data[o + 8 + 2 * k]},${data[o + 9 + 2 * k]}|${data[o + 2 * k] | (data[o + 2 * k + 1] << 8)}`,
          data[o + 2 * k] | (data[o + 2 * k + 1] << 8),
        );
    }
    const c = new Character(model);
    const mesh = showFrame(c, 'All', 17);
    const uv = mesh.geometry.attributes.uv;
    const got = new THREE.Vector3();
    let worst = 0;
    for (let r = 0; r < mesh.geometry.attributes.position.count; r++) {
      // The render vertex is one of the original vertices with its UV that sit at its frame-0 place.
      const U = Math.round(uv.getX(r) * 256),
        Vb = Math.round((1 - uv.getY(r)) * 256);
      const rest = new THREE.Vector3().fromArray(model.vertexAnimation.frames, r * 3);
      const candidates = [...corners]
        .filter(([k]) => k.startsWith(`${U},${Vb}|`))
        .map(([, v]) => v)
        .filter((v) => toThree(rawVertex(anim, 421, 0, v), scale).distanceTo(rest) < 1e-4);
      expect(candidates.length).toBeGreaterThan(0);
      mesh.getVertexPosition(r, got);
      worst = Math.max(worst, Math.min(...candidates.map((v) => toThree(rawVertex(anim, 421, 17, v), scale).distanceTo(got))));
    }
    expect(worst).toBeLessThan(1e-3);
  });

  it('finds lavender1.pcx for the script-less lavender mesh in a whole folder', async () => {
    const app = await appWith();
    const dir = `${V}trashbag/Models/`;
    const names = ['lavender_d.3d', 'lavender_a.3d', 'rollychair_d.3d', 'rollychair_a.3d', 'burgerbun.pcx', 'lavender1.pcx', 'scroll1.pcx'];
    await app.loadFiles(names.map((n) => entryFromBytes(`Models/${n}`, bytes(dir + n))));
    const lavender = app.characters.find((x) => x.name === 'lavender_d.3d');
    expect(lavender.materials.map((m) => [m.name, m.map?.name, m.alphaTest])).toEqual([
      ['tex1_normal', 'lavender1', 0],
      ['tex1_masked', 'lavender1', 0.5],
    ]);
    // Two unscripted meshes and no texture named after the chair: it stays untextured.
    expect(app.characters.find((x) => x.name === 'rollychair_d.3d').materials.every((m) => !m.map)).toBe(true);
  });

  it('textures the rifle from its script (BMP by base name, PCX import missing)', async () => {
    const app = await appWith();
    const dir = `${V}assimp-mar_rifle/`;
    const report = await app.loadFiles(['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc'].map((n) => entryFromBytes(n, bytes(dir + n))));
    expect(lines(report)).toContain('mar_rifle_d.3d ↔ mar_rifle_a.3d ↔ mar_rifle.uc (script)');
    expect(app.textures.length).toBe(0);
    expect(app.allClips.map((x) => x.clip.name)).toEqual(['All']);
  });
});

function maxDifference(a, b) {
  let most = 0;
  for (let i = 0; i < b.length; i++) most = Math.max(most, Math.abs(a[i] - b[i]));
  return most;
}
