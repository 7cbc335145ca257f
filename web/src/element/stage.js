// The 3D view of one <rigscope-viewer>: scene, camera, controls, lights and helpers, drawn by the
// page's shared renderer into this element's 2D canvas. It has the surface the App drives (add,
// remove, clear, frameAll, prepare, setWireframe), so the element, the embed page and the viewer
// page play files the same way. Attachment labels are DOM (CSS2D), file text as textContent.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { HDRLoader } from 'three/addons/loaders/HDRLoader.js';
import { characterBox } from '../three/bounds.js';
import { ContactShadow } from '../three/contact-shadow.js';
import { Labels } from '../three/labels.js';
import { linkPrograms } from '../three/programs.js';
import { materialsOf, sharePrograms } from '../three/shared-programs.js';
import { BonesHelper } from '../three/helpers.js';
import { displayName } from '../core/files.js';
import { sharedRenderer } from './renderer.js';
import { Glides, reducedMotion } from '../three/glides.js';

/** Longest frame step: a tab coming back after a minute resumes, it does not jump. */
const MAX_STEP = 0.1;

/**
 * Light intensities (hemisphere, key) with and without an environment lighting the models. With
 * one, the room is dimmed a little and the key light (it follows the camera) keeps shapes readable:
 * the room alone lights everything almost evenly.
 */
const LIGHTS = { lit: [0, 1.5], unlit: [1.6, 1.8] };
const ROOM_INTENSITY = 0.7;

/**
 * An equirectangular image as an environment map: Radiance .hdr through HDRLoader, any other
 * image through fetch (ImageBitmapLoader), which pages' CSPs allow where they allow the models.
 * @returns {Promise<THREE.Texture>}
 */
async function loadEquirect(url) {
  let map;
  if (/\.hdr$/i.test(new URL(url, document.baseURI).pathname)) map = await new HDRLoader().loadAsync(url);
  else {
    // An ImageBitmap is uploaded as decoded: turned here, as flipY would turn an <img>.
    const bitmap = await new THREE.ImageBitmapLoader().setOptions({ imageOrientation: 'flipY' }).loadAsync(url);
    map = new THREE.Texture(bitmap);
    map.flipY = false;
    map.colorSpace = THREE.SRGBColorSpace;
    map.needsUpdate = true;
  }
  map.mapping = THREE.EquirectangularReflectionMapping;
  return map;
}

/**
 * Every texture the materials of these characters (and their props) hold.
 * @returns {Set<THREE.Texture>}
 */
export function texturesOf(characters) {
  const out = new Set();
  for (const character of characters) {
    for (const part of character.tree()) {
      part.root.traverse((o) => {
        for (const m of o.material ? [o.material].flat() : []) for (const v of Object.values(m)) if (v?.isTexture) out.add(v);
      });
    }
  }
  return out;
}

/** The view's colour where nothing is drawn, unless the background attribute says otherwise. */
export const BACKGROUND = 0x23262e;

export class ElementStage {
  /**
   * @param {HTMLCanvasElement} canvas the element's own canvas (2D)
   * @param {HTMLElement} labelLayer where attachment labels go
   * @param {() => void} onDraw called after each drawn frame (the element updates its controls)
   */
  constructor(canvas, labelLayer, onDraw) {
    this.canvas = canvas;
    // Transparent until the first frame: the element's background shows meanwhile.
    this.context2d = canvas.getContext('2d');
    this.onDraw = onDraw;
    this.width = 0;
    this.height = 0;
    this.onScreen = false;
    this.framesDrawn = 0;
    this.isPlaying = () => false;
    /** Tone-mapping exposure of this stage's frames (the exposure attribute). */
    this.exposure = 1;
    /** Freed (its element was removed): it asks for no frames until it is used again. */
    this.released = false;
    /** 'neutral' (the shared room), 'none', or an image URL (its texture in _environmentMap). */
    this.environment = 'neutral';
    /** @type {THREE.Texture | null} */
    this._environmentMap = null;
    this._environmentLoad = 0;
    /** @type {ContactShadow | null} made on the first frame with something to shade */
    this.shadow = null;
    this.showShadow = true;

    this.background = new THREE.Color(BACKGROUND);
    this.scene = new THREE.Scene();
    this.scene.background = this.background;
    // Z-up sources turn under this group (up="z"); helpers and labels turn with them.
    this.content = new THREE.Group();
    this.scene.add(this.content);
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
    this.camera.position.set(2, 1.5, 3);
    this.scene.add(this.camera);
    this.hemisphere = new THREE.HemisphereLight(0xffffff, 0x444455, LIGHTS.lit[0]);
    this.scene.add(this.hemisphere);
    this.key = new THREE.DirectionalLight(0xffffff, LIGHTS.lit[1]);
    this.key.position.set(1, 2, 3);
    this.camera.add(this.key); // a light that follows the camera keeps every side readable
    this.grid = new THREE.GridHelper(10, 20, 0x555b66, 0x353a44);
    this.grid.visible = false;
    this.scene.add(this.grid);

    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.addEventListener('change', () => this.invalidate());
    /** Characters gliding to their new places, and the camera to a new framing (a load drawn early making room). */
    this.glides = new Glides();
    /** The framing the camera glides to: its near and far planes are set when it arrives. */
    this._framing = null;
    // The reader takes the camera: a glide under way gives way.
    this.controls.addEventListener('start', () => this._stopCamera());

    this.labels = new Labels(labelLayer, () => this.invalidate());
    this.characters = [];
    this.helpers = [];
    this.showSkeleton = false;
    this.showLabels = false;
    this.wireframe = false;
    /** @type {import('../three/playback.js').Playback | null} the one playback model; it holds the speed */
    this.playback = null;
    this._last = null;
  }

