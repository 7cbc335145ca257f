// Names over the 3D view (attachment sockets, bones) as page elements (CSS2D), for the page's
// viewer and the element alike. A label's text comes from a file: it is set as text, never HTML.
//
// Labels are thinned before they are shown: each frame they are placed in screen space in rank
// order (a lower rank first, the selected character's before the others', then the nearer first),
// and a label whose rectangle would overlap one placed before it, or not fit in the view, stays
// hidden. A drop of 200 mods put 602 socket names over a few hundred pixels, a pile no one could
// read, and three's CSS2DRenderer walked the whole scene twice a frame to place them (13 ms of a
// 46 ms frame for 953 characters). Only the labels placed are handed to it.
import * as THREE from 'three';
import { CSS2DObject, CSS2DRenderer } from 'three/addons/renderers/CSS2DRenderer.js';

/** Ranks: the selected bone's name first, then sockets, then bone names (the root's first). */
export const LABEL_RANK = { selected: 0, attachment: 1, bone: 2 };

/** Pixels of air kept between two labels shown. */
const AIR = 1;

export class Labels {
  /**
   * @param {HTMLElement} [element] where the labels go (a new div when not given)
   * @param {() => void} [onMeasured] called when labels have been measured (the view draws again to place them)
   */
  constructor(element, onMeasured = () => {}) {
    this.renderer = new CSS2DRenderer(element ? { element } : {});
    this.domElement = this.renderer.domElement;
    /** @type {Map<CSS2DObject, number>} every label in the scene, with its rank */
    this.ranks = new Map();
    /** @type {Set<CSS2DObject>} the labels on screen now */
    this.shown = new Set();
    /** @type {CSS2DObject | null} a label left out whatever its rank (the selected bone's own name: its marker shows it) */
    this.leftOut = null;
    /** @type {THREE.Object3D | null} a node whose labels go before the others of their rank (the selected character) */
    this.focus = null;
    /** element -> [width, height] as measured */
    this._sizes = new WeakMap();
    // A label is measured by the page's own layout, reported after it (a ResizeObserver), not by
    // asking for it: asking laid out the whole page at once, 22 ms in the middle of a large drop
    // whose panels were filling. It is placed from the frame after.
    this._onMeasured = onMeasured;
    this._sizer = new ResizeObserver((entries) => this._measured(entries));
    /** Labels in view this frame, in the order they are placed: [label, rank, depth, x, y] rows, reused. */
    this._rows = [];
    this._order = [];
    /** Rectangles of the labels placed this frame: x, y, width, height each. */
    this._rects = new Float32Array(64);
    /** @type {Set<CSS2DObject>} the labels placed this frame */
    this._placed = new Set();
    this._v = new THREE.Vector3();
    this._viewProjection = new THREE.Matrix4();
  }

  /** A label showing `span` on `node`, of `rank` (LABEL_RANK). */
  add(node, span, rank = LABEL_RANK.attachment) {
    const label = new CSS2DObject(span);
    node.add(label);
    this.track(label, rank);
    return label;
  }

  /** Takes a label made elsewhere into the thinning while it is in the scene (again after its text changed: measured anew). */
  track(label, rank) {
    this.ranks.set(label, rank);
    this._hide(label);
    const element = label.element;
    this._sizes.delete(element);
    // Laid out unseen until measured (CSS2DObject positions it absolutely: it moves nothing else).
    if (element.parentNode !== this.domElement) this.domElement.append(element);
    element.style.display = '';
    element.style.visibility = 'hidden';
    this._sizer.observe(element);
  }

  /** Sizes the page's layout reported; a label laid out at no size (in a page or panel not shown) waits for another. */
  _measured(entries) {
    let any = false;
    for (const { target, borderBoxSize } of entries) {
      const [{ inlineSize: width, blockSize: height }] = borderBoxSize;
      if (!(width > 0)) continue;
      this._sizes.set(target, [width, height]);
      this._sizer.unobserve(target);
      const element = /** @type {HTMLElement} */ (target);
      element.style.visibility = '';
      element.style.display = 'none'; // until placed (no label is placed before it is measured)
      any = true;
    }
    if (any) this._onMeasured();
  }

  /** Takes a label out of the thinning and off the screen (it stays in the page, for a later track()). */
  untrack(label) {
    this.ranks.delete(label);
    this._hide(label);
  }

