// UE1 packages (.u .utx) through the family registry: tables listed first, each mesh export a model
// of its own decoded as the loose families decode theirs, textures decoded when used and found by
// Package.Group.Name across the packages of a drop. Expected facts: ../shared/specs/ue1-package.md
// §1 and §14, ../shared/samples/README.md (upackage section).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { decodedTexture } from '../../web/src/core/fileset.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { describeRecord } from '../../web/src/core/report.js';
import { decoder, fixture, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const PKG = `${SAMPLES}upackage/`;
const entryOf = (rel, name = rel.split('/').pop()) => entryFromBytes(name, readFileSync(PKG + rel));

/** A decoder that counts its calls by op (laziness is measured, not assumed). */
async function counting() {
  const d = await decoder();
  const calls = new Map();
  return {
    calls,
    transfersInput: d.transfersInput,
    holdsInputs: d.holdsInputs,
    holdInput: d.holdInput,
    call(op, args) {
      calls.set(op, (calls.get(op) ?? 0) + 1);
      return d.call(op, args);
    },
  };
}

const drop = async (...names) =>
  decodeFiles(
    names.map((n) => entryOf(n)),
    await decoder(),
  );
const classCount = (listing, names) => names.reduce((n, c) => n + (listing.classes[c] ?? 0), 0);
const PROCEDURAL = ['FireTexture', 'IceTexture', 'WaveTexture', 'WetTexture', 'ScriptedTexture'];

describe.skipIf(!HAVE_SAMPLES)('UE1 packages: tables (spec §1)', () => {
  // File, version/licensee, names/imports/exports, viewer objects (procedural = the five classes).
  const table = [
    ['C4.u', 69, 0, [437, 165, 317], { SkeletalMesh: 2, Animation: 2, Texture: 27, Palette: 27 }, 0],
    ['SiegeIV_0032beta9.u', 69, 0, [4900, 1492, 7531], { Mesh: 15, LodMesh: 2, Texture: 117, Palette: 56 }, 22],
    ['JetpackTex.utx', 69, 0, [48, 5, 16], { Texture: 6, Palette: 8 }, 2],
    ['Endemia.u', 68, 0, [802, 134, 794], { LodMesh: 53, Texture: 161, Palette: 149 }, 0],
    ['HPDemoAd.utx', 79, 0, [26, 3, 7], { Texture: 6, Palette: 1 }, 0],
    ['Beam.utx', 69, 227, [39, 6, 7], { Palette: 3 }, 3],
  ];
  for (const [file, version, licensee, [names, imports, exports], classes, procedural] of table) {
    it(`${file}: version ${version}/${licensee}, ${names}/${imports}/${exports}, its meshes and textures`, async () => {
      const decoded = await drop(file);
      expect(decoded.containers).toHaveLength(1);
      const { listing, path, format } = decoded.containers[0];
      expect([path, format]).toEqual([file, 'upackage']);
      expect([listing.version, listing.licenseeVersion]).toEqual([version, licensee]);
      expect(listing.counts).toEqual({ names, imports, exports });
      for (const [c, n] of Object.entries(classes)) expect(listing.classes[c] ?? 0, c).toBe(n);
      expect(classCount(listing, PROCEDURAL)).toBe(procedural);
      // Every mesh export is a model of the drop, named by its object, inside the package's path.
      const meshes = classCount(listing, ['Mesh', 'LodMesh', 'SkeletalMesh']);
      expect(decoded.models).toHaveLength(meshes);
      for (const m of decoded.models) {
        expect(m.file.startsWith(`${file}/`)).toBe(true);
        expect(m.files).toEqual([file]);
        expect(m.container.path).toBe(file);
      }
      // Every picture (textures and procedural ones, not palettes) is a texture record, none decoded yet.
      expect(decoded.textures).toHaveLength(classCount(listing, ['Texture', ...PROCEDURAL]));
      expect(decoded.textures.every((t) => t.path === file && !t.decoded && typeof t.load === 'function')).toBe(true);
    });
  }
});

describe.skipIf(!HAVE_SAMPLES)('UE1 packages: meshes (spec §14)', () => {
  // Mesh, class, FrameVerts, AnimFrames, Tris, slots, sequences.
  const siege = [
    ['XCSup4', 'Mesh', 32, 1, 60, 1, 1],
    ['XCSup3', 'Mesh', 24, 1, 44, 1, 1],
    ['XCSup1', 'Mesh', 32, 1, 60, 1, 1],
    ['XCSup2', 'Mesh', 24, 1, 44, 1, 1],
    ['sg_GLAmmo', 'Mesh', 46, 1, 28, 1, 2],
    ['BerserkM', 'Mesh', 99, 1, 200, 1, 2],
    ['ConstructorPick', 'Mesh', 85, 1, 116, 2, 1],
    ['Constructor', 'LodMesh', 363, 31, 277, 6, 7],
    ['DashPadPanel', 'Mesh', 58, 1, 62, 2, 1],
    ['DashPadBase', 'Mesh', 66, 1, 120, 1, 1],
    ['ConstructorL', 'LodMesh', 363, 31, 277, 6, 7],
    ['sg_Grenade', 'Mesh', 22, 1, 40, 2, 2],
    ['sg_GLpickup', 'Mesh', 90, 1, 134, 3, 2],
    ['sg_GL1st', 'Mesh', 208, 86, 319, 5, 8],
    ['sgSphereMesh', 'Mesh', 436, 30, 640, 3, 1],
    ['SirenIcon', 'Mesh', 48, 1, 80, 1, 1],
    ['sg_GL3rd', 'Mesh', 84, 11, 128, 2, 3],
  ];

  it('SiegeIV_0032beta9.u: the 17 vertex meshes as the UE1 family plays them, only meshes decoded', async () => {
    const d = await counting();
    const decoded = await decodeFiles([entryOf('SiegeIV_0032beta9.u')], d);
    // The tables once, then one call per mesh, which brings back the textures its slots name (and
    // no other of the package's 117 textures: those are decoded when used).
    expect(d.calls.get('listPackage')).toBe(1);
    expect(d.calls.get('decodePackageMesh')).toBe(17);
    expect(d.calls.get('decodePackageObject')).toBeUndefined();
    const byName = new Map(decoded.models.map((m) => [m.name, m]));
    for (const [name, className, frameVerts, frames, tris, slots, sequences] of siege) {
      const m = byName.get(name);
      expect(m, name).toBeDefined();
      expect([m.format, m.container.className], name).toEqual(['ue1', className]);
      expect(m.counts.frameVerts, name).toBe(frameVerts);
      expect(m.counts.frames, name).toBe(frames);
      expect(m.counts.triangles, name).toBe(tris);
      expect(m.counts.textureSlots, name).toBe(slots);
      expect(m.vertexAnimation.sequences, name).toHaveLength(sequences);
    }
    const gl = byName.get('sg_GL1st').vertexAnimation.sequences.map((s) => [s.name, s.startFrame, s.frameCount]);
    expect(gl.slice(0, 2)).toEqual([
      ['All', 0, 86],
      ['DISPENSE', 0, 24],
    ]);
  });

  it('Endemia.u: 53 Deus Ex LodMeshes of 8-byte vertices, FrameVerts Σ 2147, faces Σ 3196', async () => {
    const decoded = await drop('Endemia.u');
    expect(decoded.models).toHaveLength(53);
    expect(decoded.models.every((m) => m.info.vertexBytes === '8' && m.counts.frames === 1)).toBe(true);
    expect(decoded.models.reduce((n, m) => n + m.counts.frameVerts, 0)).toBe(2147);
    expect(decoded.models.reduce((n, m) => n + m.counts.triangles, 0)).toBe(3196);
    expect(decoded.models.every((m) => m.vertexAnimation.sequences.map((s) => s.name).join() === 'All,Still')).toBe(true);
  });

  it('C4.u: two skeletal meshes, each playing the Animation of its package; slots found inside it', async () => {
    const decoded = await drop('C4.u');
    expect(decoded.models.map((m) => [m.name, m.format, m.counts.wedges, m.counts.faces, m.counts.materials])).toEqual([
      ['C4', 'psk', 444, 404, 5],
      ['C4Pickup', 'psk', 444, 404, 5],
    ]);
    expect(decoded.animations.map((a) => a.name).sort()).toEqual(['C4Anim', 'C4PickupAnim']);
    const scene = await assembleScene(decoded);
    const c4 = scene.characters.find((c) => c.name === 'C4');
    // Imported with Pitch=64: the placement is a bone of its own above joint1 (C4Pickup has none).
    expect(c4.skeleton.names).toEqual(['joint1', 'MESH ORIGIN']);
    // Its joint1 stays a root: C4Pickup, placed otherwise, is a character of its own, not a part of C4.
    expect(c4.skeleton.helperBone).toBe(1);
    expect(scene.characters.find((c) => c.name === 'C4Pickup').skeleton.names).toEqual(['joint1']);
    expect(c4.animations.map((a) => a.file)).toContain('C4.u/C4Anim');
    expect(c4.materials.map((m) => m.texture?.object)).toEqual([
      'C4.Skins.C4Skin',
      'C4.Timer.C4ScreenOn',
      'C4.digits.C4Timer_Digit0',
      'C4.digits.C4Timer_Digit1',
      'C4.digits.C4Timer_Digit5',
    ]);
    // Decoded when asked for, once: C4Skin P8 512 × 512 through its palette (masked).
    const skin = c4.materials[0].texture;
    const [a, b] = await Promise.all([decodedTexture(skin, await decoder()), decodedTexture(skin, await decoder())]);
    expect(a).toBe(b);
    expect([a.width, a.height, a.format]).toEqual([512, 512, 'rgba8']);
  });
});

/** Rounded triples of a position array, sorted: the same points whatever their order. */
const pointSet = (positions, digits = 3) => {
  const out = [];
  const round = (v) => (Math.round(v * 10 ** digits) / 10 ** digits + 0).toFixed(digits);
  for (let i = 0; i < positions.length; i += 3) out.push([0, 1, 2].map((k) => round(positions[i + k])).join(' '));
  return out.sort();
};

/** The largest distance from a wedge's UV in `b` to the UV of the nearest wedge at the same point in `a`. */
function uvDistance(a, b) {
  const at = (m, i) => [0, 1, 2].map((k) => m.positions[i * 3 + k]);
  let worst = 0;
  for (let i = 0; i < b.positions.length / 3; i++) {
    const p = at(b, i);
    let best = Infinity;
    for (let j = 0; j < a.positions.length / 3; j++) {
      const q = at(a, j);
      if (Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) > 1e-3) continue;
      // A byte holds 0..255: a PSK UV past the texture's edge is the edge's byte in the package.
      const clamp = (v) => Math.min(Math.max(v, 0), 255 / 256);
      best = Math.min(best, Math.hypot(b.uvs[0][i * 2] - clamp(a.uvs[0][j * 2]), b.uvs[0][i * 2 + 1] - clamp(a.uvs[0][j * 2 + 1])));
    }
    worst = Math.max(worst, best);
  }
  return worst;
}

