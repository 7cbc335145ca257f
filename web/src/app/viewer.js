// The 3D view: renderer, camera, controls, lights, helpers and the render loop. It knows
// Characters, not formats.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VertexNormalsHelper } from 'three/addons/helpers/VertexNormalsHelper.js';
import { characterBox } from '../three/bounds.js';
import { LABEL_RANK, Labels } from '../three/labels.js';
import { BonesHelper, JointsHelper, SocketMarkers } from '../three/helpers.js';
import { displayName } from '../core/files.js';
import { SlicedUploads } from './upload.js';
import { Glides } from '../three/glides.js';
import { slicer } from '../core/tasks.js';
import { flipRows } from '../core/png.js';
import { linkPrograms } from '../three/programs.js';
import { materialsOf, sharePrograms, shareLooks } from '../three/shared-programs.js';
import { UNTEXTURED_MAP } from '../three/textures.js';

/** Characters whose materials are prepared in one call of three's compile (it walks the whole scene for lights each call). */
const COMPILED_AT_ONCE = 24;
/** More characters than this are framed on their bind-pose bounds. */
const CROWD = 64;

/** Draws a character (its props too) as wire or not. */
function wireframeOf(character, on) {
  for (const x of character.tree()) for (const m of x.materials) m.wireframe = on;
}

/** Bones above `bone` in its skeleton. */
function boneDepth(bone) {
  let depth = 0;
  for (let b = bone.parent; b?.isBone; b = b.parent) depth++;
  return depth;
}

/** Shows or hides a character's attachment names (the markers follow the view's switch, SocketMarkers). */
function attachmentsOf(character, on) {
  character.root.traverse((o) => {
    if (o.userData.isAttachmentMarker) o.visible = on;
  });
}

export class Viewer {
  constructor(container, { background = 0x23262e } = {}) {
    this.container = container;
    this.background = new THREE.Color(background);
    this._makeRenderer(container);
    this._makeStage();
    this._makeFloor();
    this._startState();
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
    this.requestRender();
  }

  /** The WebGL renderer (one program per look: shareLooks) and the label layer over its canvas. */
  _makeRenderer(container) {
    this.renderer = new THREE.WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    shareLooks(this.renderer);
    container.prepend(this.renderer.domElement);
    this.labels = new Labels(undefined, () => this.requestRender());
    /** Programs known linked: asking about one that is not waits for its link. */
    this._linked = new WeakSet();
    /** material -> its version when last compiled here */
    this._compiled = new WeakMap();
    this.labels.domElement.style.cssText = 'position:absolute;inset:0;pointer-events:none';
    container.append(this.labels.domElement);
  }

  /** The scene, the group everything loaded hangs under, the two cameras, their controls and the lights. */
  _makeStage() {
    this.scene = new THREE.Scene();
    this.scene.background = this.background;
    // Everything loaded hangs under one group, so the up-axis control turns the whole scene.
    this.content = new THREE.Group();
    this.content.name = 'content';
    this.scene.add(this.content);
    this.perspective = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
    this.orthographic = new THREE.OrthographicCamera(-1, 1, 1, -1, 0.01, 1000);
    this.camera = this.perspective;
    this.camera.position.set(2, 1.5, 3);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.controls.addEventListener('change', () => this.requestRender());

    this.hemi = new THREE.HemisphereLight(0xffffff, 0x444455, 1.6);
    this.scene.add(this.hemi);
    // A light that follows the camera keeps every side of the model readable.
    this.keyLight = new THREE.DirectionalLight(0xffffff, 1.8);
    this.keyLight.position.set(1, 2, 3);
    this.camera.add(this.keyLight);
    this.scene.add(this.perspective, this.orthographic);
  }

  /** The grid, the ground disc under the model, and the axes at attachment sockets. */
  _makeFloor() {
    this.grid = new THREE.GridHelper(10, 20, 0x555b66, 0x353a44);
    this.scene.add(this.grid);
    // A ground disc under the model, sized and placed with the grid.
    this.ground = new THREE.Mesh(
      new THREE.CircleGeometry(5, 64).rotateX(-Math.PI / 2),
      new THREE.MeshStandardMaterial({ color: 0x3a3f4a, roughness: 1, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }),
    );
    this.ground.visible = false;
    this.scene.add(this.ground);
    /** The axes at every attachment socket, one draw call; moved to the sockets at each draw. */
    this.markers = new SocketMarkers(this.scene);
    this.scene.add(this.markers.object);
    this.scene.onBeforeRender = () => this.markers.update();
  }

