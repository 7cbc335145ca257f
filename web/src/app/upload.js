// Large meshes reach the GPU in slices across frames, before they are first drawn. three.js uploads
// a geometry's arrays with one gl.bufferData each in the first frame that draws it; a 1M-wedge mesh
// (68 MB) then holds the main thread for well over 50 ms while the browser hands the bytes to the
// GPU process. Here a large mesh is drawn from its first frame with an empty draw range (nothing
// reaches the screen), so three creates its buffers then; the one bufferData call of the context is
// wrapped, and for an array of such a mesh it only allocates three's buffer. The bytes then go into
// three's own buffer, several slices a frame (bufferSubData), as many as fit a few milliseconds of
// the main thread and as the GPU process has taken by the next frame (a fence): the bytes a frame
// carries double while both hold and halve when a frame goes over, and one call's size halves when
// that call alone did (the GPU process was busy: under load a 1 MB call waited 106 ms). Once every
// array is in, the draw range comes back and the mesh shows. Allocating costs the GPU process too
// (WebGL clears each buffer: 68 MB took it 0.4-1.5 s here), so no slice goes in before that is done. three has no API to allocate a buffer without data or to
// fill it in parts before its first draw, hence the wrapper; only arrays staged here are touched.
//
// Many small meshes at once (a drop of hundreds of characters) reach the GPU a frame's share at a
// time too: each frame draws at most FIRST_DRAWS_PER_FRAME meshes for the first time, and the rest
// wait off the camera's layers, in the order they came.

/** Meshes whose arrays sum to more than this many bytes are uploaded in slices. */
export const SLICED_UPLOAD_BYTES = 2 * 1024 * 1024;

/**
 * Meshes three may draw for the first time in one frame. A first draw makes the mesh's buffers,
 * its vertex array and its skeleton's bone texture: about 0.13 ms a mesh in Chromium on software
 * GL (a drop of 2,000 files drew 1,132 new meshes in one 147 ms frame). Beyond these, a mesh waits
 * off the camera's layers for a later frame: three neither draws nor uploads it meanwhile.
 */
export const FIRST_DRAWS_PER_FRAME = 120;

/** Main-thread time one frame's slices may take, in ms: the rest of the frame is the page's. */
const FRAME_BUDGET_MS = 8;

/** Renders a staged mesh may go untaken while visible before it is shown as it is (three had its arrays already). */
const UNTAKEN_RENDERS = 3;