  /** Asks the shared renderer for a frame. */
  invalidate() {
    sharedRenderer.request(this);
  }

  /**
   * Resolves once what the stage holds now is on screen: a frame drawn after this call has been
   * presented (the animation frame after it has begun); after `ms` if none is drawn (off screen).
   * A load's next drawings wait for it: linking their shaders holds the GPU process, and the first
   * frame would wait behind them.
   */
  shown(ms = 1000) {
    const since = this.framesDrawn;
    let waiting = true;
    this.invalidate();
    const drawn = new Promise((resolve) => {
      const wait = () =>
        requestAnimationFrame(() => {
          if (!waiting) return;
          if (this.framesDrawn > since) requestAnimationFrame(() => resolve());
          else wait();
        });
      wait();
    });
    return Promise.race([drawn, new Promise((resolve) => setTimeout(resolve, ms))]).finally(() => (waiting = false));
  }

  /** The pose changed (a frame of a clip, another clip, a load): the shadow is made again. */
  poseChanged() {
    if (this.shadow) this.shadow.dirty = true;
  }

  /** Before each frame: the environment in use, and the shadow if the pose changed. */
  beforeDraw(renderer) {
    this._useEnvironment();
    if (!this.showShadow || !this.characters.length) return;
    this._madeShadow().update(renderer, this.scene, [...this.helpers, this.grid]);
  }

  /** The scene lit by the environment in use (programs differ with and without one). */
  _useEnvironment() {
    this.scene.environment =
      this.environment === 'neutral' ? sharedRenderer.neutralEnvironment : this.environment === 'none' ? null : this._environmentMap;
    this.scene.environmentIntensity = this.environment === 'neutral' ? ROOM_INTENSITY : 1;
  }

  /** The contact shadow, made on first use. */
  _madeShadow() {
    if (!this.shadow) {
      this.shadow = new ContactShadow();
      this.scene.add(this.shadow.group);
      this._placeShadow();
    }
    return this.shadow;
  }

  /** The ground under everything shown, in its current pose. */
  _placeShadow() {
    if (!this.shadow) return;
    const box = new THREE.Box3();
    for (const c of this.characters) if (c.root.visible) box.union(this.boundsOf(c));
    this.shadow.place(box);
  }

  setShadowVisible(on) {
    this.showShadow = on;
    if (this.shadow) this.shadow.group.visible = on && this.characters.length > 0;
    if (on) this._placeShadow();
    this.invalidate();
  }

  /**
   * environment="neutral" (default) | "none" | an equirectangular image URL (.hdr, or an
   * ordinary image). Resolves when it is in use; rejects (the neutral room stays) when the image
   * cannot be loaded.
   */
  async setEnvironment(value) {
    const load = ++this._environmentLoad;
    const url = value === 'neutral' || value === 'none' ? null : value;
    let map = null;
    if (url) {
      map = await loadEquirect(url);
      if (load !== this._environmentLoad || this.released) {
        map.dispose();
        return;
      }
    } else if (load !== this._environmentLoad) return;
    this._environmentMap?.dispose();
    this._environmentMap = map;
    this.environment = url ?? value;
    const lights = this.environment === 'none' ? LIGHTS.unlit : LIGHTS.lit;
    [this.hemisphere.intensity, this.key.intensity] = lights;
    this.invalidate();
  }

