// Builders: decoded model (plain typed arrays, already in three.js space) -> three.js objects.
// They know no file format and never import the decoder.
import * as THREE from 'three';
import { triangleNormal } from '../core/triangles.js';

/** What PropertyBinding.sanitizeNodeName changes: white space and the track path's reserved characters. */
const UNSAFE_NODE_NAME = /[\s[\].:/]/;
/**
 * Names already sanitized: skeletons of one game share their bone names (`Bip01 L Thigh`). At most
 * SANITIZED_KEPT names of at most SANITIZED_LENGTH characters, so a cleared model's names do not stay.
 */
const sanitized = new Map();
const SANITIZED_KEPT = 4096;
const SANITIZED_LENGTH = 64;

/** PropertyBinding.sanitizeNodeName(name), its two replaces made once a name. */
function sanitizeNodeName(name) {
  if (!UNSAFE_NODE_NAME.test(name)) return name;
  if (name.length > SANITIZED_LENGTH) return THREE.PropertyBinding.sanitizeNodeName(name);
  let safe = sanitized.get(name);
  if (safe === undefined) {
    if (sanitized.size >= SANITIZED_KEPT) sanitized.clear();
    safe = THREE.PropertyBinding.sanitizeNodeName(name);
    sanitized.set(name, safe);
  }
  return safe;
}

/** Track-safe, unique node names; the file's own name stays in userData.sourceName. */
export function uniqueNodeNames(names, fallback = 'bone') {
  const seen = new Map();
  return names.map((raw, i) => {
    let n = sanitizeNodeName(String(raw ?? '')) || `${fallback}_${i}`;
    const lower = n.toLowerCase();
    const count = seen.get(lower) ?? 0;
    seen.set(lower, count + 1);
    if (count > 0) n = `${n}_${count + 1}`;
    return n;
  });
}

const boneOffset = new THREE.Matrix4();
const IDENTITY = new THREE.Matrix4();

/**
 * A Skeleton whose bone texture goes to the GPU again only when a bone has moved. three.js uploads
 * every skeleton's texture every frame; in a drop of a thousand characters, one of them playing,
 * those uploads of unchanged matrices took most of each frame.
 */
export class StillSkeleton extends THREE.Skeleton {
  update() {
    const { bones, boneInverses, boneMatrices, boneTexture } = this;
    let moved = false;
    for (let i = 0; i < bones.length; i++) {
      // The offset between the bone's current and its bind transform, as three.js computes it.
      const e = boneOffset.multiplyMatrices(bones[i] ? bones[i].matrixWorld : IDENTITY, boneInverses[i]).elements;
      for (let k = 0, at = i * 16; k < 16; k++, at++) {
        const v = Math.fround(e[k]); // as the Float32Array holds it
        if (boneMatrices[at] !== v) {
          boneMatrices[at] = v;
          moved = true;
        }
      }
    }
    if (moved && boneTexture !== null) boneTexture.needsUpdate = true;
  }

  /**
   * A bone by name through a map: an AnimationMixer binds each track with this (PropertyBinding
   * asks a root's `skeleton` first), where searching the node tree for each of 250 tracks took
   * 100 ms when a large character's clip was first played. The map is made again only when bones
   * were renamed: a track for a bone the mesh does not have (an animation made for another mesh)
   * made it again at each miss, 120 ms of one task binding a clip of the psk sample folder.
   */
  getBoneByName(name) {
    let bone = this._byName?.get(name);
    if (bone?.name === name) return bone;
    if (!this._byName || bone || this.bones.some((b) => b.name === name)) {
      this._byName = new Map(this.bones.map((b) => [b.name, b]));
      bone = this._byName.get(name);
    }
    return bone;
  }
}

export function buildSkeleton(skel) {
  const { names: sourceNames, parents, restTranslation: t, restRotation: r, restScale: s } = skel;
  const n = sourceNames.length;
  const names = uniqueNodeNames(sourceNames);
  const bones = new Array(n);
  for (let i = 0; i < n; i++) {
    const b = new THREE.Bone();
    b.name = names[i];
    b.userData.sourceName = sourceNames[i];
    b.userData.index = i;
    b.position.fromArray(t, i * 3);
    b.quaternion.fromArray(r, i * 4);
    if (s) b.scale.fromArray(s, i * 3);
    bones[i] = b;
  }
  const roots = [];
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    if (p >= 0 && p < n && p !== i) bones[p].add(bones[i]);
    else roots.push(bones[i]);
  }
  return { bones, roots };
}

