// GLB export of what is loaded: meshes, skeletons, skins, every clip (or one), morph targets, UE1
// vertex animation as one morph target per frame with a weights clip per sequence, and the
// materials' textures as PNG (or the original PNG/JPEG bytes). The same code runs in the page and
// in the CLI, and never touches what is on screen: it works on a copy.
//
// What glTF wants and three does not give on its own:
// - UVs with a top-left origin, as the game files have them: the decoded (u, 1 − v) are flipped
//   back, and images go in with their top row first;
// - node names that are the file's bone names (spaces, duplicates and all): clips address bones
//   by uuid, so names never need to be track-safe;
// - a clip that plays once has no wrap key;
// - `skin.skeleton` a common root of the joints (0 A.D.'s flat skeletons have none among them).
import * as THREE from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { buildClip } from './build.js';
import { encodePng } from '../core/png.js';
import { decodeDxt } from '../core/dxt.js';
import { extension } from '../core/files.js';
import { decodedTexture } from '../core/fileset.js';

/** Pairs every object of `a` with the object at the same place in `b` (same structure). */
function parallel(a, b, map = new Map()) {
  map.set(a, b);
  a.children.forEach((child, i) => parallel(child, b.children[i], map));
  return map;
}

function flipUVs(geometry) {
  const g = geometry.clone();
  for (const [name, attr] of Object.entries(g.attributes)) {
    if (!/^uv\d*$/.test(name)) continue;
    const a = attr.array.slice();
    for (let i = 1; i < a.length; i += 2) a[i] = 1 - a[i];
    g.setAttribute(name, new THREE.BufferAttribute(a, 2));
  }
  return g;
}

/** A mesh carrying a vertex animation's frames as morph targets, base pose frame 0. */
function morphMesh(source, geometry, va, materials) {
  const { frames, frameCount, vertexCount, sequences } = va.data;
  const stride = vertexCount * 3;
  const g = geometry.clone();
  g.morphTargetsRelative = false;
  g.morphAttributes.position = [];
  for (let f = 0; f < frameCount; f++) {
    const a = new THREE.BufferAttribute(frames.slice(f * stride, (f + 1) * stride), 3);
    a.name = `frame_${f}`;
    g.morphAttributes.position.push(a);
  }
  g.setAttribute('position', new THREE.BufferAttribute(frames.slice(0, stride), 3));
  g.deleteAttribute('normal');
  g.computeVertexNormals();
  const mesh = new THREE.Mesh(g, materials);
  mesh.name = source.name;
  mesh.updateMorphTargets();
  return { mesh, sequences };
}

/**
 * One weights clip per sequence: each frame's target at full weight in turn. Built as glTF keeps
 * it, one track of every target's weight per keyframe, so GLTFExporter has no per-target tracks to
 * merge (its merge re-evaluates every track at every keyframe: hours for one clip of 1,500 frames).
 */
function morphClip(mesh, seq, loop) {
  const n = Math.max(1, seq.frameCount);
  const rate = seq.rate > 0 ? seq.rate : 30;
  const keys = loop ? n + 1 : n;
  const targets = mesh.morphTargetInfluences.length;
  const times = Float32Array.from({ length: keys }, (_, k) => k / rate);
  const values = new Float32Array(keys * targets);
  for (let k = 0; k < keys; k++) {
    // The wrap key of a looping clip shows the first frame again.
    const target = mesh.morphTargetDictionary[`frame_${seq.startFrame + (k % n)}`];
    if (target === undefined)
      throw new Error(`sequence ${seq.name}: frame ${seq.startFrame + (k % n)} is past the mesh's ${targets} frames`);
    values[k * targets + target] = 1;
  }
  return new THREE.AnimationClip(seq.name, (keys - 1) / rate, [
    new THREE.NumberKeyframeTrack(`${mesh.uuid}.morphTargetInfluences`, times, values),
  ]);
}

/** Bytes and MIME type of a texture record's picture, top row first. */
async function imageOf(record, decoder) {
  const ext = record.entry ? extension(record.entry.name) : '';
  if (ext === 'png' || ext === 'jpg' || ext === 'jpeg') {
    return { mimeType: ext === 'png' ? 'image/png' : 'image/jpeg', bytes: new Uint8Array(await record.entry.read()) };
  }
  let decoded = record.decoded ?? (record.load ? await decodedTexture(record, decoder) : null);
  if (!decoded && decoder) decoded = (await decoder.call('decodeImage', [await record.entry.read(), record.entry.name])).textures[0];
  if (!decoded) throw new Error(`${record.path}: this picture cannot be exported here`);
  const { width, height, format } = decoded;
  const rgba = format === 'rgba8' ? decoded.mips[0] : decodeDxt(format, decoded.mips[0], width, height);
  return { mimeType: 'image/png', bytes: encodePng(rgba, width, height) };
}