  /** What is shown and how (nothing loaded yet), the clock, and the render loop's state. */
  _startState() {
    this.characters = [];
    /** Each character's skeleton overlays, made when the skeleton is first shown. */
    this.overlays = new Map();
    this.showSkeleton = false;
    this.showAttachments = true;
    this.wireframe = false;
    this.timer = new THREE.Timer();
    /** @type {import('../three/playback.js').Playback | null} the one playback model; it holds the speed */
    this.playback = null;
    this.onTick = null;
    this.bindPose = false;
    this.showBoneNames = false;
    this.normalHelpers = [];
    this.fps = 0;

    // Rendering happens only when something changes: a control, the camera, a playing clip.
    this.isAnimating = () => false;
    this.up = [0, 0, 0];
    this.frames = 0;
    this.looping = false;
    /** Characters whose clips moved them in this frame's step. */
    this._moved = new Set();
    /** While above 0 the render loop neither advances nor draws (shader compiles, recordings). */
    this.holds = 0;
    /** Large meshes go to the GPU in slices across frames before they are first drawn (upload.js). */
    this.uploads = new SlicedUploads(this.renderer);
    /** Characters and the camera moving to where a new layout or framing puts them. */
    this.glides = new Glides();
  }

  /** Playback speed (the playback model's, 1 before one is attached). */
  get timeScale() {
    return this.playback?.speed ?? 1;
  }
  set timeScale(v) {
    if (this.playback) this.playback.speed = v;
  }

  /** Draws the next animation frame, and keeps drawing while something animates. */
  requestRender() {
    this.dirty = true;
    if (this.looping) return;
    this.looping = true;
    this.timer.update(); // no jump in time for the frames that were not drawn
    this.renderer.setAnimationLoop(() => this.tick());
  }

  /**
   * Resolves once what the view holds now is on screen: a frame drawn after this call, with no
   * large mesh still uploading, has been presented (the animation frame after it has begun). Work
   * that would hold the GPU process (linking the next characters' shaders) waits for it, so a
   * drop's first character shows as soon as it is ready. A page in the background draws no
   * frames: then it resolves after `ms`.
   */
  shown(ms = 1000) {
    const since = this.frames;
    this.requestRender();
    const drawn = new Promise((resolve) => {
      // Seen drawn in one animation frame; on screen when the next one begins.
      const wait = () =>
        requestAnimationFrame(() => (this.frames > since && !this.uploads.pending ? requestAnimationFrame(() => resolve()) : wait()));
      wait();
    });
    return Promise.race([drawn, new Promise((resolve) => setTimeout(resolve, ms))]);
  }