/**
 * The bind inverses of a decoded skeleton's rest pose, straight from its typed arrays (no Bones):
 * each bone's world matrix is its parent's times its own, solved parents first whatever order the
 * bones come in, then inverted. A bone whose parent is out of range, itself or on a cycle is a root.
 * @returns {THREE.Matrix4[]}
 */
export function restInverses(skel) {
  const n = skel.names.length;
  const { parents, restTranslation: t, restRotation: r, restScale: s } = skel;
  const world = new Array(n);
  const onChain = new Uint8Array(n);
  const chain = [];
  const position = new THREE.Vector3(),
    rotation = new THREE.Quaternion(),
    scale = new THREE.Vector3(1, 1, 1);
  for (let start = 0; start < n; start++) {
    // Up to the first solved ancestor (or a root), then solved back down.
    chain.length = 0;
    for (let i = start; !world[i] && !onChain[i];) {
      chain.push(i);
      onChain[i] = 1;
      const p = parents[i];
      if (p < 0 || p >= n || p === i) break;
      i = p;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const i = chain[k];
      const local = new THREE.Matrix4().compose(
        position.fromArray(t, i * 3),
        rotation.fromArray(r, i * 4),
        s ? scale.fromArray(s, i * 3) : scale.set(1, 1, 1),
      );
      const p = parents[i];
      world[i] = p >= 0 && p < n && p !== i && world[p] ? local.premultiply(world[p]) : local;
    }
  }
  for (const m of world) m.invert();
  return world;
}

/**
 * Smooth normals of an indexed mesh, as three's computeVertexNormals() makes them (each triangle's
 * area-weighted normal added to its corners in float32, then normalised: the same numbers), in one
 * pass over the typed arrays instead of three's per-vertex accessors.
 */
export function vertexNormals(p, ix) {
  const n = new Float32Array(p.length);
  const count = ix.length - (ix.length % 3);
  const face = [0, 0, 0];
  for (let i = 0; i < count; i += 3) {
    const a = ix[i] * 3,
      b = ix[i + 1] * 3,
      c = ix[i + 2] * 3;
    const [x, y, z] = triangleNormal(p, a, b, c, face);
    // A repeated corner makes a zero normal, so adding it to the same vertex twice changes nothing.
    n[a] += x;
    n[a + 1] += y;
    n[a + 2] += z;
    n[b] += x;
    n[b + 1] += y;
    n[b + 2] += z;
    n[c] += x;
    n[c + 1] += y;
    n[c + 2] += z;
  }
  for (let i = 0; i + 2 < n.length; i += 3) {
    const x = n[i],
      y = n[i + 1],
      z = n[i + 2];
    const s = 1 / (Math.sqrt(x * x + y * y + z * z) || 1);
    n[i] = x * s;
    n[i + 1] = y * s;
    n[i + 2] = z * s;
  }
  return n;
}

export function buildGeometry(mesh) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(mesh.positions, 3));
  if (mesh.normals) g.setAttribute('normal', new THREE.BufferAttribute(mesh.normals, 3));
  (mesh.uvs ?? []).forEach((uv, i) => g.setAttribute(i === 0 ? 'uv' : `uv${i}`, new THREE.BufferAttribute(uv, 2)));
  if (mesh.colors) g.setAttribute('color', new THREE.BufferAttribute(mesh.colors, 4, true));
  g.setIndex(new THREE.BufferAttribute(mesh.indices, 1));
  for (const gr of mesh.groups ?? []) g.addGroup(gr.start, gr.count, gr.material);
  if (mesh.skinIndex) {
    g.setAttribute('skinIndex', new THREE.BufferAttribute(mesh.skinIndex, 4));
    g.setAttribute('skinWeight', new THREE.BufferAttribute(mesh.skinWeight, 4));
  }
  if (mesh.morphs?.length) {
    g.morphTargetsRelative = true;
    g.morphAttributes.position = mesh.morphs.map((m) => {
      const a = new THREE.BufferAttribute(m.positions, 3);
      a.name = m.name;
      return a;
    });
    if (mesh.morphs.every((m) => m.normals)) {
      g.morphAttributes.normal = mesh.morphs.map((m) => new THREE.BufferAttribute(m.normals, 3));
    }
  }
  if (!mesh.normals) g.setAttribute('normal', new THREE.BufferAttribute(vertexNormals(mesh.positions, mesh.indices), 3));
  // The decoder measured them (no JS pass over a million vertices on the main thread): the rest
  // pose, or with morph targets the numbers three's own measuring gives (morphedBounds).
  const measured = mesh.morphs?.length ? mesh.morphedBounds : mesh.bounds;
  if (measured) {
    const { min, max, center, radius } = measured;
    g.boundingBox = new THREE.Box3(new THREE.Vector3(...min), new THREE.Vector3(...max));
    g.boundingSphere = new THREE.Sphere(new THREE.Vector3(...center), radius);
  } else {
    g.computeBoundingBox();
    g.computeBoundingSphere();
  }
  return g;
}

