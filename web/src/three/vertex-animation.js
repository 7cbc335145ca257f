// Vertex animation (UE1 meshes): all frames stay in one Float32Array and the current pose is the
// blend of two frames written into the mesh's position (and normal) buffer. One dynamic buffer
// instead of one morph target per frame: three's morph path breaks with hundreds of frames.
import * as THREE from 'three';

export class VertexAnimation {
  /**
   * @param {THREE.Mesh} mesh whose position attribute has `data.vertexCount` vertices
   * @param {{frameCount:number, vertexCount:number, frames:Float32Array, normals?:Float32Array, sequences:object[]}} data
   */
  constructor(mesh, data) {
    this.mesh = mesh;
    this.data = data;
    this.stride = data.vertexCount * 3;
    // The animated property: an absolute frame number, driven by a NumberKeyframeTrack.
    mesh.vertexFrame = 0;
    this.sequence = { startFrame: 0, frameCount: data.frameCount, loop: true };
    this._last = -1;
    mesh.geometry.attributes.position.setUsage(THREE.DynamicDrawUsage);
    mesh.geometry.attributes.normal?.setUsage(THREE.DynamicDrawUsage);
  }

  /**
   * One clip per sequence: frame numbers keyed at the sequence's rate. A looping clip has one
   * more key past the last frame, which update() shows as the first frame again.
   */
  clipFor(seq, loop = true) {
    const n = Math.max(1, seq.frameCount);
    const rate = seq.rate > 0 ? seq.rate : 30;
    const keys = loop ? n + 1 : n;
    const times = new Float32Array(keys);
    const values = new Float32Array(keys);
    for (let k = 0; k < keys; k++) {
      times[k] = k / rate;
      values[k] = seq.startFrame + k;
    }
    const track = new THREE.NumberKeyframeTrack(`${this.mesh.name}.vertexFrame`, times, values);
    return new THREE.AnimationClip(seq.name, (loop ? n : n - 1) / rate, [track]);
  }

  setSequence(seq, loop = true) {
    this.sequence = { startFrame: seq.startFrame, frameCount: Math.max(1, seq.frameCount), loop };
    this._last = -1;
  }

  /** Writes the blended pose for mesh.vertexFrame into the geometry. */
  update() {
    const f = this.mesh.vertexFrame;
    if (f === this._last) return;
    this._last = f;
    const { startFrame, frameCount, loop } = this.sequence;
    const end = startFrame + frameCount;
    const clampFrame = (k) => Math.min(Math.max(k, 0), this.data.frameCount - 1);
    let a = Math.floor(f);
    const t = f - a;
    let b = a + 1;
    if (a >= end) a = loop ? startFrame : end - 1;
    if (b >= end) b = loop ? startFrame : end - 1;
    a = clampFrame(a);
    b = clampFrame(b);
    this._blend(this.mesh.geometry.attributes.position, this.data.frames, a, b, t);
    if (this.data.normals && this.mesh.geometry.attributes.normal) {
      this._blend(this.mesh.geometry.attributes.normal, this.data.normals, a, b, t);
    }
  }

  _blend(attr, frames, a, b, t) {
    const out = attr.array;
    const s = this.stride;
    const oa = a * s;
    const ob = b * s;
    const u = 1 - t;
    for (let i = 0; i < s; i++) out[i] = frames[oa + i] * u + frames[ob + i] * t;
    attr.needsUpdate = true;
  }
}
