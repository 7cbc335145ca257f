// Names over the 3D view (attachment sockets, bones) as page elements (CSS2D), for the page's
// viewer and the element alike. A label's text comes from a file: it is set as text, never HTML.
import { CSS2DObject, CSS2DRenderer } from 'three/addons/renderers/CSS2DRenderer.js';

export class Labels {
  /** @param {HTMLElement} [element] where the labels go (a new div when not given) */
  constructor(element) {
    this.renderer = new CSS2DRenderer(element ? { element } : {});
    this.domElement = this.renderer.domElement;
    /** Labels in the scene: without any, a frame skips the labels' pass. */
    this.count = 0;
  }

  /** A label showing `span` on `node`. */
  add(node, span) {
    const label = new CSS2DObject(span);
    node.add(label);
    this.count++;
    return label;
  }

  /** Counts a label made elsewhere while it is in the scene: +1 when put in, -1 when taken out. */
  counted(change) {
    this.count += change;
  }

  /** Takes away the label that `object` is, if it is one (called over a removed subtree). */
  forget(object) {
    if (!object.isCSS2DObject) return;
    object.element.remove();
    this.count--;
  }

  setSize(width, height) {
    this.renderer.setSize(width, height);
  }

  getSize() {
    return this.renderer.getSize();
  }

  /**
   * Places the labels after the scene was drawn. The pass walks the whole scene, so it runs only
   * when there are labels, and it does not update every matrix a second time: in a drop of a
   * thousand characters it had taken a third of each frame.
   */
  render(scene, camera) {
    if (!this.count) return;
    const auto = scene.matrixWorldAutoUpdate;
    scene.matrixWorldAutoUpdate = false; // the scene was just drawn: its matrices are current
    this.renderer.render(scene, camera);
    scene.matrixWorldAutoUpdate = auto;
  }
}