  /** Playback speed (the playback model's, 1 before one is attached). */
  get timeScale() {
    return this.playback?.speed ?? 1;
  }
  set timeScale(v) {
    if (this.playback) this.playback.speed = v;
  }

  /** Canvas size in CSS pixels; drawn at the device's pixel ratio (at most 2). */
  resize(cssWidth, cssHeight) {
    const ratio = Math.min(globalThis.devicePixelRatio || 1, 2);
    this.width = Math.max(1, Math.round(cssWidth * ratio));
    this.height = Math.max(1, Math.round(cssHeight * ratio));
    this.canvas.width = this.width;
    this.canvas.height = this.height;
    this.labels.setSize(cssWidth, cssHeight);
    this.camera.aspect = this.width / this.height;
    this.camera.updateProjectionMatrix();
    this.invalidate();
  }

  /** Advances the animation to `now` (ms) when playing; a paused stage keeps its pose. */
  step(now) {
    const playing = this.isPlaying();
    const dt = playing && this._last !== null ? Math.min((now - this._last) / 1000, MAX_STEP) : 0;
    this._last = playing ? now : null;
    this._stepGlides(now);
    for (const c of this.characters) if (dt > 0) c.advance(dt * this.timeScale);
    if (dt > 0) this.poseChanged();
    this.playback?.tick();
    for (const c of this.characters) c.update();
  }

  afterDraw() {
    this.labels.render(this.scene, this.camera);
    this.onDraw?.();
    if (this.isPlaying() || this.glides.active) this.invalidate();
  }

  /** Moves what glides to `now` (ms); the camera's glide ends at its framing's near and far. */
  _stepGlides(now) {
    if (!this.glides.active) return;
    this.glides.step(now);
    this.controls.update();
    this.poseChanged(); // characters moved: the contact shadow follows
    if (this._framing && !this.glides.moves.has(this.camera.position)) this._arrive();
  }

  /** The camera at its framing: near and far as the framing has them. */
  _arrive() {
    this.camera.near = this._framing.near;
    this.camera.far = this._framing.far;
    this.camera.updateProjectionMatrix();
    this._framing = null;
  }

  /** The camera stays where it is (the reader took it, or a view was set). */
  _stopCamera() {
    this.glides.drop([this.camera.position, this.controls.target]);
    if (this._framing) this._arrive();
  }

  /** Moves a character already drawn to `position` (its place in a scene that made room), gliding. */
  glideTo(character, position) {
    this.glides.to(character.root.position, position);
    this.invalidate();
  }

  add(character) {
    this.characters.push(character);
    this.content.add(character.root);
    this.glides.placed(character.root.position);
    if (character.bones?.length) {
      const helper = new BonesHelper(character.root);
      helper.visible = this.showSkeleton;
      helper.userData.character = character;
      this.scene.add(helper);
      this.helpers.push(helper);
    }
    for (const a of [...character.tree()].flatMap((c) => c.attachments)) {
      const span = document.createElement('span');
      span.className = 'label';
      span.textContent = displayName(a.name); // file text: never HTML
      const label = this.labels.add(a.node, span);
      label.userData.isAttachmentLabel = true;
      label.visible = this.showLabels;
    }
    this.setWireframe(this.wireframe);
    this.poseChanged();
    this.invalidate();
  }

  /**
   * Takes a character out and frees it, with every texture its materials hold but those in `keep`
   * (a character built again that shows the same textures).
   * @param {Set<THREE.Texture>} [keep]
   */
  remove(character, keep) {
    this.characters = this.characters.filter((c) => c !== character);
    this.glides.drop([character.root.position]);
    for (const h of this.helpers.filter((x) => x.userData.character === character)) {
      h.removeFromParent();
      h.dispose();
    }
    this.helpers = this.helpers.filter((x) => x.userData.character !== character);
    for (const part of character.tree()) {
      part.root.traverse((o) => {
        this.labels.forget(o);
        // Every texture of every material (maps the character's own dispose does not know of,
        // and the untextured white texel: another stage drawing with it uploads it again) and
        // each part's own skeleton (its bone texture).
        for (const m of o.material ? [o.material].flat() : []) {
          for (const v of Object.values(m)) if (v?.isTexture && !keep?.has(v)) v.dispose();
        }
        o.skeleton?.dispose();
      });
    }
    character.dispose();
    this.poseChanged();
    this.invalidate();
  }