// ---- GLB container ------------------------------------------------------------------------------

function readGlb(buffer) {
  const view = new DataView(buffer);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, jsonLength)));
  const binStart = 20 + jsonLength;
  const bin = binStart < buffer.byteLength ? new Uint8Array(buffer, binStart + 8, view.getUint32(binStart, true)) : new Uint8Array(0);
  return { json, bin };
}

function writeGlb(json, chunks) {
  const pad = (n) => (n + 3) & ~3;
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = pad(jsonBytes.length);
  const binLength = chunks.reduce((n, c) => n + pad(c.length), 0);
  const total = 12 + 8 + jsonLength + (binLength ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLength);
  out.set(jsonBytes, 20);
  if (binLength) {
    let o = 20 + jsonLength;
    view.setUint32(o, binLength, true);
    view.setUint32(o + 4, 0x004e4942, true);
    o += 8;
    for (const c of chunks) {
      out.set(c, o);
      o += pad(c.length);
    }
  }
  return out.buffer;
}

/** Sets each skin's skeleton to the deepest node that holds all its joints. */
function rootSkins(json) {
  const parent = new Map();
  (json.nodes ?? []).forEach((n, i) => {
    for (const c of n.children ?? []) parent.set(c, i);
  });
  const chain = (i) => {
    const out = [];
    for (let n = i; n !== undefined; n = parent.get(n)) out.push(n);
    return out.reverse();
  };
  for (const skin of json.skins ?? []) {
    const chains = skin.joints.map(chain);
    let common;
    for (let d = 0; chains.every((c) => d < c.length && c[d] === chains[0][d]); d++) common = chains[0][d];
    if (common === undefined) delete skin.skeleton;
    else skin.skeleton = common;
  }
}

/** Replaces material tokens by their names and gives them their textures. */
async function addTextures(json, bin, tokens, decoder) {
  const chunks = [bin];
  let offset = (bin.length + 3) & ~3;
  const images = new Map();
  const textureIndex = async (record) => {
    if (!images.has(record)) {
      const { bytes, mimeType } = await imageOf(record, decoder);
      (json.bufferViews ??= []).push({ buffer: 0, byteOffset: offset, byteLength: bytes.length });
      offset += (bytes.length + 3) & ~3;
      chunks.push(bytes);
      (json.images ??= []).push({ name: record.name, mimeType, bufferView: json.bufferViews.length - 1 });
      json.samplers ??= [{ magFilter: 9729, minFilter: 9987, wrapS: 10497, wrapT: 10497 }];
      (json.textures ??= []).push({ sampler: 0, source: json.images.length - 1 });
      images.set(record, json.textures.length - 1);
    }
    return images.get(record);
  };
  const problems = [];
  for (const def of json.materials ?? []) {
    const t = tokens.get(def.name);
    if (!t) continue;
    def.name = t.name;
    const { entry } = t;
    if (!entry?.texture) continue;
    try {
      const pbr = (def.pbrMetallicRoughness ??= {});
      pbr.baseColorTexture = { index: await textureIndex(entry.texture) };
      pbr.baseColorFactor = [1, 1, 1, pbr.baseColorFactor?.[3] ?? 1];
      const maps = entry.maps ?? {};
      if (maps.normal) def.normalTexture = { index: await textureIndex(maps.normal) };
      if (maps.arm) {
        // ARM/ORM pack occlusion, roughness and metalness in R, G, B: glTF's own layout.
        const index = await textureIndex(maps.arm);
        def.occlusionTexture = { index };
        pbr.metallicRoughnessTexture = { index };
        pbr.metallicFactor = 1;
        pbr.roughnessFactor = 1;
      }
      if (maps.emissive) {
        def.emissiveTexture = { index: await textureIndex(maps.emissive) };
        def.emissiveFactor = [1, 1, 1];
      }
      // Maps glTF has no slot for as they are (MRA's channels are not glTF's order).
      for (const role of ['mra', 'specular', 'opacity', 'mask']) {
        if (maps[role]) problems.push(`${t.name}: its ${role} map ${maps[role].name} has no glTF slot as it is and is left out`);
      }
    } catch (err) {
      problems.push(err.message);
    }
  }
  if (json.buffers?.[0]) json.buffers[0].byteLength = offset;
  else if (chunks.length > 1) json.buffers = [{ byteLength: offset }];
  return { chunks, problems };
}

/** A character's bones copied into the rest pose, named as in the file. */
function restPose(character, bones) {
  const sk = character.scene.skeleton;
  bones.forEach((b, i) => {
    b.name = String(character.bones[i].userData.sourceName ?? b.name);
    if (sk) {
      b.position.fromArray(sk.restTranslation, i * 3);
      b.quaternion.fromArray(sk.restRotation, i * 4);
      if (sk.restScale) b.scale.fromArray(sk.restScale, i * 3);
    }
  });
}