describe.skipIf(!HAVE_SAMPLES)('UE1 packages: the same mesh as its loose sources', () => {
  it('sg_GL1st in SiegeIV_0032beta9.u is the character sources/sg_GL1st_{d,a}.3d give through the ue1 family', async () => {
    // The mod's script scaled it so (spec §14: Scale 0.01, 0.01, 0.02); its origin is a translation.
    const uc = [
      '#exec MESH IMPORT MESH=sg_GL1st ANIVFILE=MODELS\\sg_GL1st_a.3d DATAFILE=MODELS\\sg_GL1st_d.3d X=0 Y=0 Z=0',
      '#exec MESHMAP SCALE MESHMAP=sg_GL1st X=0.01 Y=0.01 Z=0.02',
    ].join('\r\n');
    const loose = await decodeFiles(
      [entryOf('sources/sg_GL1st_d.3d'), entryOf('sources/sg_GL1st_a.3d'), entryFromBytes('sg_GL1st.uc', new TextEncoder().encode(uc))],
      await decoder(),
    );
    const packaged = await drop('SiegeIV_0032beta9.u');
    const a = loose.models.find((m) => m.family === 'ue1');
    const b = packaged.models.find((m) => m.name === 'sg_GL1st');
    expect(a.family).toBe('ue1');
    expect(b.format).toBe(a.format);
    // Vertices, triangles and frames.
    for (const k of ['vertices', 'triangles', 'frames']) expect(b.counts[k], k).toBe(a.counts[k]);
    expect([b.counts.vertices, b.counts.triangles, b.counts.frames]).toEqual([208, 319, 86]);
    expect(b.meshes[0].indices).toEqual(a.meshes[0].indices);
    // UVs: byte for byte the source's, but on the two quads of materials 1 and 2 (render vertices
    // 232-239), whose corners hold the same four UVs turned half a turn (u and v both mirrored).
    // Their indices and every other corner are equal: the mod mapped those two decals the other way
    // round before it built the package, from a revision of the sources that is not the one shipped.
    const ua = a.meshes[0].uvs[0],
      ub = b.meshes[0].uvs[0];
    const uv = (u, i) => `${u[2 * i] * 256},${u[2 * i + 1] * 256}`;
    const differ = [];
    for (let i = 0; i < ua.length / 2; i++) if (uv(ua, i) !== uv(ub, i)) differ.push(i);
    expect(differ).toEqual([232, 233, 234, 235, 236, 237, 238, 239]);
    for (const quad of [
      [232, 233, 234, 235],
      [236, 237, 238, 239],
    ]) {
      expect(quad.map((i) => uv(ub, i)).sort()).toEqual(quad.map((i) => uv(ua, i)).sort());
    }
    expect(b.meshes[0].groups.map((g) => [g.material, g.count])).toEqual([
      [0, 597],
      [1, 6],
      [2, 6],
      [3, 348],
    ]);
    // Every frame's points equal the loose ones moved by one translation (the package's Origin),
    // the same for every frame: the translation between the first frames' centres.
    const fa = a.vertexAnimation.frames,
      fb = b.vertexAnimation.frames;
    expect(fb.length).toBe(fa.length);
    const per = fa.length / a.vertexAnimation.frameCount;
    const centre = (f, k) => {
      let sum = 0;
      for (let i = k; i < per; i += 3) sum += f[i];
      return sum / (per / 3);
    };
    const shift = [0, 1, 2].map((k) => centre(fb, k) - centre(fa, k));
    const moved = (f, s) => f.map((v, i) => v + s[i % 3]);
    for (let frame = 0; frame < a.vertexAnimation.frameCount; frame += 17) {
      const at = frame * per;
      expect(pointSet(fb.subarray(at, at + per)), `frame ${frame}`).toEqual(pointSet(moved(fa.subarray(at, at + per), shift)));
    }
    // The first frame as the meshes draw it (rest positions), the same way.
    expect(pointSet(b.meshes[0].positions)).toEqual(pointSet(moved(a.meshes[0].positions, shift)));
  });

  it('C4 in C4.u has the points, faces and materials of sources/C4.psk', async () => {
    const loose = await decodeFiles([entryOf('sources/C4.psk')], await decoder());
    const packaged = await drop('C4.u');
    const a = loose.models[0];
    // C4Pickup: the same .psk imported without a rotation (C4's Pitch=64: ue1-scripts.test.js).
    const b = packaged.models.find((m) => m.name === 'C4Pickup');
    for (const k of ['points', 'wedges', 'faces', 'materials', 'bones']) expect(b.counts[k], k).toBe(a.counts[k]);
    expect(pointSet(b.meshes[0].positions)).toEqual(pointSet(a.meshes[0].positions));
    expect(b.meshes[0].bounds.min).toEqual(a.meshes[0].bounds.min);
    expect(b.meshes[0].bounds.max).toEqual(a.meshes[0].bounds.max);
    // Byte UVs are the PSK's UVs × 256 (within a byte's step, clamped to a byte).
    expect(uvDistance(a.meshes[0], b.meshes[0])).toBeLessThan(1.5 / 256);
    expect(b.skeleton.names).toEqual(a.skeleton.names);
  });
});