// Distinct, readable colours for untextured materials.
const PALETTE = [0xc8b49a, 0x8fa8c8, 0xb6c88f, 0xc88f9f, 0xa38fc8, 0xc8bd8f, 0x8fc8bf, 0xc8a08f];
/** 0 A.D.'s player colour until the page sets one. */
const PLAYER_COLOR = 0x2a5bd7;

export function buildMaterial(m, index) {
  const mat = new THREE.MeshStandardMaterial({ color: PALETTE[index % PALETTE.length], roughness: 0.75, metalness: 0.05 });
  mat.name = m.name;
  mat.userData.source = m;
  mat.side = m.twoSided ? THREE.DoubleSide : THREE.FrontSide;
  mat.flatShading = !!m.flat;
  mat.visible = !m.hidden;
  useBlend(mat, m.blend);
  if (m.playerColor) usePlayerColor(mat);
  return mat;
}

/**
 * An unlit material (and a modulated one, which the engine never lights): a MeshBasicMaterial
 * with what buildMaterial would set that a basic material has (no flat shading; a player colour
 * as its uniform only, the lit shader's change is not made).
 */
function buildUnlitMaterial(m, index) {
  const mat = new THREE.MeshBasicMaterial({ color: PALETTE[index % PALETTE.length] });
  mat.name = m.name;
  mat.userData.source = m;
  mat.side = m.twoSided ? THREE.DoubleSide : THREE.FrontSide;
  mat.visible = !m.hidden;
  useBlend(mat, m.blend);
  if (m.playerColor) mat.userData.playerColor = { value: new THREE.Color(PLAYER_COLOR) };
  return mat;
}

function useBlend(mat, blend) {
  switch (blend) {
    // Texture alpha only matters here: opaque materials are drawn with alpha forced to 1.
    case 'masked':
      mat.alphaTest = 0.5;
      break;
    // UE1 "translucent" is additive-ish: (ONE, ONE_MINUS_SRC_COLOR), no depth write.
    case 'translucent':
      Object.assign(mat, {
        transparent: true,
        blending: THREE.CustomBlending,
        blendSrc: THREE.OneFactor,
        blendDst: THREE.OneMinusSrcColorFactor,
        depthWrite: false,
      });
      break;
    // UE1 "modulated" is a 2× modulate of what is behind: (DST_COLOR, SRC_COLOR), no depth write.
    case 'modulated':
      Object.assign(mat, {
        transparent: true,
        blending: THREE.CustomBlending,
        blendSrc: THREE.DstColorFactor,
        blendDst: THREE.SrcColorFactor,
        depthWrite: false,
      });
      break;
    default:
      break;
  }
}

/**
 * Draws a two-sided material whose blend gives the same picture whatever order its faces come in
 * in one pass (faces a and b over d: UE1 translucent makes a + b - ab + d(1 - a)(1 - b), modulated 4abd):
 * three draws a two-sided transparent material's back faces, then its front faces, each pass with
 * a shader program of its own. True if it changed the material.
 */
export function blendBothSidesAtOnce(mat) {
  const orderFree =
    (mat.blendSrc === THREE.OneFactor && mat.blendDst === THREE.OneMinusSrcColorFactor) ||
    (mat.blendSrc === THREE.DstColorFactor && mat.blendDst === THREE.SrcColorFactor);
  if (mat.forceSinglePass || !mat.transparent || mat.blending !== THREE.CustomBlending || !orderFree) return false;
  mat.forceSinglePass = true;
  mat.needsUpdate = true;
  return true;
}

/**
 * 0 A.D. player_trans materials: the base texture's alpha is not transparency but a mask, and the
 * engine's shader multiplies the colour by mix(playerColor, 1, alpha). `material.userData.playerColor`
 * is the uniform (a THREE.Color in .value) to change the colour.
 */