/**
 * The exporter's copy of a viewer material, without its maps (addTextures puts the decoded
 * pictures back by the token name it is given, which `tokens` maps to the material's entry).
 */
function materialCopy(m, sc, tokens) {
  // The copy has no userData: the viewer's holds links back to the decoded model and texture
  // (paths on the user's disk, timings, whole records), which GLTFExporter would write as
  // extras, and Material.copy deep-copies it through JSON: for a long UE1 clip, every
  // vertex frame (seconds of work, hundreds of MB).
  const userData = m.userData;
  m.userData = {};
  const c = m.clone();
  m.userData = userData;
  for (const k of ['map', 'normalMap', 'aoMap', 'roughnessMap', 'metalnessMap', 'emissiveMap', 'alphaMap']) if (k in c) c[k] = null;
  c.onBeforeCompile = () => {};
  c.wireframe = false;
  c.name = `rigscope-material-${tokens.size}`;
  const entry = sc.materials.find((e) => e.model === m.userData.model && e.index === m.userData.index);
  tokens.set(c.name, { name: m.name, entry });
  return c;
}

/** The copy without the viewer's helpers and labels, and without its bookkeeping (file paths on the user's disk, indices): no extras. */
function withoutViewerExtras(copy) {
  const extras = [];
  copy.traverse((o) => {
    if (o.userData.isAttachmentMarker || o.userData.isBoneLabel || o.isCSS2DObject) extras.push(o);
  });
  for (const o of extras) o.removeFromParent();
  copy.traverse((o) => {
    o.userData = {};
  });
  return copy;
}

/**
 * @param {import('./character.js').Character[]} characters (texture boards are skipped)
 * @param {{ clip?: string, decoder?: object, noClips?: boolean }} options clip: export only clips of
 *   this name; decoder: decodes pictures that need it (TGA, BMP, DDS); noClips: the model alone;
 *   origin: each character at the origin, not where the viewer laid it out
 * @returns {Promise<{ glb: ArrayBuffer, problems: string[] }>} the GLB and the textures left out, and why
 */
export async function exportGLB(characters, { clip: only, decoder, noClips = false, origin = false } = {}) {
  const roots = [];
  const animations = [];
  const tokens = new Map();
  for (const top of characters.filter((c) => !c.textureBoard)) {
    const copy = cloneSkinned(top.root);
    if (origin) copy.position.set(0, 0, 0); // one character alone: not where the viewer's layout put it
    const map = parallel(top.root, copy);
    for (const character of top.tree()) {
      const sc = character.scene;
      const bones = character.bones.map((b) => map.get(b));
      restPose(character, bones);
      const materialCopies = new Map(character.materials.map((m) => [m, materialCopy(m, sc, tokens)]));
      const mats = (m) => (Array.isArray(m) ? m.map((x) => materialCopies.get(x)) : materialCopies.get(m));
      for (const mesh of character.meshes) {
        const target = map.get(mesh);
        const va = character.vertexAnimations.find((v) => v.mesh === mesh);
        if (va) {
          const { mesh: morph } = morphMesh(mesh, flipUVs(mesh.geometry), va, mats(mesh.material));
          target.parent.add(morph);
          target.removeFromParent();
          for (const seq of va.data.sequences) {
            const clip = character.clips.find((c) => c.kind === 'vertex' && c.name === seq.name);
            if (!noClips && (!only || seq.name === only)) animations.push(morphClip(morph, seq, clip?.loop ?? true));
          }
        } else {
          target.geometry = flipUVs(mesh.geometry);
          target.material = mats(mesh.material);
        }
      }
      const prefix = character === top ? '' : `${character.name}: `;
      const handles = bones.map((b) => ({ name: b.uuid }));
      for (const clip of character.clips) {
        if (noClips || clip.kind !== 'skeletal' || (only && clip.name !== only)) continue;
        const sc2 = sc.clips.find((x) => x.kind === 'skeletal' && x.name === clip.name && x.file === clip.source);
        if (!sc2) continue;
        const built = buildClip(sc2.clip, handles, sc2.map, clip.loop);
        built.name = `${prefix}${clip.name}`;
        animations.push(built);
      }
    }
    roots.push(withoutViewerExtras(copy));
  }
  if (only && !animations.length) throw new Error(`no clip named ${only} among the loaded clips`);
  const scene = new THREE.Scene();
  for (const r of roots) scene.add(r);
  scene.updateMatrixWorld(true);
  const glb = await new GLTFExporter().parseAsync(scene, { binary: true, animations, onlyVisible: true });
  const { json, bin } = readGlb(glb);
  rootSkins(json);
  const { chunks, problems } = await addTextures(json, bin, tokens, decoder);
  return { glb: writeGlb(json, chunks), problems };
}