  clear() {
    for (const c of [...this.characters]) this.remove(c);
  }

  /**
   * Compiles shaders before the first frame, where the browser can do it off the main thread:
   * those of the whole scene, or of `roots` about to be added to it (so they enter whole). Their
   * materials share programs where the picture is the same, as on the viewer page.
   * @param {THREE.Object3D[]} [roots]
   */
  async prepare(roots) {
    const { renderer } = sharedRenderer;
    const drawn = roots ?? this.characters.map((c) => c.root);
    for (const root of drawn) sharePrograms(materialsOf(root));
    // Compiled as they will be drawn: with the environment, and the shadow's passes over them.
    this._useEnvironment();
    const before = new Set(renderer.info.programs);
    if (this.showShadow && drawn.length) this._madeShadow().compile(renderer, drawn, this.scene, this.camera);
    if (!roots) renderer.compile(this.scene, this.camera);
    else for (const root of roots) renderer.compile(root, this.camera, this.scene);
    // Each new program is first used once linked, asked only whether it linked (three/programs.js):
    // a first frame that found them unlinked waited for the links, and three read their logs.
    await linkPrograms(
      renderer,
      renderer.info.programs.filter((p) => !before.has(p)),
    );
  }

  setWireframe(on) {
    this.wireframe = on;
    for (const c of this.characters) for (const m of c.materials ?? []) m.wireframe = on;
    this.invalidate();
  }

  setBackground(color) {
    this.background.set(color);
    this.invalidate();
  }

  setSkeletonVisible(on) {
    this.showSkeleton = on;
    for (const h of this.helpers) h.visible = on;
    this.invalidate();
  }

  setLabelsVisible(on) {
    this.showLabels = on;
    this.content.traverse((o) => {
      if (o.userData.isAttachmentLabel) o.visible = on;
    });
    this.invalidate();
  }

  /** Turns what is shown by quarter turns about X, Y and Z, in degrees ([-90, 0, 0] stands a Z-up source up). */
  setUp(degrees) {
    this.content.rotation.set(...degrees.map((d) => THREE.MathUtils.degToRad(d)), 'XYZ');
    this.content.updateMatrixWorld(true);
    this.invalidate();
  }

  /**
   * World bounds of a character's visible meshes in its current pose, measured as the page
   * measures them (three/bounds.js: large meshes keep their bind-pose bounds).
   */
  boundsOf(character) {
    character.root.updateWorldMatrix(true, true);
    return characterBox(character);
  }

  /**
   * World bounds of the characters shown, over the whole current clip as the page's *Frame*
   * measures them (Playback.boundsOverClip), so a character that walks away stays in view.
   */
  shownBounds(characters = this.characters) {
    const posed = (list) => list.reduce((box, c) => box.union(this.boundsOf(c)), new THREE.Box3());
    const shown = characters.filter((c) => c.root.visible);
    return this.playback ? this.playback.boundsOverClip(shown, posed) : posed(shown);
  }