export class SlicedUploads {
  /** @param {import('three').WebGLRenderer} renderer */
  constructor(renderer, { threshold = SLICED_UPLOAD_BYTES, firstDraws = FIRST_DRAWS_PER_FRAME } = {}) {
    this.threshold = threshold;
    /** New meshes one frame may draw; the rest wait (FIRST_DRAWS_PER_FRAME). */
    this.firstDraws = firstDraws;
    this._room = { frame: -1, left: 0 }; // first draws the current frame has room for
    this._waiting = []; // { mesh, mask, group }: new meshes kept off the camera's layers, oldest first
    this.renderer = renderer;
    /** Bytes the next frame may carry: doubles while frames stay cheap, halves when a slice blocks. */
    this.frameBytes = 2 * 1024 * 1024;
    this.minSliceBytes = 64 * 1024;
    // One call larger than the browser's transfer buffer waits for the GPU process mid-call (16 MB
    // took 115-135 ms cold; 2 MB up to 45 ms with the machine loaded); a frame sends several calls
    // of at most this size instead.
    this.maxSliceBytes = 1024 * 1024;
    /** Bytes of one call now: halves when a call alone goes over the budget, doubles back when frames are cheap. */
    this.sliceBytes = this.maxSliceBytes;
    /** At most this many bytes a frame, however cheap frames are. */
    this.maxFrameBytes = 64 * 1024 * 1024;
    this.budgetMs = FRAME_BUDGET_MS;
    /** Frames whose slices the GPU process may still be working on when the next frame sends. */
    this.inFlight = 2;
    /**
     * Counts for tests and the bench: arrays three allocated and this fills, arrays filled, arrays
     * dropped before filled (their geometry disposed), slices sent, frames that sent, frames that
     * waited for the GPU process, the most bytes one frame carried, the longest frame's slices (ms).
     */
    this.stats = { arrays: 0, filled: 0, dropped: 0, slices: 0, frames: 0, waits: 0, peakFrameBytes: 0, longestFrameMs: 0 };
    this._staged = new Map(); // typed array -> meshes (jobs) waiting for it
    this._targets = []; // { buffer, array, sent }: three's buffers being filled
    this._jobs = new Set(); // { mesh, arrays, drawCount, frustumCulled, renders, resolve }
    /** Set to an array to have every frame's slices recorded ({ at, bytes, ms, slowest, waited }): the bench reads it. */
    this.trace = null;
    this._waited = 0;
    this._fences = []; // one a frame that sent slices (or allocated), until the GPU process has done them
    this._allocating = false; // three allocated buffers since every fence was last signalled
    this._running = false;
    const gl = (this.gl = renderer.getContext());
    // three asks for these at the first texture (a skeleton's bones) and the first DXT texture
    // (PSG, DDS; sRGB or not): asking waits for the GPU process, so ask now, while it is idle, not
    // behind the slices of a large mesh or a large drop's frames (there a first DXT upload held the
    // page 350 ms).
    for (const name of ['EXT_texture_filter_anisotropic', 'WEBGL_compressed_texture_s3tc', 'WEBGL_compressed_texture_s3tc_srgb'])
      renderer.extensions.has(name);
    const bufferData = gl.bufferData;
    const deleteBuffer = gl.deleteBuffer;
    const uploads = this;
    gl.bufferData = function (target, data, usage, ...rest) {
      if (!(data && typeof data === 'object' && uploads._staged.has(data))) return bufferData.call(this, target, data, usage, ...rest);
      // three creates the buffer of a staged array: allocate it only; the slices fill it.
      bufferData.call(this, target, data.byteLength, usage);
      const binding = target === this.ELEMENT_ARRAY_BUFFER ? this.ELEMENT_ARRAY_BUFFER_BINDING : this.ARRAY_BUFFER_BINDING;
      uploads._targets.push({ buffer: this.getParameter(binding), array: data, sent: 0 });
      uploads.stats.arrays++;
      // The GPU process makes (and clears) the whole buffer now: no slice goes in before it is done.
      uploads._fences.push(this.fenceSync(this.SYNC_GPU_COMMANDS_COMPLETE, 0));
      uploads._allocating = true;
      for (const job of uploads._jobs) if (job.arrays.includes(data)) job.taken.add(data);
      uploads._run();
    };
    // three deletes its buffers with their geometry (Clear while uploading): those are not filled.
    gl.deleteBuffer = function (buffer) {
      const i = uploads._targets.findIndex((t) => t.buffer === buffer);
      if (i >= 0) {
        if (uploads._targets[i].sent < uploads._targets[i].array.byteLength) uploads.stats.dropped++;
        uploads._targets.splice(i, 1);
      }
      return deleteBuffer.call(this, buffer);
    };
  }

  /** Meshes still uploading or waiting for their first draw (kept out of view) that can be drawn: a hidden one uploads once shown. */
  get pending() {
    let n = 0;
    for (const job of this._jobs) if (shownInTree(job.mesh)) n++;
    for (const w of this._waiting) if (shownInTree(w.mesh)) n++;
    return n;
  }

  /** Meshes of `root` large enough to be sliced. */
  large(root) {
    const out = [];
    root.traverse((o) => {
      if (o.isMesh && o.geometry && arraysOf(o.geometry).reduce((n, a) => n + a.byteLength, 0) > this.threshold) out.push(o);
    });
    return out;
  }

  /**
   * Uploads the large meshes of `root` in slices, each drawn with nothing in its range until all
   * its arrays are on the GPU; `onShown` runs when they are shown (the view draws again). Resolves then.
   */
  async stage(root, onShown = () => {}) {
    const held = new Set([...this._jobs].map((j) => j.mesh));
    const large = this.large(root);
    const meshes = large.filter((m) => !held.has(m));
    const waits = meshes.map((mesh) => this._hold(mesh));
    const rest = this._firstDrawsOf(root, large, onShown);
    if (rest) waits.push(rest);
    if (!waits.length) return;
    await Promise.all(waits);
    onShown();
  }

