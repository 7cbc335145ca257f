// A soft shadow on the ground where characters stand, made the way three's
// examples/webgl_shadow_contact does: the models seen from below by an orthographic camera, as
// darkness that fades with height, into a small render target that is blurred twice and laid on a
// plane at their feet. It costs a few small passes, so it is made again only when the pose changes
// (`dirty`), never for a frame that only moves the camera.
import * as THREE from 'three';
import { HorizontalBlurShader } from 'three/addons/shaders/HorizontalBlurShader.js';
import { VerticalBlurShader } from 'three/addons/shaders/VerticalBlurShader.js';

/** Texels of the shadow's render target per side. */
const SIZE = 256;
/** Blur of the two passes, in texels. */
const BLUR = 3.5;
/** How dark the shadow is where a model touches the ground (0–1). */
const DARKNESS = 1.4;
const OPACITY = 0.75;
/** The ground covers the models' footprint and this much more on each side (fraction of its size). */
const MARGIN = 0.35;

// Shared by every shadow of the page: the materials hold no per-stage state.
let shared = null;
function materials() {
  if (shared) return shared;
  const depth = new THREE.MeshDepthMaterial();
  depth.depthTest = false;
  depth.depthWrite = false;
  // Both sides: open meshes (a cape, a flag) shade too, whichever way their faces point.
  depth.side = THREE.DoubleSide;
  // Black, as opaque as the point is close to the ground.
  depth.onBeforeCompile = (shader) => {
    shader.fragmentShader = shader.fragmentShader.replace(
      'gl_FragColor = vec4( vec3( 1.0 - fragCoordZ ), opacity );',
      `gl_FragColor = vec4( vec3( 0.0 ), ( 1.0 - fragCoordZ ) * ${DARKNESS.toFixed(2)} );`,
    );
  };
  const horizontal = new THREE.ShaderMaterial(HorizontalBlurShader);
  const vertical = new THREE.ShaderMaterial(VerticalBlurShader);
  horizontal.depthTest = vertical.depthTest = false;
  shared = { depth, horizontal, vertical };
  return shared;
}

export class ContactShadow {
  constructor() {
    // The ground lies in XZ, facing down (the camera below sees it); scale.y = -1 turns it up for the view.
    const plane = new THREE.PlaneGeometry(1, 1).rotateX(Math.PI / 2);
    const target = () => {
      const t = new THREE.WebGLRenderTarget(SIZE, SIZE);
      t.texture.generateMipmaps = false;
      return t;
    };
    this.target = target();
    this.blurTarget = target();
    this.group = new THREE.Group();
    this.group.name = 'contact shadow';
    this.plane = new THREE.Mesh(
      plane,
      new THREE.MeshBasicMaterial({ map: this.target.texture, opacity: OPACITY, transparent: true, depthWrite: false }),
    );
    this.plane.scale.y = -1;
    this.plane.renderOrder = 1;
    this.blurPlane = new THREE.Mesh(plane);
    this.blurPlane.visible = false;
    this.camera = new THREE.OrthographicCamera(-0.5, 0.5, 0.5, -0.5, 0, 1);
    this.camera.rotation.x = Math.PI / 2; // looks up from the ground
    this.group.add(this.plane, this.blurPlane, this.camera);
    this.group.visible = false;
    /** The pose (or the ground) changed since the shadow was made. */
    this.dirty = true;
    /** Times the shadow was made (tests: it is not made for frames that only move the camera). */
    this.renders = 0;
  }

  /**
   * Lays the ground under `box` (world space, Y up): at its lowest point, covering its footprint
   * and a margin; the shadow counts what is within its height above the ground.
   * @param {THREE.Box3} box
   */
  place(box) {
    if (box.isEmpty()) {
      this.group.visible = false;
      return;
    }
    const size = box.getSize(new THREE.Vector3());
    const side = Math.max(size.x, size.z, size.y * 0.5) * (1 + 2 * MARGIN);
    // A hair above the lowest point: the soles stand on it, not through it.
    const lift = size.y * 0.002;
    this.group.position.set((box.min.x + box.max.x) / 2, box.min.y + lift, (box.min.z + box.max.z) / 2);
    this.plane.scale.set(side, -1, side);
    this.blurPlane.scale.set(side, 1, side);
    const c = this.camera;
    [c.left, c.right, c.top, c.bottom] = [-side / 2, side / 2, side / 2, -side / 2];
    // The camera looks up from a little below the lowest point, so a sole or the floor of a box
    // that lies exactly on the ground is seen (darkest) rather than cut off at the near plane.
    const below = lift + size.y * 0.01;
    c.position.y = -below;
    c.far = Math.max(size.y + below, 1e-6);
    c.updateProjectionMatrix();
    this.group.visible = true;
    this.dirty = true;
  }