describe.skipIf(!HAVE_SAMPLES)('UE1 packages: texture slots across the packages of a drop', () => {
  it('a slot naming a .utx dropped beside the .u finds its texture there; a package not dropped is a missing record naming it', async () => {
    const d = await counting();
    const decoded = await decodeFiles([entryOf('SiegeIV_0032beta9.u'), entryOf('JetpackTex.utx')], d);
    const jetpack = decoded.containers.find((c) => c.path === 'JetpackTex.utx').listing;
    const picture = jetpack.textures.find((t) => t.className === 'Texture');
    expect(picture.path.startsWith('JetpackTex.')).toBe(true);
    // sg_GL1st's third slot is empty in the package; a mod's mesh naming the .utx's texture there
    // (as its #exec MESHMAP SETTEXTURE would) is what the drop must resolve.
    const gl = decoded.models.find((m) => m.name === 'sg_GL1st');
    expect(gl.materials[2].textureNames).toEqual([]);
    gl.materials[2].textureNames = [picture.path, picture.name];
    const scene = await assembleScene(decoded);
    const c = scene.characters.find((x) => x.name === 'sg_GL1st');
    const slot = c.materials[2];
    expect(slot.texture.path).toBe('JetpackTex.utx');
    expect(slot.texture.object).toBe(picture.path);
    expect(slot.rule).toBe('object path');
    // The package's own slots stay in the package.
    expect(c.materials[0].texture.object).toBe('SiegeIV_0032beta9.Skins.Jsg_GL1st1');
    // Decoded only now, and only this one.
    const before = d.calls.get('decodePackageObject') ?? 0;
    const t = await decodedTexture(slot.texture, d);
    expect(d.calls.get('decodePackageObject')).toBe(before + 1);
    expect(t.width * t.height).toBeGreaterThan(0);
    expect(t.mips[0].length).toBe(t.width * t.height * 4);
    // Constructor's slots name Botpack (the game's package), which is not in the drop.
    const missing = scene.records.filter((r) => r.kind === 'missing');
    expect(missing).toHaveLength(1);
    expect(missing[0].files).toEqual(['SiegeIV_0032beta9.u']);
    // Named once, with every path of Botpack the package's slots name (spec §11.5: Constructor → Botpack.Skins.tloc4).
    const line = describeRecord(missing[0]);
    expect(line).toMatch(/^SiegeIV_0032beta9\.u: missing Botpack\.u or \.utx \(the package of (.+)\)$/);
    const paths = /\(the package of (.+)\)$/.exec(line)[1].split(', ');
    expect(paths).toContain('Botpack.Skins.tloc4');
    expect(paths.every((p) => p.startsWith('Botpack.'))).toBe(true);
    expect(paths).toEqual([...paths].sort());
    // The .utx gave a texture: it is not listed as unused.
    expect(scene.records.some((r) => r.kind === 'unused' && r.files[0] === 'JetpackTex.utx')).toBe(false);
  });

  it('a slot naming a package not dropped is missing also when the drop holds no texture at all', async () => {
    // A mod's .u whose meshes use only the game's textures: here SiegeIV's meshes without its own textures.
    const decoded = await drop('SiegeIV_0032beta9.u');
    decoded.textures = [];
    const scene = await assembleScene(decoded);
    const missing = scene.records.filter((r) => r.kind === 'missing');
    expect(missing.map((r) => [r.files[0], r.needs])).toEqual([['SiegeIV_0032beta9.u', 'Botpack.u or .utx']]);
    // Its own package is there (its meshes are): not missing, though none of its textures is.
    expect(missing[0].reason).not.toMatch(/SiegeIV_0032beta9\./);
  });

  it('a texture package alone opens as a board of its pictures, procedural ones as placeholders', async () => {
    const decoded = await drop('Beam.utx');
    const scene = await assembleScene(decoded);
    expect(scene.characters).toHaveLength(0);
    expect(scene.boards).toHaveLength(1);
    const fire = decoded.containers[0].listing.textures.filter((t) => t.className === 'FireTexture').map((t) => t.path);
    expect(fire).toHaveLength(3);
    expect(scene.boards[0].textures.map((t) => t.object)).toEqual(fire);
    const t = await decodedTexture(scene.boards[0].textures[0], await decoder());
    expect([t.width, t.height]).toEqual([8, 8]);
  });

  it('a damaged package is refused by name, and the files beside it still open', async () => {
    const bytes = new Uint8Array(readFileSync(`${PKG}Beam.utx`)).slice(0, 600);
    const decoded = await decodeFiles([entryFromBytes('Broken.utx', bytes), entryOf('HPDemoAd.utx')], await decoder());
    const refused = decoded.records.filter((r) => r.kind === 'refused');
    expect(refused.map((r) => r.files[0])).toEqual(['Broken.utx']);
    expect(refused[0].reason).toMatch(/Broken\.utx/);
    expect(decoded.textures.filter((t) => t.path === 'HPDemoAd.utx')).toHaveLength(6);
  });
});