  /**
   * The other meshes of `root` (and its lines and points: attachment markers) are drawn from the
   * next frame if it has room for them; those it has none for wait off the camera's layers, and
   * come in frame by frame (`onShown` after each). Resolves once every one is in, or at once when
   * none waits.
   */
  _firstDrawsOf(root, large, onShown) {
    const room = this._roomNow();
    const group = { left: 0, onShown, resolve: () => {} };
    root.traverse((o) => {
      if (!(o.isMesh || o.isLine || o.isPoints) || large.includes(o)) return;
      if (!this._waiting.length && room.left > 0) {
        room.left--;
        return;
      }
      this._waiting.push({ mesh: o, mask: o.layers.mask, group });
      o.layers.mask = 0; // on no camera's layer: three skips it, buffers and all
      group.left++;
    });
    if (!group.left) return null;
    this._run();
    return new Promise((resolve) => (group.resolve = resolve));
  }

  /** The first draws the frame being made still has room for (a new frame has firstDraws). */
  _roomNow() {
    const frame = this.renderer.info.render.frame;
    if (this._room.frame !== frame) this._room = { frame, left: this.firstDraws };
    return this._room;
  }

  /** Lets in as many waiting meshes as this frame has room for, oldest first (called once the GPU process keeps up). */
  _letIn() {
    const room = this._roomNow();
    const groups = new Set();
    while (this._waiting.length && room.left > 0) {
      const { mesh, mask, group } = /** @type {any} */ (this._waiting.shift());
      mesh.layers.mask = mask;
      room.left--;
      groups.add(group);
      if (--group.left === 0) group.resolve();
    }
    if (!groups.size) return;
    // The next ones wait for the GPU process as slices do (_ready): buffers and textures made
    // while it is frames behind would only queue behind those frames.
    this._fences.push(this.gl.fenceSync(this.gl.SYNC_GPU_COMMANDS_COMPLETE, 0));
    for (const group of groups) group.onShown();
  }

  /** Draws `mesh` with an empty range and waits for three to create its buffers; resolves once they are filled. */
  _hold(mesh) {
    const geometry = mesh.geometry;
    const job = {
      mesh,
      arrays: arraysOf(geometry),
      taken: new Set(),
      drawCount: geometry.drawRange.count,
      frustumCulled: mesh.frustumCulled,
    };
    const done = new Promise((resolve) => (job.resolve = resolve));
    for (const array of job.arrays) this._staged.set(array, (this._staged.get(array) ?? 0) + 1);
    geometry.drawRange.count = 0; // drawn, so three makes its buffers, but nothing of it reaches the screen
    mesh.frustumCulled = false; // ... wherever the camera looks
    job.frame = this.renderer.info.render.frame;
    this._jobs.add(job);
    geometry.addEventListener('dispose', () => this._release(job));
    this._run();
    return done;
  }

  /** Ends a job: its mesh drawn as before (if it is still there), its arrays no longer staged. */
  _release(job) {
    if (!this._jobs.delete(job)) return;
    for (const array of job.arrays) {
      const users = this._staged.get(array) - 1;
      if (users > 0) this._staged.set(array, users);
      else this._staged.delete(array);
    }
    job.mesh.geometry.drawRange.count = job.drawCount;
    job.mesh.frustumCulled = job.frustumCulled;
    job.resolve();
  }

  /** Sends slices once a frame while there is something to send or a visible mesh to wait for. */
  async _run() {
    if (this._running) return;
    this._running = true;
    try {
      while (this._jobs.size || this._waiting.length) {
        await nextFrame();
        if (this._ready()) {
          this._letIn();
          this._frame();
        }
        this._finish();
        // Nothing to send and nothing three will take soon (hidden meshes): the next take restarts this.
        if (!this._waiting.length && !this._targets.some(unsent) && ![...this._jobs].some((j) => shownInTree(j.mesh))) break;
      }
    } finally {
      this._running = false;
    }
    if (!this._jobs.size) for (const f of this._fences.splice(0)) this.gl.deleteSync(f);
  }

  /**
   * Whether the GPU process keeps up: at most `inFlight` frames' slices not yet done there (their
   * fences not signalled). More sent while it is further behind would wait for it on the main
   * thread, and so would any call that needs an answer from it (a resize, a first getExtension).
   * Two frames in flight, not one: the GPU process also draws each frame (the view's render after
   * the slices), and a fence waits for that too. A frame it keeps up with lets the next one carry
   * twice as much.
   */
  _ready() {
    const gl = this.gl;
    while (this._fences.length && (gl.isContextLost() || gl.getSyncParameter(this._fences[0], gl.SYNC_STATUS) === gl.SIGNALED))
      gl.deleteSync(this._fences.shift());
    if (!this._fences.length) this._allocating = false;
    if (this._fences.length >= (this._allocating ? 1 : this.inFlight)) {
      this.stats.waits++;
      this._waited++;
      this._cheap = false;
      return false;
    }
    if (this._cheap) this.frameBytes = Math.min(this.maxFrameBytes, this.frameBytes * 2);
    this._cheap = false;
    return true;
  }

