// One WebGL context for every <rigscope-viewer> of the page. Browsers keep about 16 contexts and
// drop the oldest past that, so each element draws through this shared renderer into its own 2D
// canvas (the way <model-viewer> does). Frames are drawn only for stages that asked for one and
// are on screen; a paused, untouched viewer costs nothing.
import * as THREE from 'three';
import { inflateSync } from 'fflate';
import { flipRows, unpremultiply } from '../core/png.js';
import { NEUTRAL_ROOM } from './neutral-room.js';
import { neutralRoomTexture } from './neutral-room-data.js';
import { shareLooks } from '../three/shared-programs.js';

class SharedRenderer {
  constructor() {
    this._renderer = null;
    this._dirty = new Set();
    this._stages = new Set();
    this._scheduled = false;
    /** @type {THREE.Texture | null} the neutral room, prefiltered once for every stage */
    this._neutral = null;
    /** Counters for tests and the curious: contexts made, contexts lost, frames drawn. */
    this.stats = { contexts: 0, lost: 0, frames: 0 };
  }

  /** The WebGLRenderer, made on first use. */
  get renderer() {
    if (this._renderer) return this._renderer;
    const canvas = document.createElement('canvas');
    const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, powerPreference: 'low-power' });
    renderer.setPixelRatio(1); // stages size in device pixels themselves
    // As three recommends for physically based materials: sRGB output, a filmic curve. Neutral
    // (Khronos PBR Neutral) keeps base colours as the texture has them, as <model-viewer> does.
    renderer.outputColorSpace = THREE.SRGBColorSpace;
    renderer.toneMapping = THREE.NeutralToneMapping;
    renderer.setScissorTest(true);
    shareLooks(renderer);
    canvas.addEventListener('webglcontextlost', (e) => {
      e.preventDefault();
      this.stats.lost++;
    });
    // three rebuilds its GPU state on restore; every stage draws again.
    canvas.addEventListener('webglcontextrestored', () => {
      // The prefiltered room and the shadows lived in render targets: made again on the next draw.
      this._neutral?.dispose();
      this._neutral = null;
      for (const s of this._stages) {
        s.poseChanged?.();
        this.request(s);
      }
    });
    this.stats.contexts++;
    this._renderer = renderer;
    return renderer;
  }

  /**
   * The neutral environment for image-based lighting: three's RoomEnvironment as its
   * PMREMGenerator prefilters it, made once for the page (not per element) on first use from the
   * levels scripts/neutral-room.mjs kept (neutral-room.js). Prefiltering it here took 1.7 s of
   * every page where there is no GPU (and of every `rigscope poster`), 0.3 s of it holding the
   * page; this is 15 KB of the element's script and a few milliseconds.
   */
  get neutralEnvironment() {
    if (this._neutral) return this._neutral;
    const room = neutralRoomTexture(THREE, NEUTRAL_ROOM, inflateSync);
    // On the GPU now, as the prefiltered target was: not in the first frame that draws with it.
    // Its 4 MB of levels are not kept in the page (a lost context makes it again).
    this.renderer.initTexture(room);
    for (const face of room.image) for (const level of face.mipmaps) level.data = null;
    this._neutral = room;
    return room;
  }

  /** Asks for one frame of `stage` (it asks again from draw() while it plays). */
  request(stage) {
    if (stage.released) return;
    this._dirty.add(stage);
    this._stages.add(stage);
    if (this._scheduled) return;
    this._scheduled = true;
    requestAnimationFrame((now) => this._frame(now));
  }

  forget(stage) {
    this._dirty.delete(stage);
    this._stages.delete(stage);
  }

  _frame(now) {
    this._scheduled = false;
    const due = [...this._dirty];
    this._dirty.clear();
    for (const stage of due) {
      // Off-screen stages draw when they come back into view (the element asks then).
      if (!stage.onScreen || !stage.width || !stage.height) continue;
      stage.step(now);
      this.draw(stage);
    }
  }

  /** Renders a stage's scene and copies it into the stage's own canvas. */
  draw(stage) {
    const { width: w, height: h } = stage;
    this._render(stage, stage.camera, w, h);
    stage.context2d.drawImage(this.renderer.domElement, 0, 0, w, h, 0, 0, w, h);
    stage.framesDrawn++;
    this.stats.frames++;
    stage.afterDraw();
  }

  /**
   * Renders a stage's scene once through `camera` at `w` × `h` and reads it back: RGBA rows from
   * the top, straight alpha (stage.still). Drawn into this renderer's canvas, which is never on
   * screen, not into a render target: three tone-maps only what it draws to a canvas, and the
   * picture must have the stage's looks. `transparent`: cleared to alpha 0 (the stage leaves its
   * background out).
   */
  still(stage, camera, w, h, { transparent = false } = {}) {
    const renderer = this.renderer;
    const alpha = renderer.getClearAlpha();
    renderer.setClearAlpha(transparent ? 0 : 1);
    try {
      // At the canvas's origin, whatever its size (grown by other stages): the viewport's offset
      // enters the rasterizer's arithmetic, and an edge pixel could come out otherwise.
      this._render(stage, camera, w, h, { atOrigin: true });
      const gl = renderer.getContext();
      const rows = new Uint8Array(w * h * 4);
      // Read in the same task as the render: the drawing buffer is not kept past it.
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, rows);
      return unpremultiply(flipRows(rows, w, h));
    } finally {
      renderer.setClearAlpha(alpha);
    }
  }

  /**
   * Draws a stage's scene in `w` × `h` of the canvas (grown to fit): its top left, where draw()
   * copies from, or with `atOrigin` its bottom left (WebGL's origin).
   */
  _render(stage, camera, w, h, { atOrigin = false } = {}) {
    const renderer = this.renderer;
    const size = renderer.getSize(new THREE.Vector2());
    if (size.x < w || size.y < h) renderer.setSize(Math.max(size.x, w), Math.max(size.y, h), false);
    // WebGL counts rows from the bottom: the top-left w × h of the canvas is y = H - h.
    const y = atOrigin ? 0 : renderer.getSize(size).y - h;
    // The shadow pass (only when the pose changed) draws into its own target first.
    stage.beforeDraw?.(renderer);
    renderer.toneMappingExposure = stage.exposure ?? 1;
    renderer.setViewport(0, y, w, h);
    renderer.setScissor(0, y, w, h);
    renderer.render(stage.scene, camera);
  }
}

/** The page's shared renderer. */
export const sharedRenderer = new SharedRenderer();
