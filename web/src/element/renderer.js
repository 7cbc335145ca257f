// One WebGL context for every <rigscope-viewer> of the page. Browsers keep about 16 contexts and
// drop the oldest past that, so each element draws through this shared renderer into its own 2D
// canvas (the way <model-viewer> does). Frames are drawn only for stages that asked for one and
// are on screen; a paused, untouched viewer costs nothing.
import * as THREE from 'three';

class SharedRenderer {
  constructor() {
    this._renderer = null;
    this._dirty = new Set();
    this._stages = new Set();
    this._scheduled = false;
    /** Counters for tests and the curious: contexts made, contexts lost, frames drawn. */
    this.stats = { contexts: 0, lost: 0, frames: 0 };
  }

  /** The WebGLRenderer, made on first use. */
  get renderer() {
    if (this._renderer) return this._renderer;
    const canvas = document.createElement('canvas');
    const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, powerPreference: 'low-power' });
    renderer.setPixelRatio(1); // stages size in device pixels themselves
    renderer.outputColorSpace = THREE.SRGBColorSpace;
    renderer.setScissorTest(true);
    canvas.addEventListener('webglcontextlost', (e) => {
      e.preventDefault();
      this.stats.lost++;
    });
    // three rebuilds its GPU state on restore; every stage draws again.
    canvas.addEventListener('webglcontextrestored', () => {
      for (const s of this._stages) this.request(s);
    });
    this.stats.contexts++;
    this._renderer = renderer;
    return renderer;
  }

  /** Asks for one frame of `stage` (it asks again from draw() while it plays). */
  request(stage) {
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
    const renderer = this.renderer;
    const { width: w, height: h } = stage;
    const size = renderer.getSize(new THREE.Vector2());
    if (size.x < w || size.y < h) renderer.setSize(Math.max(size.x, w), Math.max(size.y, h), false);
    const H = renderer.getSize(size).y;
    // WebGL counts rows from the bottom: the top-left w × h of the canvas is y = H - h.
    renderer.setViewport(0, H - h, w, h);
    renderer.setScissor(0, H - h, w, h);
    renderer.render(stage.scene, stage.camera);
    stage.context2d.drawImage(renderer.domElement, 0, 0, w, h, 0, 0, w, h);
    stage.framesDrawn++;
    this.stats.frames++;
    stage.afterDraw();
  }
}

/** The page's shared renderer. */
export const sharedRenderer = new SharedRenderer();