  /** One frame's slices: up to frameBytes, within the budget; a fence after them. */
  _frame() {
    const gl = this.gl;
    const started = performance.now();
    let bytes = 0;
    let slowest = 0;
    for (const t of this._targets) {
      while (unsent(t) && bytes < this.frameBytes && performance.now() - started < this.budgetMs) {
        const was = performance.now();
        bytes += this._slice(t, this.frameBytes - bytes);
        slowest = Math.max(slowest, performance.now() - was);
      }
    }
    if (!bytes) return;
    const ms = performance.now() - started;
    Object.assign(this.stats, {
      frames: this.stats.frames + 1,
      peakFrameBytes: Math.max(this.stats.peakFrameBytes, bytes),
      longestFrameMs: Math.max(this.stats.longestFrameMs, ms),
    });
    this.trace?.push({ at: started, bytes, ms, slowest, waited: this._waited });
    this._waited = 0;
    // Over the budget (a slice waited for the GPU process): carry half of this frame next time;
    // all of it well within: twice as much, once the GPU process is no more than a frame behind.
    this._cheap = ms < this.budgetMs / 2 && bytes >= this.frameBytes;
    if (ms > this.budgetMs) this.frameBytes = Math.max(this.minSliceBytes, Math.floor(bytes / 2));
    if (slowest > this.budgetMs) this.sliceBytes = Math.max(this.minSliceBytes, Math.floor(this.sliceBytes / 2));
    else if (this._cheap) this.sliceBytes = Math.min(this.maxSliceBytes, this.sliceBytes * 2);
    this._fences.push(gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0));
    gl.flush();
  }

  /** Sends the next slice of `t`, at most `room` bytes (and sliceBytes); returns the bytes sent. */
  _slice(t, room) {
    const gl = this.gl;
    const per = t.array.BYTES_PER_ELEMENT;
    const bytes = Math.max(this.minSliceBytes, Math.min(this.sliceBytes, this.maxSliceBytes, room));
    const count = Math.min(Math.max(1, Math.floor(bytes / per)), (t.array.byteLength - t.sent) / per);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, t.buffer);
    gl.bufferSubData(gl.COPY_WRITE_BUFFER, t.sent, t.array, t.sent / per, count);
    gl.bindBuffer(gl.COPY_WRITE_BUFFER, null);
    t.sent += count * per;
    this.stats.slices++;
    if (!unsent(t)) this.stats.filled++;
    return count * per;
  }

  /**
   * Shows the meshes whose every array three took and this filled. A visible mesh three has not
   * taken an array of after a few renders had them before (drawn earlier): shown as it is.
   */
  _finish() {
    this._targets = this._targets.filter(unsent);
    const frame = this.renderer.info.render.frame;
    for (const job of [...this._jobs]) {
      const filling = job.arrays.some((a) => this._targets.some((t) => t.array === a));
      if (job.taken.size === job.arrays.length && !filling) this._release(job);
      else if (!job.taken.size && shownInTree(job.mesh) && frame - job.frame > UNTAKEN_RENDERS) this._release(job);
    }
  }
}

const unsent = (t) => t.sent < t.array.byteLength;

/** Whether `o` and every parent of it are visible (three draws it). */
function shownInTree(o) {
  for (let x = o; x; x = x.parent) if (!x.visible) return false;
  return true;
}

/**
 * A geometry's typed arrays that three uploads as buffers: attributes and the index (morph targets
 * go into a texture in WebGL 2, not a buffer). One array may back two attributes: listed once.
 */
function arraysOf(geometry) {
  const attributes = Object.values(geometry.attributes).filter(
    (a) => a?.array && !a.isInterleavedBufferAttribute && !a.isGLBufferAttribute,
  );
  if (geometry.index?.array) attributes.push(geometry.index);
  return [...new Set(attributes.map((a) => a.array))];
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