  /**
   * Frames everything shown (or those of `characters`: the selected model) over the current
   * clip: the camera looks at the bounding box from the front-right. With `glide` (a load drawn
   * early making room for what it added, a step to another model) it glides there from where it is.
   * @param {{ glide?: boolean, characters?: any[] }} [options]
   */
  frameAll({ glide = false, characters = undefined } = {}) {
    // Framed where the characters are going, not where a glide has them now.
    const box = this.glides.atTargets(() => this.shownBounds(characters));
    this._stopCamera();
    if (box.isEmpty()) return;
    const size = box.getSize(new THREE.Vector3()).length() || 1;
    const center = box.getCenter(new THREE.Vector3());
    // Distance at which the bounding sphere fits the narrower of the two fields of view.
    const vfov = THREE.MathUtils.degToRad(this.camera.fov);
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * this.camera.aspect);
    const distance = (size / 2 / Math.sin(Math.min(vfov, hfov) / 2)) * 1.05;
    const to = {
      position: center.clone().add(new THREE.Vector3(0.45, 0.3, 1).normalize().multiplyScalar(distance)),
      target: center,
      near: size / 200,
      far: size * 100,
    };
    if (glide && this.framesDrawn > 0 && !reducedMotion()) {
      this.glides.to(this.camera.position, to.position);
      this.glides.to(this.controls.target, to.target);
      this._framing = to;
      // Near and far cover both framings until the glide ends.
      this.camera.near = Math.min(this.camera.near, to.near);
      this.camera.far = Math.max(this.camera.far, to.far);
    } else {
      this.camera.near = to.near;
      this.camera.far = to.far;
      this.glides.put(this.camera.position, to.position);
      this.glides.put(this.controls.target, to.target);
    }
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.grid.scale.setScalar(10 ** Math.round(Math.log10(size)) / 5);
    this.grid.position.set(center.x, box.min.y, center.z);
    this._placeShadow();
    this.invalidate();
  }

  /** Turns the camera about the target: `azimuth` around the up axis, `polar` over the top (radians). */
  orbit(azimuth, polar) {
    this._stopCamera();
    const target = this.controls.target;
    const s = new THREE.Spherical().setFromVector3(this.camera.position.clone().sub(target));
    s.theta += azimuth;
    s.phi = THREE.MathUtils.clamp(s.phi - polar, 0.05, Math.PI - 0.05);
    this.camera.position.copy(target).add(new THREE.Vector3().setFromSpherical(s));
    this.controls.update();
    this.invalidate();
  }

  /** Moves the camera towards (factor < 1) or away from the target. */
  zoom(factor) {
    this._stopCamera();
    const offset = this.camera.position.clone().sub(this.controls.target).multiplyScalar(factor);
    const { minDistance, maxDistance } = this.controls;
    offset.setLength(THREE.MathUtils.clamp(offset.length(), Math.max(minDistance, this.camera.near * 2), maxDistance));
    this.camera.position.copy(this.controls.target).add(offset);
    this.controls.update();
    this.invalidate();
  }

  /** camera="px,py,pz,tx,ty,tz". */
  setView([px, py, pz, tx, ty, tz]) {
    this._stopCamera();
    this.camera.position.set(px, py, pz);
    this.controls.target.set(tx, ty, tz);
    this.controls.update();
    this.invalidate();
  }

  /**
   * One picture of the view as it stands, `width` × `height`, drawn once off screen (the shared
   * renderer's own canvas) with this stage's looks: RGBA rows from the top, straight alpha. The
   * camera keeps its eye and vertical extent (a wider picture shows more at the sides); glides end
   * where they are going. `transparent` leaves the background out (alpha 0 there); `background`
   * is a colour for this picture alone.
   * @param {number} width
   * @param {number} height
   * @param {{ transparent?: boolean, background?: THREE.ColorRepresentation }} [options]
   */
  still(width, height, { transparent = false, background } = {}) {
    this.glides.finish();
    if (this._framing) this._arrive();
    this.controls.update();
    this.playback?.tick();
    for (const c of this.characters) c.update();
    const camera = this.camera.clone(false);
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld(true);
    const shown = background === undefined ? this.background : new THREE.Color(background);
    this.scene.background = transparent ? null : shown;
    try {
      return sharedRenderer.still(this, camera, width, height, { transparent });
    } finally {
      this.scene.background = this.background;
    }
  }

  /** Draws now and counts the pixels that differ from the background (tests). */
  countForegroundPixels() {
    sharedRenderer.draw(this);
    const { data } = this.context2d.getImageData(0, 0, this.width, this.height);
    const bg = this.background.clone().convertLinearToSRGB();
    const [br, bgG, bb] = [bg.r * 255, bg.g * 255, bg.b * 255].map(Math.round);
    let count = 0;
    for (let o = 0; o < data.length; o += 4) {
      if (Math.abs(data[o] - br) + Math.abs(data[o + 1] - bgG) + Math.abs(data[o + 2] - bb) > 24) count++;
    }
    return { count, total: this.width * this.height, w: this.width, h: this.height };
  }

  /**
   * Frees what this stage holds on the GPU and in the page (characters, the shadow's targets, an
   * environment image) and its place in the shared renderer. It can be used again afterwards.
   */
  release() {
    this.clear();
    this.shadow?.dispose();
    this.shadow = null;
    this._environmentLoad++;
    this._environmentMap?.dispose();
    this._environmentMap = null;
    if (this.environment !== 'none') this.environment = 'neutral';
    this.scene.environment = null;
    this.released = true;
    // The controls listen on the document for keys: connected, they would keep this stage alive.
    this.controls.disconnect();
    sharedRenderer.forget(this);
  }

  /** Used again after release(): the controls listen again and frames may be asked for. */
  reuse() {
    if (!this.released) return;
    this.released = false;
    this.controls.connect(this.canvas);
  }

  dispose() {
    this.release();
    this.controls.dispose();
  }
}
