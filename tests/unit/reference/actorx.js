// An independent, deliberately plain reading of ActorX files for tests: it shares no code with the
// decoder or the builders, and skins vertices with explicit matrix math in the file's own frame.
import { Matrix4, Quaternion, Vector3 } from 'three';

function chunks(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out = {};
  for (let o = 0; o + 32 <= buf.length;) {
    let id = '';
    for (let i = 0; i < 20 && buf[o + i]; i++) id += String.fromCharCode(buf[o + i]);
    const size = dv.getInt32(o + 24, true);
    const count = dv.getInt32(o + 28, true);
    (out[id] ??= []).push({ offset: o + 32, size, count });
    o += 32 + size * count;
  }
  return { dv, out };
}

const name64 = (buf, o) => {
  let s = '';
  for (let i = 0; i < 64 && buf[o + i]; i++) s += String.fromCharCode(buf[o + i]);
  return s.trimEnd();
};

export function readPsk(buf) {
  const { dv, out } = chunks(buf);
  const P = out.PNTS0000[0],
    W = out.VTXW0000[0],
    B = out.REFSKELT[0],
    R = out.RAWWEIGHTS[0];
  const points = [];
  for (let i = 0; i < P.count; i++) points.push([0, 4, 8].map((k) => dv.getFloat32(P.offset + i * 12 + k, true)));
  const wedges = [];
  for (let i = 0; i < W.count; i++) {
    let p = dv.getUint32(W.offset + i * 16, true);
    if (P.count <= 65536) p &= 0xffff;
    wedges.push({ point: p, u: dv.getFloat32(W.offset + i * 16 + 4, true), v: dv.getFloat32(W.offset + i * 16 + 8, true) });
  }
  const bones = [];
  for (let i = 0; i < B.count; i++) {
    const o = B.offset + i * 120;
    bones.push({
      name: name64(buf, o),
      parent: dv.getInt32(o + 72, true),
      q: [76, 80, 84, 88].map((k) => dv.getFloat32(o + k, true)),
      pos: [92, 96, 100].map((k) => dv.getFloat32(o + k, true)),
    });
  }
  const weights = points.map(() => []);
  for (let i = 0; i < R.count; i++) {
    const o = R.offset + i * 12;
    weights[dv.getInt32(o + 4, true)].push({ w: dv.getFloat32(o, true), bone: dv.getInt32(o + 8, true) });
  }
  return { points, wedges, bones, weights };
}

export function readPsa(buf) {
  const { dv, out } = chunks(buf);
  const BN = out.BONENAMES[0],
    AI = out.ANIMINFO[0],
    K = out.ANIMKEYS[0];
  const names = [];
  for (let i = 0; i < BN.count; i++) names.push(name64(buf, BN.offset + i * 120));
  const sequences = [];
  let first = 0;
  for (let i = 0; i < AI.count; i++) {
    const o = AI.offset + i * 168;
    const frames = dv.getInt32(o + 164, true);
    sequences.push({ name: name64(buf, o), fps: dv.getFloat32(o + 152, true), frames, first });
    first += frames;
  }
  const key = (seq, frame, bone) => {
    const o = K.offset + ((seq.first + frame) * names.length + bone) * 32;
    return { pos: [0, 4, 8].map((k) => dv.getFloat32(o + k, true)), q: [12, 16, 20, 24].map((k) => dv.getFloat32(o + k, true)) };
  };
  return { names, sequences, key };
}

// Root as stored, every other bone conjugated: the ActorX quaternion rule.
function local(pos, q, isRoot) {
  const quat = new Quaternion(q[0], q[1], q[2], q[3]).normalize();
  if (!isRoot) quat.conjugate();
  return new Matrix4().compose(new Vector3(...pos), quat, new Vector3(1, 1, 1));
}

function worlds(bones, localOf) {
  const world = [];
  bones.forEach((b, i) => {
    const l = localOf(i);
    const p = b.parent;
    world[i] = p >= 0 && p !== i && p < i ? world[p].clone().multiply(l) : l;
  });
  return world;
}

/** Bind-pose world matrices (file frame). */
export function bindWorlds(psk) {
  return worlds(psk.bones, (i) => local(psk.bones[i].pos, psk.bones[i].q, i === 0));
}

/**
 * Skinned position of wedge `w` at `frame` of `seq`, in the file frame, with PSA bone i driving
 * PSK bone i (identical bone lists). Weights: the 4 strongest, normalised.
 */
export function skinnedWedge(psk, psa, seq, frame, w) {
  const bind = bindWorlds(psk);
  const anim = worlds(psk.bones, (i) => {
    const k = psa.key(seq, frame, i);
    return local(k.pos, k.q, i === 0);
  });
  const p = psk.points[psk.wedges[w].point];
  const inf = [...psk.weights[psk.wedges[w].point]].sort((a, b) => b.w - a.w).slice(0, 4);
  const sum = inf.reduce((s, x) => s + x.w, 0);
  const out = new Vector3();
  for (const { w: weight, bone } of inf) {
    const m = anim[bone].clone().multiply(bind[bone].clone().invert());
    out.addScaledVector(new Vector3(...p).applyMatrix4(m), weight / sum);
  }
  return out;
}

/** File frame (right-handed Z-up) to three.js (Y-up). */
export const toThree = (v) => new Vector3(v.x, v.z, -v.y);
