// An independent, deliberately plain reading of 0 A.D. PMD and PSSA files for tests: it shares no
// code with the decoder or the builders. It skins with explicit matrices in the game's own
// left-handed space (spec §2, §3) and converts to three.js space only at the end (spec §5: z = −z).
import { Matrix4, Quaternion, Vector3 } from 'three';

function reader(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let o = 0;
  return {
    u8: () => dv.getUint8(o++),
    u16: () => {
      const v = dv.getUint16(o, true);
      o += 2;
      return v;
    },
    u32: () => {
      const v = dv.getUint32(o, true);
      o += 4;
      return v;
    },
    f32: () => {
      const v = dv.getFloat32(o, true);
      o += 4;
      return v;
    },
    str: (n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(dv.getUint8(o++));
      return s;
    },
    get offset() {
      return o;
    },
  };
}

const state = (r) => ({ t: [r.f32(), r.f32(), r.f32()], q: [r.f32(), r.f32(), r.f32(), r.f32()] });

export function readPmd(buf) {
  const r = reader(buf);
  const magic = r.str(4),
    version = r.u32();
  r.u32(); // payload size
  const nv = r.u32();
  const nuv = version >= 4 ? r.u32() : 1;
  const vertices = [];
  for (let i = 0; i < nv; i++) {
    const pos = [r.f32(), r.f32(), r.f32()],
      normal = [r.f32(), r.f32(), r.f32()];
    const uvs = [];
    for (let k = 0; k < nuv; k++) uvs.push([r.f32(), r.f32()]);
    const bones = [r.u8(), r.u8(), r.u8(), r.u8()];
    const weights = [r.f32(), r.f32(), r.f32(), r.f32()];
    vertices.push({ pos, normal, uvs, bones, weights });
  }
  const nf = r.u32();
  const faces = [];
  for (let i = 0; i < nf; i++) faces.push([r.u16(), r.u16(), r.u16()]);
  const nb = r.u32();
  const bones = [];
  for (let i = 0; i < nb; i++) bones.push(state(r));
  const props = [];
  if (version >= 2) {
    const np = r.u32();
    for (let i = 0; i < np; i++) {
      const name = r.str(r.u32());
      const s = state(r);
      props.push({ name, ...s, bone: r.u8() });
    }
  }
  return { magic, version, uvSets: nuv, vertices, faces, bones, props, end: r.offset };
}

export function readPssa(buf) {
  const r = reader(buf);
  const magic = r.str(4),
    version = r.u32();
  r.u32();
  const name = r.str(r.u32());
  const frameLength = r.f32();
  const numBones = r.u32(),
    numFrames = r.u32();
  const keys = [];
  for (let f = 0; f < numFrames; f++) {
    const frame = [];
    for (let b = 0; b < numBones; b++) frame.push(state(r));
    keys.push(frame);
  }
  return { magic, version, name, frameLength, numBones, numFrames, keys, end: r.offset };
}

// T(t)·R(q) in game space (column vectors), as CMatrix3D builds it.
const matrix = ({ t, q }) => new Matrix4().compose(new Vector3(...t), new Quaternion(...q).normalize(), new Vector3(1, 1, 1));

/** Influences as the engine reads them: the first 0xFF ends the list; zero weights dropped; weights normalised. */
export function influences(pmd, v) {
  const { bones, weights } = pmd.vertices[v];
  const list = [];
  for (let k = 0; k < 4 && bones[k] !== 0xff; k++)
    if (weights[k] > 0 && bones[k] <= pmd.bones.length) list.push({ bone: bones[k], w: weights[k] });
  const sum = list.reduce((s, x) => s + x.w, 0);
  return list.map((x) => ({ ...x, w: x.w / sum }));
}

/** The bone matrix of index `b` from `states`; index == bone count is the bind shape (identity). */
const boneMatrix = (states, b) => (b < states.length ? matrix(states[b]) : new Matrix4());

/** Bind-pose model-space position of vertex `v` (v1/v2 vertices are stored relative to their bones). */
export function bindPosition(pmd, v) {
  const p = new Vector3(...pmd.vertices[v].pos);
  if (pmd.version > 2) return p;
  const out = new Vector3();
  for (const { bone, w } of influences(pmd, v)) out.addScaledVector(p.clone().applyMatrix4(boneMatrix(pmd.bones, bone)), w);
  return out;
}

/** Vertex `v` skinned with PSSA frame `f` (linear blend, Pose · InvBind), in three.js space. */
export function skinnedVertex(pmd, psa, f, v) {
  const p = bindPosition(pmd, v);
  const out = new Vector3();
  for (const { bone, w } of influences(pmd, v)) {
    const skin = boneMatrix(psa.keys[f], bone).multiply(boneMatrix(pmd.bones, bone).invert());
    out.addScaledVector(p.clone().applyMatrix4(skin), w);
  }
  return toThree(out);
}

/** Game space (left-handed, Y up) → three.js space. */
export const toThree = (v) => new Vector3(v.x, v.y, -v.z);