  resize() {
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h, false);
    this.labels.setSize(w, h);
    this.perspective.aspect = w / h;
    this.perspective.updateProjectionMatrix();
    this._fitOrthographic();
    this.requestRender();
  }

  /** The orthographic camera shows what the perspective one shows at the target's distance. */
  _fitOrthographic() {
    const o = this.orthographic;
    const distance = this.camera.position.distanceTo(this.controls.target) || 1;
    const h = distance * Math.tan(THREE.MathUtils.degToRad(this.perspective.fov / 2));
    const aspect = this.perspective.aspect;
    Object.assign(o, { top: h, bottom: -h, left: -h * aspect, right: h * aspect, near: this.perspective.near, far: this.perspective.far });
    o.zoom = 1;
    o.updateProjectionMatrix();
  }

  /** Switches between the perspective and the orthographic camera, keeping the view. */
  setOrthographic(on) {
    const next = on ? this.orthographic : this.perspective;
    if (next === this.camera) return;
    next.position.copy(this.camera.position);
    next.quaternion.copy(this.camera.quaternion);
    this.camera.remove(this.keyLight);
    this.camera = next;
    this.camera.add(this.keyLight);
    this._fitOrthographic();
    this.controls.object = next;
    this.controls.update();
    this.requestRender();
  }

  add(character) {
    this.characters.push(character);
    this.content.add(character.root);
    if (this.showSkeleton) this._overlay(character);
    this.place(character);
    for (const a of [...character.tree()].flatMap((c) => c.attachments)) {
      if (!character.labelsOnly) this.markers.add(a.node);
      const el = document.createElement('span');
      el.className = 'label3d';
      el.textContent = displayName(a.name); // file text: never HTML, invisible characters written out
      this.labels.add(a.node, el).userData.isAttachmentMarker = true;
    }
    // The view's switches, on this character alone: over every character, each add of a thousand
    // walked all the others again.
    wireframeOf(character, this.wireframe);
    attachmentsOf(character, this.showAttachments);
    this.uploads.stage(character.root, () => this.requestRender());
  }

  /** Every skeleton overlay made so far. */
  get skeletonHelpers() {
    return [...this.overlays.values()].flat();
  }

  /**
   * Makes a character's skeleton overlays, once: lines from bone to parent, and for flat skeletons
   * (0 A.D.: every bone a child of the root, no lines to draw) a point at each joint. Made only
   * when the skeleton is shown: a drop of a thousand characters held 1.8 MB of them unseen.
   */
  _overlay(character) {
    if (this.overlays.has(character) || !character.bones.length) return;
    const made = [new BonesHelper(character.root)];
    if (character.flat) made.push(new JointsHelper(character.bones.filter((b) => !b.userData.helper)));
    for (const h of made) {
      h.userData.character = character;
      this.scene.add(h);
    }
    this.overlays.set(character, made);
  }

  /** Puts a character where the scene lays it out; `glide` moves one already drawn there over a moment. */
  place(character, { glide = false } = {}) {
    const sc = character.scene;
    if (sc?.offset) {
      const to = new THREE.Vector3().fromArray(sc.offset);
      if (glide) this.glides.to(character.root.position, to);
      else this.glides.put(character.root.position, to);
    }
    character.root.visible = !(character.hiddenByUser ?? sc?.hidden ?? false);
    for (const h of this.overlays.get(character) ?? []) h.visible = this.showSkeleton && character.root.visible;
    this.requestRender();
  }

  /** Turns the whole scene by whole quarter turns about X, Y and Z (degrees), e.g. [-90, 0, 0]. */
  setUp(degrees) {
    this.up = degrees.map((d) => Math.round(d / 90) * 90);
    this.content.rotation.set(...this.up.map((d) => THREE.MathUtils.degToRad(d)), 'XYZ');
    this.content.updateMatrixWorld(true);
    this.requestRender();
  }

  /**
   * Sends the links of the programs new characters will draw with, before their textures are
   * made: the GPU process links them while the page lays the drop out and decodes its textures,
   * and compileFor then finds them linked (issue #41: a folder's last assembly linked its new
   * programs only after its textures, on the way to its first frame). A mesh with a material in
   * `later` (one whose program its maps will change) waits for compileFor.
   * @param {import('three').Object3D[]} roots
   * @param {Set<import('three').Material>} later
   */
  async sendLinks(roots, later) {
    const meshes = [];
    for (const root of roots) {
      sharePrograms(materialsOf(root));
      root.traverse((o) => {
        if (o.material && ![o.material].flat().some((m) => later.has(m))) meshes.push(o);
      });
    }
    const group = new THREE.Group();
    const pause = slicer();
    for (let i = 0; i < meshes.length; i += COMPILED_AT_ONCE * 4) {
      await pause();
      group.children = meshes.slice(i, i + COMPILED_AT_ONCE * 4); // a view on the meshes: their parents stay as they are
      this.renderer.compile(group, this.camera, this.scene);
    }
    group.children = [];
  }

  /**
   * Compiles the shaders of characters not yet in the view, with the view's lights, so that they
   * are drawn from their first frame without a compile in it. three compiles one program per kind
   * of material (its program cache); each new program is linked before the characters enter the
   * view, without holding the page (three/programs.js).
   * @param {import('three').Object3D[]} roots
   */
  async compileFor(roots) {
    // Only roots with a material not compiled as it is now (new, or given a texture since), a few
    // at a time: preparing a thousand characters' materials in one call held the page 250 ms.
    // Materials that can share a program are made to first (three/shared-programs.js).
    const waiting = roots.filter((root) => {
      const materials = materialsOf(root);
      sharePrograms(materials);
      return materials.some((m) => this._compiled.get(m) !== m.version);
    });
    const group = new THREE.Group();
    const programs = new Set();
    const pause = slicer();
    for (let i = 0; i < waiting.length; i += COMPILED_AT_ONCE) {
      await pause();
      group.children = waiting.slice(i, i + COMPILED_AT_ONCE); // a view on the roots: their parents stay as they are
      for (const m of this.renderer.compile(group, this.camera, this.scene)) {
        this._compiled.set(m, m.version);
        const program = this.renderer.properties.get(m).currentProgram;
        if (program) programs.add(program);
      }
    }
    group.children = [];
    // Programs linked before are not waited for again (a task each, at every assembly of a drop).
    const linking = [...programs].filter((p) => !this._linked.has(p));
    // Drawing is held for a fence when one saw a frame (three/programs.js gpuQuiet).
    const hold = () => {
      this.holds++;
      return () => this.holds--;
    };
    await linkPrograms(this.renderer, linking, { hold });
    for (const program of linking) this._linked.add(program);
  }

  remove(character) {
    this.setNormalsVisible(false);
    this.characters = this.characters.filter((c) => c !== character);
    for (const h of this.overlays.get(character) ?? []) {
      h.removeFromParent();
      h.dispose();
    }
    this.overlays.delete(character);
    for (const a of [...character.tree()].flatMap((c) => c.attachments)) this.markers.delete(a.node);
    character.root.traverse((o) => {
      this.labels.forget(o);
      // Parts bound through a bone map have skeletons of their own: their bone textures go too.
      if (o.isSkinnedMesh) o.skeleton?.dispose();
    });
    character.dispose();
    this.requestRender();
  }

  clear() {
    for (const c of [...this.characters]) this.remove(c);
    // The markers' arrays, and the untextured white texel, leave the GPU with the last character.
    this.markers.dispose();
    UNTEXTURED_MAP.dispose();
    this.glides.finish();
  }

  /** Lighting presets: studio (sky + key light), flat (even, no shading cues), rim (dark, back-lit). */
  setLighting(preset) {
    const p = { studio: [1.6, 1.8, [1, 2, 3]], flat: [3.0, 0, [0, 0, 1]], rim: [0.4, 3.0, [-2, 1, -3]] }[preset] ?? [1.6, 1.8, [1, 2, 3]];
    this.hemi.intensity = p[0];
    this.keyLight.intensity = p[1];
    this.keyLight.position.set(...p[2]);
    this.requestRender();
  }

  setBindPose(on) {
    this.bindPose = on;
    for (const c of this.characters) {
      if (on) c.skeleton?.pose();
      else c.mixer.update(0);
    }
    this.requestRender();
  }

  setBoneNamesVisible(on) {
    this.showBoneNames = on;
    for (const c of this.characters) {
      for (const b of c.bones) {
        let label = b.children.find((o) => o.isCSS2DObject && o.userData.isBoneLabel);
        if (!label && on) {
          const span = document.createElement('span');
          span.className = 'label3d bone';
          span.textContent = b.userData.sourceName; // file text: never HTML
          label = this.labels.add(b, span, LABEL_RANK.bone + boneDepth(b)); // the root's name first
          label.userData.isBoneLabel = true;
        }
        if (label) label.visible = on;
      }
    }
    this.requestRender();
  }

  setNormalsVisible(on) {
    for (const h of this.normalHelpers) {
      h.removeFromParent();
      h.dispose();
    }
    this.normalHelpers = [];
    this.requestRender();
    if (!on) return;
    for (const c of this.characters) {
      for (const m of c.meshes) {
        const size = m.geometry.boundingSphere?.radius ?? 1;
        const h = new VertexNormalsHelper(m, size * 0.03, 0x55ddff);
        this.scene.add(h);
        this.normalHelpers.push(h);
      }
    }
  }

  setBackground(color) {
    this.background.set(color);
    this.requestRender();
  }

  setSkeletonVisible(on) {
    this.showSkeleton = on;
    if (on) for (const c of this.characters) this._overlay(c);
    for (const [c, helpers] of this.overlays) for (const h of helpers) h.visible = on && c.root.visible;
    this.requestRender();
  }

  setWireframe(on) {
    this.wireframe = on;
    for (const c of this.characters) wireframeOf(c, on);
    this.requestRender();
  }

  setAttachmentsVisible(on) {
    this.showAttachments = on;
    this.markers.visible = on;
    for (const c of this.characters) attachmentsOf(c, on);
    this.requestRender();
  }

  /**
   * World bounds of the visible characters as they are posed now; of a crowd, as they stand in
   * their bind pose (skinning every vertex of a thousand characters to frame them took 190 ms).
   */
  visibleBounds(characters = this.characters) {
    const box = new THREE.Box3();
    const skin = characters.length <= CROWD;
    for (const c of characters) {
      if (!c.root.visible) continue;
      c.root.updateWorldMatrix(true, true); // only these characters, not the whole scene
      box.union(characterBox(c, null, { skin }));
    }
    return box;
  }

  /** Resolves once nothing glides any more (characters and camera where the layout puts them). */
  async settled() {
    // Stepped here too: glides are timed, and a hidden page draws no frames to step them.
    if (!this.glides.active) return;
    while (this.glides.step()) await new Promise((r) => setTimeout(r, 50));
    // A glide ended here, between frames: the view draws where it ended (the loop stops otherwise).
    this.requestRender();
  }

  /** What `fn` measures with every character where its glide ends (framing a layout that settles). */
  whenSettled(fn) {
    try {
      return this.glides.atTargets(() => {
        this.scene.updateMatrixWorld(true);
        return fn();
      });
    } finally {
      this.scene.updateMatrixWorld(true);
    }
  }

  /** Frames everything visible (or `box`), keeping the current view direction unless `direction` is given. */
  frameAll(box = this.visibleBounds(), direction = null, { glide = false } = {}) {
    if (box.isEmpty()) return;
    const size = box.getSize(new THREE.Vector3()).length() || 1;
    const center = box.getCenter(new THREE.Vector3());
    for (const cam of [this.perspective, this.orthographic]) {
      cam.near = size / 200;
      cam.far = size * 100;
    }
    // Distance at which the bounding sphere fits the narrower of the two fields of view.
    const vfov = THREE.MathUtils.degToRad(this.perspective.fov);
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * this.perspective.aspect);
    const distance = (size / 2 / Math.sin(Math.min(vfov, hfov) / 2)) * 1.05;
    const eye = this.glides.target(this.camera.position);
    const dir =
      direction ??
      (this.framed ? eye.clone().sub(this.glides.target(this.controls.target)).normalize() : new THREE.Vector3(0.45, 0.3, 1).normalize());
    const position = center.clone().addScaledVector(dir, distance);
    if (glide && this.framed) {
      this.glides.to(this.camera.position, position);
      this.glides.to(this.controls.target, center);
    } else {
      this.glides.put(this.camera.position, position);
      this.glides.put(this.controls.target, center);
      this.camera.lookAt(center);
    }
    this._fitOrthographic();
    this.perspective.updateProjectionMatrix();
    this.controls.update();
    this.framed = true;
    const s = 10 ** Math.round(Math.log10(size));
    this.grid.scale.setScalar(s / 5);
    this.grid.position.set(center.x, box.min.y, center.z);
    this.ground.scale.copy(this.grid.scale);
    this.ground.position.copy(this.grid.position);
    this.markers.size = size * 0.04;
    this.requestRender();
  }

  /** View presets: front, side (right), top, or the default three-quarter perspective. */
  view(preset, box = this.visibleBounds()) {
    const dirs = { front: [0, 0, 1], side: [1, 0, 0], top: [0, 1, 0.0001], perspective: [0.45, 0.3, 1] };
    this.frameAll(box, new THREE.Vector3(...(dirs[preset] ?? dirs.perspective)).normalize());
  }

  tick() {
    if (this.holds) return;
    this.timer.update();
    const dt = Math.min(this.timer.getDelta(), 0.1);
    const animating = (this.isAnimating() && !this.bindPose) || this.glides.active;
    if (!animating && !this.dirty) {
      // Nothing changes: stop drawing until something asks again.
      this.looping = false;
      this.renderer.setAnimationLoop(null);
      return;
    }
    // A change asked for since the last frame (a control, a placement) may have moved anything;
    // otherwise only what plays or glides moves.
    const changed = this.dirty || this.bindPose;
    this.dirty = false;
    if (dt > 0) this.fps = this.fps * 0.95 + (1 / dt) * 0.05;
    const moved = this._moved;
    moved.clear();
    for (const c of this.characters) {
      if (this.bindPose) c.skeleton?.pose();
      else if (c.advance(dt * this.timeScale)) moved.add(c);
    }
    this.playback?.tick();
    this.onTick?.(dt);
    if (this.glides.active) {
      // Taken before the step: a glide that ends in it still moved its character.
      for (const c of this.characters) if (this.glides.moves.has(c.root.position)) moved.add(c);
      this.glides.step();
      this._fitOrthographic();
    }
    this.render(changed ? null : (c) => moved.has(c));
  }

  /**
   * Draws the view. With `moves`, only the characters it names have their matrices brought up to
   * date: the others stand where the last frame left them (a crowd of 953 characters, one playing,
   * spent 9 ms of each frame recomputing what had not moved).
   * @param {((c: any) => boolean) | null} [moves]
   */
  render(moves = null) {
    for (const c of this.characters) {
      c.update();
      c.root.still = !!moves && !moves(c);
    }
    for (const h of this.normalHelpers) h.update();
    this.controls.update();
    try {
      this.renderer.render(this.scene, this.camera);
    } finally {
      for (const c of this.characters) c.root.still = false;
    }
    this.labels.render(this.scene, this.camera);
    this.frames++;
  }

  /**
   * Renders the view as it stands into a `width` × `height` picture (RGBA rows from the top), for
   * recordings: the same camera and framing at another size, off screen, so the page does not
   * change. `transparent` leaves out the background, grid and ground (alpha 0 there); `turn`
   * (radians) moves the eye that far around the target, about the vertical (turntables).
   */
  renderPixels(width, height, { transparent = false, turn = 0 } = {}) {
    // An sRGB target stores what the screen shows: three writes linear, the GPU encodes on store.
    this._pictureTarget ??= new THREE.WebGLRenderTarget(1, 1, { samples: 4, colorSpace: THREE.SRGBColorSpace });
    const target = this._pictureTarget;
    target.setSize(width, height);
    // The eye turns with its key light (a child of the camera), as if the model turned under it.
    const eye = [this.camera.position.clone(), this.camera.quaternion.clone()];
    if (turn) this._turnCamera(turn);
    const camera = this._cameraAt(width / height);
    const hidden = transparent ? [this.grid, this.ground].filter((o) => o.visible) : [];
    for (const o of hidden) o.visible = false;
    this.scene.background = transparent ? null : this.background;
    const clear = this.renderer.getClearAlpha();
    this.renderer.setClearAlpha(transparent ? 0 : 1);
    for (const c of this.characters) c.update();
    this.renderer.setRenderTarget(target);
    this.renderer.render(this.scene, camera);
    this.renderer.setRenderTarget(null);
    this.renderer.setClearAlpha(clear);
    this.scene.background = this.background;
    for (const o of hidden) o.visible = true;
    if (turn) {
      this.camera.position.copy(eye[0]);
      this.camera.quaternion.copy(eye[1]);
      this.camera.updateMatrixWorld(true);
    }
    const rows = new Uint8Array(width * height * 4);
    this.renderer.readRenderTargetPixels(target, 0, 0, width, height, rows);
    return flipRows(rows, width, height);
  }

  /** Moves the eye `turn` radians around the target, about the vertical. */
  _turnCamera(turn) {
    const target = this.controls.target;
    this.camera.position
      .sub(target)
      .applyAxisAngle(new THREE.Vector3(0, 1, 0), turn)
      .add(target);
    this.camera.lookAt(target);
    this.camera.updateMatrixWorld(true);
  }

  /** A copy of the current camera for a picture of another aspect (same eye, same vertical extent). */
  _cameraAt(aspect) {
    const camera = this.camera.clone(false);
    if (camera.isPerspectiveCamera) camera.aspect = aspect;
    else {
      const half = ((camera.top - camera.bottom) / 2) * aspect;
      const mid = (camera.left + camera.right) / 2;
      Object.assign(camera, { left: mid - half, right: mid + half });
    }
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld(true);
    return camera;
  }

  /** Takes the container's size now if the view still has another (a resize is observed a frame late). */
  fitContainer() {
    const canvas = this.renderer.domElement;
    const ratio = this.renderer.getPixelRatio();
    const size = (css) => Math.floor(Math.max(1, css) * ratio);
    if (canvas.width !== size(this.container.clientWidth) || canvas.height !== size(this.container.clientHeight)) this.resize();
  }

  /**
   * Renders and counts the pixels that differ from the background (tests, and "is anything
   * drawn"), at the container's size now: read before its resize was observed, the picture was
   * drawn at the old size (a loaded CI machine, a load that changed the layout).
   */
  countForegroundPixels() {
    this.fitContainer();
    this.render();
    const gl = this.renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const bg = this.background.clone().convertLinearToSRGB();
    const br = Math.round(bg.r * 255),
      bgG = Math.round(bg.g * 255),
      bb = Math.round(bg.b * 255);
    let count = 0,
      sx = 0,
      sy = 0;
    for (let i = 0; i < w * h; i++) {
      const o = i * 4;
      if (Math.abs(px[o] - br) + Math.abs(px[o + 1] - bgG) + Math.abs(px[o + 2] - bb) > 24) {
        count++;
        sx += i % w;
        sy += Math.floor(i / w);
      }
    }
    return { count, total: w * h, cx: count ? sx / count : 0, cy: count ? sy / count : 0, pixels: px, w, h };
  }
}
