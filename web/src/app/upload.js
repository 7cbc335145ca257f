// Large meshes reach the GPU in slices across frames, before they are first drawn. three.js uploads
// a geometry's arrays with one gl.bufferData each in the first frame that draws it; a 1M-wedge mesh
// (68 MB) then holds the main thread for well over 50 ms while the browser hands the bytes to the
// GPU process. Here each array of a large mesh goes first into a staging buffer, a slice per frame
// (bufferSubData, sized to a few milliseconds by the rate measured so far, the next one sent once the
// GPU process has taken the last, see _drained), while the mesh is kept
// out of view (no layer). When three then creates its buffer for that array, it gets an allocation
// and a copy made on the GPU side (copyBufferSubData) instead of the bytes again. three has no API
// to allocate a buffer without data or to fill it in parts before its first draw, so the one
// bufferData call of the context is wrapped, and only arrays staged here are treated differently.

/** Meshes whose arrays sum to more than this many bytes are uploaded in slices. */
export const SLICED_UPLOAD_BYTES = 2 * 1024 * 1024;

/** What one frame's slices aim to cost on the main thread, in ms. */
const SLICE_MS = 6;

export class SlicedUploads {
  /** @param {import('three').WebGLRenderer} renderer */
  constructor(renderer, { threshold = SLICED_UPLOAD_BYTES } = {}) {
    this.threshold = threshold;
    /** Bytes the next frame's slices may carry; follows the measured rate. */
    this.sliceBytes = 1024 * 1024;
    this.minSliceBytes = 64 * 1024;
    // Larger slices outgrow the browser's transfer buffer, and the call then waits for the GPU
    // process mid-slice (16 MB took 115-135 ms; 2 MB slices take 0-2 ms, a few up to 40).
    this.maxSliceBytes = 2 * 1024 * 1024;
    /** Counts for tests and the bench: arrays staged, slices sent, arrays handed to three, staging freed unused. */
    this.stats = { arrays: 0, slices: 0, handed: 0, freed: 0 };
    this._staged = new WeakMap(); // typed array -> { buffer, element }
    this._pending = new Set(); // meshes not yet shown
    const gl = (this.gl = renderer.getContext());
    // three asks for this one at its first texture (a skeleton's bones): asking waits for the GPU
    // process, so ask now, while it is idle, not behind the copies of a large mesh's first draw.
    renderer.extensions.has('EXT_texture_filter_anisotropic');
    const bufferData = gl.bufferData;
    const staged = this._staged;
    const stats = this.stats;
    gl.bufferData = function (target, data, usage, ...rest) {
      const s = data && typeof data === 'object' ? staged.get(data) : undefined;
      if (!s || !s.done) return bufferData.call(this, target, data, usage, ...rest);
      staged.delete(data);
      if (s.attribute.version !== s.version) {
        // Written on the CPU since it was staged (a vertex-animated frame): three's bytes are newer.
        this.deleteBuffer(s.buffer);
        stats.freed++;
        return bufferData.call(this, target, data, usage, ...rest);
      }
      // three creates the buffer of an array already on the GPU: allocate, copy there.
      bufferData.call(this, target, data.byteLength, usage);
      this.bindBuffer(this.COPY_READ_BUFFER, s.buffer);
      this.copyBufferSubData(this.COPY_READ_BUFFER, target, 0, 0, data.byteLength);
      this.bindBuffer(this.COPY_READ_BUFFER, null);
      this.deleteBuffer(s.buffer);
      stats.handed++;
    };
  }

  /** Meshes still uploading (kept out of view). */
  get pending() {
    return this._pending.size;
  }

  /** Meshes of `root` large enough to be sliced. */
  large(root) {
    const out = [];
    root.traverse((o) => {
      if (o.isMesh && o.geometry && arraysOf(o.geometry).reduce((n, a) => n + a.attribute.array.byteLength, 0) > this.threshold)
        out.push(o);
    });
    return out;
  }

  /**
   * Uploads the large meshes of `root` in slices, each kept out of view until all its arrays are
   * on the GPU; `onShown` runs when they are shown (the view draws again). Resolves then.
   */
  async stage(root, onShown = () => {}) {
    const meshes = this.large(root).filter((m) => !this._pending.has(m));
    if (!meshes.length) return;
    const jobs = meshes.map((mesh) => this._hold(mesh));
    for (const job of jobs) {
      for (const s of job.entries) {
        const live = () => !job.disposed && this._staged.get(s.array) === s && s.sent < s.array.byteLength;
        while (live()) {
          await nextFrame();
          if (!live()) break;
          this._slice(s);
          await this._drained();
        }
        s.done = s.sent >= s.array.byteLength;
      }
      this._pending.delete(job.mesh);
      if (!job.disposed) job.mesh.layers.mask = job.layers;
    }
    onShown();
  }