  /** Takes away the label that `object` is, if it is one (called over a removed subtree). */
  forget(object) {
    if (!object.isCSS2DObject) return;
    this._sizer.unobserve(object.element);
    object.element.remove();
    this.ranks.delete(object);
    this.shown.delete(object);
  }

  setSize(width, height) {
    this.renderer.setSize(width, height);
  }

  getSize() {
    return this.renderer.getSize();
  }

  /**
   * Places the labels after the scene was drawn (its matrices are current): those that fit, each
   * placed by CSS2DRenderer on its own; the others hidden.
   * @param {THREE.Object3D} scene
   * @param {THREE.Camera} camera
   */
  render(scene, camera) {
    if (!this.ranks.size) return; // shown labels are among them
    const { width, height } = this.getSize();
    this._viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const order = this._inView(scene, camera);
    const placed = this._thin(order, width, height);
    for (const label of this.shown) if (!placed.has(label)) this._hide(label);
    for (const label of placed) {
      // Rendered alone: the label is the "scene" CSS2DRenderer walks (its matrix comes from its
      // node's, current since the draw). No two placed labels overlap, so their stacking order
      // (which it sets over what it walks) does not matter.
      this.renderer.render(label, camera);
      this.shown.add(label);
    }
    // The reused rows hold no label past the frame: a label forgotten is then unreachable.
    for (const row of order) row[0] = null;
    order.length = 0;
    placed.clear();
  }

  /** The labels that can show (on, in a scene that is on, in front of the camera), rank and depth first. */
  _inView(scene, camera) {
    const rows = this._rows;
    let n = 0;
    for (const [label, rank] of this.ranks) {
      if (label === this.leftOut || !label.layers.test(camera.layers)) continue;
      const standing = this._standing(label, scene);
      if (standing < 0) continue;
      const v = this._v.setFromMatrixPosition(label.matrixWorld).applyMatrix4(this._viewProjection);
      if (!(v.z >= -1 && v.z <= 1)) continue;
      const row = (rows[n++] ??= [null, 0, 0, 0, 0]);
      row[0] = label;
      row[1] = rank - 0.5 * standing; // the focus's labels before the others of their kind
      row[2] = v.z;
      row[3] = v.x;
      row[4] = v.y;
    }
    const order = this._order;
    order.length = n;
    for (let i = 0; i < n; i++) order[i] = rows[i];
    return order.sort((a, b) => a[1] - b[1] || a[2] - b[2]);
  }

  /** -1 where `label` is not drawn (it or a node above it hidden, or not in `scene`), 1 where it is in the focus, else 0. */
  _standing(label, scene) {
    let inFocus = 0;
    for (let o = label; o; o = o.parent) {
      if (!o.visible) return -1;
      if (o === this.focus) inFocus = 1;
      if (o === scene) return inFocus;
    }
    return -1;
  }

  /** The labels placed: each, in order, whose rectangle overlaps none placed before it. */
  _thin(order, width, height) {
    const placed = this._placed; // emptied at the end of each render
    let count = 0;
    for (const [label, , , nx, ny] of order) {
      const size = this._sizes.get(label.element);
      if (!size) continue;
      const [w, h] = size;
      // The rectangle as CSS2DRenderer places it (its center point on the node), with air around.
      const x = (nx * 0.5 + 0.5) * width - label.center.x * w - AIR;
      const y = (-ny * 0.5 + 0.5) * height - label.center.y * h - AIR;
      const rw = w + 2 * AIR,
        rh = h + 2 * AIR;
      if (x < 0 || y < 0 || x + rw > width || y + rh > height) continue; // not all of it in the view
      if (this._overlaps(x, y, rw, rh, count)) continue;
      if (this._rects.length < (count + 1) * 4) {
        const grown = new Float32Array(this._rects.length * 2);
        grown.set(this._rects);
        this._rects = grown;
      }
      const at = count++ * 4;
      this._rects[at] = x;
      this._rects[at + 1] = y;
      this._rects[at + 2] = rw;
      this._rects[at + 3] = rh;
      placed.add(label);
    }
    return placed;
  }

  _overlaps(x, y, w, h, count) {
    const r = this._rects;
    for (let i = 0; i < count * 4; i += 4) {
      if (x < r[i] + r[i + 2] && r[i] < x + w && y < r[i + 1] + r[i + 3] && r[i + 1] < y + h) return true;
    }
    return false;
  }

  _hide(label) {
    if (!this.shown.delete(label)) return;
    label.element.style.display = 'none';
  }
}