  /**
   * Renders the shadow of `scene`'s content (this group and `hide` left out) if the pose changed.
   * Leaves the renderer drawing to the screen.
   * @param {THREE.WebGLRenderer} renderer
   * @param {THREE.Scene} scene
   * @param {THREE.Object3D[]} hide helpers that cast no shadow (skeleton lines, grid)
   */
  update(renderer, scene, hide = []) {
    if (!this.dirty || !this.group.visible) return;
    this.dirty = false;
    this.renders++;
    const { depth } = materials();
    const background = scene.background;
    const shown = hide.map((o) => o.visible);
    const clearAlpha = renderer.getClearAlpha();
    scene.background = null;
    this.group.visible = false;
    for (const o of hide) o.visible = false;
    scene.overrideMaterial = depth;
    renderer.setClearAlpha(0);
    renderer.setRenderTarget(this.target);
    renderer.clear();
    renderer.render(scene, this.camera);
    scene.overrideMaterial = null;
    this._blur(renderer, BLUR);
    this._blur(renderer, BLUR * 0.4);
    renderer.setRenderTarget(null);
    renderer.setClearAlpha(clearAlpha);
    scene.background = background;
    hide.forEach((o, i) => (o.visible = shown[i]));
    this.group.visible = true;
  }

  /**
   * Compiles, without drawing, the programs the next update() and frame use for `roots`: the
   * depth pass over their meshes (a program per kind of mesh: skinned, morphing, plain), the two
   * blurs and the ground. Linked before that frame (the caller waits for the GPU), they are used at
   * once; made inside it, each held the frame until linked (50-90 ms under SwiftShader).
   * @param {THREE.WebGLRenderer} renderer
   * @param {THREE.Object3D[]} roots what is about to be drawn
   * @param {THREE.Scene} scene the scene they are drawn in (its lights)
   * @param {THREE.Camera} view the camera the ground is seen through
   */
  compile(renderer, roots, scene, view) {
    const { depth, horizontal, vertical } = materials();
    // The depth pass draws each mesh with the depth material in its place (scene.overrideMaterial).
    const own = new Map();
    for (const root of roots) root.traverse((o) => o.isMesh && own.set(o, o.material));
    const target = renderer.getRenderTarget();
    // Into the shadow's target, as update() draws (no tone mapping, linear output: other programs
    // than the screen's).
    renderer.setRenderTarget(this.target);
    try {
      for (const o of own.keys()) o.material = depth;
      for (const root of roots) renderer.compile(root, this.camera, scene);
      // The blurs draw the plane alone, as its own scene.
      for (const material of [horizontal, vertical]) {
        this.blurPlane.material = material;
        renderer.compile(this.blurPlane, this.camera);
      }
    } finally {
      for (const [o, material] of own) o.material = material;
      renderer.setRenderTarget(target);
    }
    renderer.compile(this.plane, view, scene);
  }

  _blur(renderer, amount) {
    const { horizontal, vertical } = materials();
    const plane = this.blurPlane;
    plane.visible = true;
    plane.material = horizontal;
    horizontal.uniforms.tDiffuse.value = this.target.texture;
    horizontal.uniforms.h.value = amount / SIZE;
    renderer.setRenderTarget(this.blurTarget);
    renderer.render(plane, this.camera);
    plane.material = vertical;
    vertical.uniforms.tDiffuse.value = this.blurTarget.texture;
    vertical.uniforms.v.value = amount / SIZE;
    renderer.setRenderTarget(this.target);
    renderer.render(plane, this.camera);
    plane.visible = false;
  }

  dispose() {
    this.group.removeFromParent();
    this.target.dispose();
    this.blurTarget.dispose();
    this.plane.material.dispose();
    this.plane.geometry.dispose();
  }
}