  /**
   * Keeps `mesh` out of view and stages its arrays. An array already staged for another mesh (a
   * character built again while it uploads) is shared, and freed when no mesh needs it any more.
   */
  _hold(mesh) {
    this._pending.add(mesh);
    const job = { mesh, layers: mesh.layers.mask, disposed: false, entries: [] };
    mesh.layers.disableAll(); // not drawn, so three neither uploads nor draws it, until staged
    for (const { attribute, element } of arraysOf(mesh.geometry)) {
      const array = attribute.array;
      let s = this._staged.get(array);
      if (!s) {
        s = {
          buffer: this._allocate(array.byteLength, element),
          array,
          attribute,
          version: attribute.version,
          sent: 0,
          done: false,
          users: 0,
        };
        this._staged.set(array, s);
        this.stats.arrays++;
      }
      s.users++;
      job.entries.push(s);
    }
    // A geometry disposed before three took its arrays (Clear while uploading) frees their staging.
    mesh.geometry.addEventListener('dispose', () => {
      job.disposed = true;
      for (const s of job.entries) if (--s.users === 0 && this._staged.get(s.array) === s) this._free(s);
    });
    return job;
  }

  _free(s) {
    this._staged.delete(s.array);
    this.gl.deleteBuffer(s.buffer);
    this.stats.freed++;
  }

  /**
   * Resolves once the GPU process has done everything sent so far (a fence, polled once a frame):
   * a slice sent while it is still busy would wait for it on the main thread, and so would any
   * call that needs an answer from it (a resize, a first getExtension).
   */
  async _drained() {
    const gl = this.gl;
    const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
    gl.flush();
    try {
      while (sync && gl.getSyncParameter(sync, gl.SYNC_STATUS) !== gl.SIGNALED && !gl.isContextLost()) await nextFrame();
    } finally {
      gl.deleteSync(sync);
    }
  }

  /** A staging buffer of `bytes`, typed for indices when `element` (WebGL 2 keeps the two kinds apart). */
  _allocate(bytes, element) {
    const gl = this.gl;
    const buffer = gl.createBuffer();
    if (element) {
      // The element binding belongs to the bound vertex array: type the buffer with none bound,
      // and leave every binding as three left it.
      const vao = gl.getParameter(gl.VERTEX_ARRAY_BINDING);
      gl.bindVertexArray(null);
      const was = gl.getParameter(gl.ELEMENT_ARRAY_BUFFER_BINDING);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, bytes, gl.STATIC_DRAW);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, was);
      gl.bindVertexArray(vao);
    } else {
      gl.bindBuffer(gl.COPY_WRITE_BUFFER, buffer);
      gl.bufferData(gl.COPY_WRITE_BUFFER, bytes, gl.STATIC_DRAW);
      gl.bindBuffer(gl.COPY_WRITE_BUFFER, null);
    }
    return buffer;
  }

  /** Sends the next slice of a staged array, sized to SLICE_MS at the rate measured so far. */
  _slice(s) {
    const gl = this.gl;
    const per = s.array.BYTES_PER_ELEMENT;
    const count = Math.min(
      Math.max(1, Math.floor(Math.min(this.sliceBytes, this.maxSliceBytes) / per)),
      (s.array.byteLength - s.sent) / per,
    );
    const started = performance.now();
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, s.buffer);
    gl.bufferSubData(gl.COPY_WRITE_BUFFER, s.sent, s.array, s.sent / per, count);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, null);
    const ms = performance.now() - started;
    s.sent += count * per;
    this.stats.slices++;
    // Follow the measured rate, at most doubling a frame.
    const fit = ms > 0.5 ? (count * per * SLICE_MS) / ms : this.sliceBytes * 2;
    this.sliceBytes = Math.min(this.maxSliceBytes, Math.max(this.minSliceBytes, Math.min(this.sliceBytes * 2, fit)));
  }
}

/**
 * A geometry's typed arrays that three uploads as buffers: attributes and the index (morph targets
 * go into a texture in WebGL 2, not a buffer).
 */
function arraysOf(geometry) {
  const out = Object.values(geometry.attributes)
    .filter((a) => a?.array && !a.isInterleavedBufferAttribute && !a.isGLBufferAttribute)
    .map((attribute) => ({ attribute, element: false }));
  if (geometry.index?.array) out.push({ attribute: geometry.index, element: true });
  // One array may back two attributes: stage it once.
  return out.filter((x, i) => out.findIndex((y) => y.attribute.array === x.attribute.array) === i);
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