export function usePlayerColor(mat, color = PLAYER_COLOR) {
  const uniform = { value: new THREE.Color(color) };
  mat.userData.playerColor = uniform;
  mat.onBeforeCompile = (shader) => {
    shader.uniforms.playerColor = uniform;
    shader.fragmentShader = `uniform vec3 playerColor;\n${shader.fragmentShader.replace(
      '#include <map_fragment>',
      `#include <map_fragment>
#ifdef USE_MAP
  diffuseColor.rgb *= mix(playerColor, vec3(1.0), sampledDiffuseColor.a);
  diffuseColor.a = 1.0;
#endif`,
    )}`;
  };
  mat.customProgramCacheKey = () => 'player_trans';
  return uniform;
}

/** Unlit materials (and modulated ones, which the engine never lights) become MeshBasicMaterial with the same settings. */
export function buildMaterials(materials) {
  const list = materials.length ? materials : [{ name: 'default', textureNames: [], blend: 'opaque' }];
  return list.map((m, i) => (m.unlit || m.blend === 'modulated' ? buildUnlitMaterial(m, i) : buildMaterial(m, i)));
}

/** Above this many vertices, skinned bounds come from the bind pose (no per-vertex skinning on the CPU). */
export const LARGE_SKINNED_VERTICES = 60000;

/**
 * Builds one mesh: a SkinnedMesh bound to `skeleton` when the mesh has skin arrays, else a Mesh.
 * Bind with the mesh at identity and the bones in rest pose (the decoded positions are model space).
 */
export function buildMesh(mesh, materials, skeleton) {
  const geometry = buildGeometry(mesh);
  const mats = mesh.groups?.length ? materials : materials[0];
  let object;
  if (mesh.skinIndex && skeleton) {
    object = new THREE.SkinnedMesh(geometry, mats);
    // Bound at identity: its own bindMatrix is one already (no Matrix4 made to copy from).
    object.bind(skeleton, object.bindMatrix);
    // A skinned mesh's bounds are computed once, from whatever pose it is in: never cull it.
    object.frustumCulled = false;
    // three computes a SkinnedMesh's own bounds by skinning every vertex on the CPU. The renderer
    // asks for its sphere at its first draw, to sort draws by depth (unculled or not): 75-170 ms
    // in one frame for the psk and zeroad sample folders. The geometry's bind-pose sphere, the pose
    // it is built in, stands in: it only orders the draws, and nothing else asks for it.
    object.boundingSphere = geometry.boundingSphere.clone();
    // Box3.expandByObject asks for its box even when not precise (230 ms for 1M vertices): large
    // meshes get the bind-pose box too (the viewer's 60k limit); the others' is skinned when asked.
    if (geometry.attributes.position.count >= LARGE_SKINNED_VERTICES) object.boundingBox = geometry.boundingBox.clone();
  } else {
    object = new THREE.Mesh(geometry, mats);
  }
  // (Its morph targets were listed by three's Mesh constructor, from the geometry's morph attributes.)
  object.name = mesh.name;
  return object;
}

/**
 * Builds an AnimationClip from a decoded clip (the file's frames, one key each). `map[trackBone]`
 * gives the skeleton bone index (identity when omitted); tracks whose bone is unmatched are
 * dropped. A looping clip gets one more key, a copy of its first, one frame after its last, so
 * the loop blends back smoothly; a clip that plays once ends on its last frame.
 */
export function buildClip(clip, bones, map = null, loop = clip.loop) {
  const n = clip.frameCount;
  const period = n / (clip.fps || 30);
  const tracks = [];
  const keys = (values, size, quaternion) => {
    const first = values.subarray(0, n * size);
    if (!loop) return first;
    const out = new Float32Array((n + 1) * size);
    out.set(first);
    let sign = 1;
    if (quaternion) {
      // Keep the wrap key on the last key's hemisphere, or the blend turns the long way round.
      let dot = 0;
      for (let k = 0; k < 4; k++) dot += first[(n - 1) * 4 + k] * first[k];
      if (dot < 0) sign = -1;
    }
    for (let k = 0; k < size; k++) out[n * size + k] = sign * first[k];
    return out;
  };
  let times = null,
    timesOf = null;
  for (const tr of clip.tracks) {
    const b = map ? map[tr.bone] : tr.bone;
    if (b === undefined || b < 0 || b >= bones.length || n === 0) continue;
    if (timesOf !== tr.times) {
      // Tracks of one clip usually share one times array: build the key times once for them.
      times = loop ? Float32Array.from({ length: n + 1 }, (_, k) => (k < n ? tr.times[k] : period)) : tr.times.subarray(0, n);
      timesOf = tr.times;
    }
    const name = bones[b].name;
    if (tr.translation) tracks.push(new THREE.VectorKeyframeTrack(`${name}.position`, times, keys(tr.translation, 3)));
    if (tr.rotation) tracks.push(new THREE.QuaternionKeyframeTrack(`${name}.quaternion`, times, keys(tr.rotation, 4, true)));
    if (tr.scale) tracks.push(new THREE.VectorKeyframeTrack(`${name}.scale`, times, keys(tr.scale, 3)));
  }
  return new THREE.AnimationClip(clip.name, loop ? period : Math.max(0, n - 1) / (clip.fps || 30), tracks);
}