describe.skipIf(!HAVE_SAMPLES)('UE1 packages: a mesh asked for by name', () => {
  it('a name none of its meshes has is said, with the meshes the package holds; nothing is decoded', async () => {
    const d = await decoder();
    const decoded = await decodeFiles([entryOf('Endemia.u'), entryOf('JetpackTex.utx')], d, { objects: ['Nope'] });
    const scene = await assembleScene(decoded, {});
    expect(decoded.models).toEqual([]);
    // The texture package holds no mesh: it is not named.
    expect(scene.records.map((r) => describeRecord(r)).filter((t) => /no mesh named/.test(t))).toEqual([
      'Endemia.u: not used — no mesh named Nope; its 53 meshes: WhiskyBottle, CoffeeCup, Ashtray, Ashtray2, Ashtray2a, Ashtray2b, Ashtray2c, Ashtray2d, Ashtray2e, Barrel2, Barrel3, BarrelGas and 41 more',
    ]);
  });
});

describe("UE1 packages: a Deus Ex character (the writer's dx_character.u)", () => {
  it('its 72 sequences are clips, and the animated character is the hero, not the larger static prop', async () => {
    const decoded = await decodeFiles([entryFromBytes('dx_character.u', fixture('dx_character.u'))], await decoder());
    const scene = await assembleScene(decoded);
    const trooper = decoded.models.find((m) => m.name === 'Trooper');
    expect(trooper.info.vertexBytes).toBe('8');
    const sequences = trooper.vertexAnimation.sequences;
    expect(sequences).toHaveLength(72);
    expect(sequences.map((s) => [s.name, s.startFrame, s.frameCount, s.rate]).slice(-1)).toEqual([['Seq71', 284, 4, 8]]);
    // Crate stands three times its size; the hero is the one that moves.
    expect(scene.characters.map((c) => c.name).sort()).toEqual(['Crate', 'Trooper']);
    expect(scene.characters.find((c) => c.hero)?.name).toBe('Trooper');
  });
});
