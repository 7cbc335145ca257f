// @ts-check
// <rigscope-viewer>: the player in one tag. It loads when scrolled into view, draws through the
// page's one shared WebGL renderer only when something changed, and decodes in the page's one
// decoder pool, so a page of many viewers stays light. Files become one scene (core/scene.js)
// and its characters, as everywhere else; problems are shown inside the element as text and
// sent as `error` events with their structured records.
import { entriesFromSource } from './packed.js';
import { describeRecord, isProblem } from '../core/report.js';
import { displayName } from '../core/files.js';
import { lodFromText } from '../core/lod.js';
import { encodePng } from '../core/png.js';
import { sharedPool } from '../decoder/pool.js';
import { BACKGROUND, ElementStage } from './stage.js';
import { reducedMotion } from '../three/glides.js';
import { Player } from './player.js';
import { sharedRenderer } from './renderer.js';
import { screenRect } from '../three/bounds.js';
import { adoptStyles } from './style.js';

const ICONS = {
  play: '<svg viewBox="0 0 16 16" aria-hidden="true"><path class="i-play" d="M4 2.5v11l9-5.5z"/><path class="i-pause" d="M3.5 2.5h3v11h-3zM9.5 2.5h3v11h-3z"/></svg>',
  fullscreen:
    '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M2 2h5v2H4v3H2zM9 2h5v5h-2V4H9zM2 9h2v3h3v2H2zM12 9h2v5H9v-2h3z"/></svg>',
};

// Static markup only: nothing from a file or an attribute is ever put into it.
const TEMPLATE = `
<div class="frame" part="frame">
  <div class="view" part="view">
    <canvas part="canvas" tabindex="0" role="img" aria-label="3D model viewer"></canvas>
    <div class="labels"></div>
    <img class="poster" part="poster" alt="" hidden>
    <div class="status" part="status" role="status" aria-live="polite"></div>
    <div class="messages" part="messages" role="alert"></div>
  </div>
  <div class="bar" part="controls">
    <button class="play" type="button" aria-label="Play or pause" disabled>${ICONS.play}</button>
    <input class="scrub" type="range" min="0" max="1" step="any" value="0" aria-label="Time" disabled>
    <span class="frame-label" aria-live="off"></span>
    <select class="clips" aria-label="Clip" hidden></select>
    <slot name="controls"></slot>
    <button class="fullscreen" type="button" aria-label="Fullscreen">${ICONS.fullscreen}</button>
  </div>
</div>`;

/** Arrow keys turn the view by this much (radians); + and - move in or out by this factor. */
const KEY_TURN = Math.PI / 12;
const KEY_ZOOM = 1.25;

/** Elements that are on a page and hold what they loaded; the last one to go ends idle decoder workers. */
const live = new Set();

/** When the page has no element left, the shared pool's idle workers end (a later element starts them again). */
function releaseWorkers() {
  if (!live.size) sharedPool().endIdleWorkers();
}

const truthy = (v) => v !== null && v !== '0' && v.toLowerCase() !== 'false';

/**
 * up="y" (as decoded), "z" (a Z-up source stood up) or "X,Y,Z": quarter turns about each axis in
 * degrees, as the viewer's up= parameter; null when it is none of these.
 * @returns {number[] | null}
 */
function readUp(value) {
  const v = String(value ?? '')
    .trim()
    .toLowerCase();
  if (v === '' || v === 'y') return [0, 0, 0];
  if (v === 'z') return [-90, 0, 0];
  const d = v.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  return d.length === 3 && d.every((x) => Number.isInteger(x) && x % 90 === 0 && Math.abs(x) <= 180) ? d : null;
}

/**
 * camera="px,py,pz,tx,ty,tz": six finite numbers, the eye apart from the target; else null.
 * @returns {[number, number, number, number, number, number] | null}
 */
function readCamera(value) {
  const v = String(value)
    .split(',')
    .map((x) => (x.trim() === '' ? NaN : Number(x)));
  if (v.length !== 6 || !v.every(Number.isFinite) || (v[0] === v[3] && v[1] === v[4] && v[2] === v[5])) return null;
  return /** @type {[number, number, number, number, number, number]} */ (v);
}

/** background="RRGGBB" (as the viewer's bg= parameter) or any CSS colour three reads. */
const readBackground = (value) => (/^[0-9a-f]{6}$/i.test(value) ? `#${value}` : value);

/** Largest side of a still (renderStill): what every WebGL 2 renderer can draw at once. */
const MAX_STILL = 4096;

/**
 * lod="N" or "all": the level of detail shown of parts that have levels (UE Viewer's X_Lod1,
 * FModel's X_LOD0); unset or empty is 0, the finest; null when it is neither.
 * @returns {number | 'all' | null}
 */
function readLod(value) {
  return value === null || value.trim() === '' ? 0 : lodFromText(value);
}

export class RigscopeViewer extends HTMLElement {
  static observedAttributes = [
    'src',
    'packed',
    'clip',
    'frame',
    'autoplay',
    'speed',
    'camera',
    'background',
    'skeleton',
    'labels',
    'controls',
    'up',
    'poster',
    'alt',
    'environment',
    'exposure',
    'shadow',
    'lod',
  ];

  /** The renderer and decoder pool every element of the page shares (counters: stats). */
  static get renderer() {
    return sharedRenderer;
  }
  static get decoderPool() {
    return sharedPool();
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root);
    const template = document.createElement('template');
    template.innerHTML = TEMPLATE;
    root.append(template.content);
    const $ = (sel) => root.querySelector(sel);
    this._ui = {
      view: $('.view'),
      canvas: $('canvas'),
      poster: $('.poster'),
      status: $('.status'),
      messages: $('.messages'),
      bar: $('.bar'),
      play: $('.play'),
      scrub: $('.scrub'),
      frameLabel: $('.frame-label'),
      clips: $('.clips'),
      fullscreen: $('.fullscreen'),
    };
    this.stage = new ElementStage(this._ui.canvas, $('.labels'), () => this._syncControls());
    this.app = new Player(this.stage, sharedPool());
    this.stage.isPlaying = () => this.app.playing;
    this.app.on((what) => this._onApp(what));
    /** Problems as text: { file, text } (file null when it is about an attribute). */
    this.messages = [];
    /** Structured records of the last load's problems (refused, missing, unbound). */
    this.records = [];
    this._loaded = null; // the src that is loaded or loading
    this._loading = null; // promise of the current load
    /** @type {ResizeObserver | null} */
    this._resizer = null;
    /** @type {IntersectionObserver | null} */
    this._seen = null;
    this._bindControls();
  }

  connectedCallback() {
    live.add(this);
    this.stage.reuse();
    this._resizer ??= new ResizeObserver(() => this._resize());
    this._resizer.observe(this._ui.view);
    // Lazy: nothing is fetched or drawn until the element is (nearly) on screen.
    this._seen ??= new IntersectionObserver(
      (entries) => {
        const on = entries[entries.length - 1].isIntersecting;
        this.stage.onScreen = on;
        if (on) {
          this._maybeLoad();
          this.stage.invalidate();
        }
      },
      { rootMargin: '200px' },
    );
    this._seen.observe(this);
    this._applyControls();
    this._applyPoster();
    this._applyName();
  }

  disconnectedCallback() {
    this._seen?.disconnect();
    this._resizer?.disconnect();
    this.stage.onScreen = false;
    // A move (removed, then added again in the same task) keeps everything: only an element still
    // out of the page once this task is over is torn down.
    setTimeout(() => {
      if (!this.isConnected) this._teardown();
    }, 0);
  }

  /**
   * Frees everything this element holds: its characters' geometry, materials and textures, its
   * shadow and environment image, its slot in the shared renderer and its observers. A decode
   * still running in the shared pool finishes there and its result is dropped. Added again, the
   * element loads its src anew.
   */
  _teardown() {
    live.delete(this);
    this._loaded = null;
    this.app.drop();
    this.stage.release();
    this._seen = null;
    this._resizer = null;
    this._ui.status.textContent = '';
    this._syncControls();
    this._applyPoster();
    // Workers busy with a dropped decode end once it is done.
    const loading = this._loading;
    this._loading = null;
    releaseWorkers();
    loading?.finally(releaseWorkers);
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    switch (name) {
      case 'src':
      case 'packed':
        if (this.stage.onScreen) this._maybeLoad();
        break;
      case 'controls':
        this._applyControls();
        break;
      case 'poster':
        this._applyPoster();
        break;
      case 'alt':
        this._applyName();
        break;
      case 'environment':
      case 'exposure':
      case 'shadow':
        this._applyView(name);
        break;
      default:
        if (this.app.characters.length) this._applyView(name);
        break;
    }
  }

  // ---- properties and methods -------------------------------------------------------------

  get src() {
    return this.getAttribute('src') ?? '';
  }
  set src(v) {
    this.setAttribute('src', v);
  }

  /** Clips of what is loaded: { name, frames, fps, duration, character }. */
  get clips() {
    return this.app.allClips.map(({ character, clip }) => ({
      name: clip.name,
      frames: clip.frameCount,
      fps: clip.fps,
      duration: clip.duration,
      character: character.name,
    }));
  }

  /** The current clip's name, or null. */
  get currentClip() {
    return this.app.current?.clip.name ?? null;
  }

  /** Seconds into the current clip. */
  get currentTime() {
    return this.app.time;
  }
  set currentTime(t) {
    this.app.setTime(Number(t) || 0);
  }

  get paused() {
    return !this.app.playing;
  }

  /** Resolves when the current src has loaded (or failed: see messages), and a `lod` asked for since is drawn. */
  get loaded() {
    return this._loading ?? Promise.resolve();
  }

  play() {
    if (!this.app.playing) this.app.togglePlay();
  }

  pause() {
    if (this.app.current && this.app.playing) this.app.togglePlay();
  }

  /**
   * One still picture of what is shown, as PNG bytes: `width` × `height` pixels (1 to 4096 a
   * side), drawn once off screen with the view's looks and camera (a picture of another shape
   * than the view keeps its vertical extent). The current clip is paused at `frame` (the file's
   * own numbering, as the frame attribute) or `time` (seconds into the clip) when given, else
   * where it stands; no wall-clock time enters, so the same files and options give the same
   * picture. `transparent` leaves the background out (alpha 0); `background` ("RRGGBB" or a CSS
   * colour) is this picture's alone. Waits for the current load.
   * @param {{ width: number, height: number, time?: number, frame?: number, transparent?: boolean, background?: string }} options
   * @returns {Promise<Uint8Array>}
   */
  async renderStill({ width, height, time, frame, transparent = false, background } = /** @type {any} */ ({})) {
    const whole = (/** @type {number} */ side) => Number.isInteger(side) && side >= 1 && side <= MAX_STILL;
    if (!whole(width) || !whole(height))
      throw new RangeError(`renderStill: ${width} x ${height} is not a size in whole pixels from 1 to ${MAX_STILL} a side`);
    await this.loaded;
    const cur = this.app.current;
    if (cur) {
      if (frame !== undefined) this.app.goToFileFrame(Number(frame));
      else this.app.pauseAt(time !== undefined ? Number(time) : cur.action.time);
    }
    this.stage.poseChanged();
    const rgba = this.stage.still(width, height, { transparent, background: background ? readBackground(background) : undefined });
    return encodePng(rgba, width, height);
  }

  /** What is shown, in the viewer page's words: see window.rigscope.snapshot() there. */
  snapshot() {
    const cur = this.app.current;
    this.stage.scene.updateMatrixWorld(true);
    this.stage.camera.updateMatrixWorld();
    const { canvas } = this._ui;
    return {
      demo: false,
      characters: this.app.characters.map((c) => {
        const box = this.stage.boundsOf(c);
        const mine = cur?.character === c ? cur : null;
        return {
          name: c.name,
          visible: c.root.visible,
          bounds: box.isEmpty() ? null : { min: box.min.toArray(), max: box.max.toArray() },
          clip: mine ? mine.clip.name : null,
          frame: mine ? mine.clip.firstFrame + this.app.frame : null,
          playing: !!mine && this.app.playing,
          // Where it is drawn on the picture, in CSS pixels from its top left.
          screen: c.root.visible ? screenRect(box, this.stage.camera, canvas.clientWidth, canvas.clientHeight) : null,
        };
      }),
      selected: (this.app.selected ?? cur?.character)?.name ?? null,
      messages: this.messages.map((m) => ({ ...m })),
    };
  }

  // ---- loading ----------------------------------------------------------------------------

  _maybeLoad() {
    // What to load: the URLs and packed scenes of src and packed.
    const src = `${this.src.trim()}\n${(this.getAttribute('packed') ?? '').trim()}`.trim();
    if (src === this._loaded) return;
    this._loaded = src;
    this._loading = this._load(src);
  }

  async _load(src) {
    this._clearMessages();
    this.records = [];
    // A load still decoding ends here, with what it drew early: nothing of it shows any more.
    this.app.cancel();
    if (!src) {
      this.app.clear();
      return;
    }
    this._ui.status.textContent = 'Loading…';
    let report;
    let notes;
    let urls = this.src.split(/\s+/).filter((u) => u && !u.startsWith('#'));
    try {
      const source = await entriesFromSource(this.src, this.getAttribute('packed'), document.baseURI);
      urls = source.urls;
      notes = source.notes ?? [];
      const { entries } = source;
      if (this._loaded !== src) return;
      // A packed scene's view fills the view attributes the page did not set.
      for (const [name, value] of Object.entries(source.attributes)) if (!this.hasAttribute(name)) this.setAttribute(name, value);
      // The level asked for is assembled from the start (a bad value is noted once loaded).
      this.app.lod = readLod(this.getAttribute('lod')) ?? 0;
      // mesh="Name": of a UE1 package, only that mesh (its name or Package.Group.Name) is decoded and shown.
      const mesh = this.getAttribute('mesh')?.trim();
      report = await this.app.loadFiles(entries, {
        ...(mesh ? { objects: [mesh] } : {}),
        onProgress: ({ done, total }) => {
          if (this._loaded === src) this._ui.status.textContent = `Loading… ${done} of ${total} files`;
        },
        onDrawn: (first) => this._drawnEarly(first),
      });
    } catch (/** @type {any} */ err) {
      if (this._loaded !== src || err.dropped) return;
      this._ui.status.textContent = '';
      const files = urls.filter((u) => String(err.message).includes(u));
      this.records = [{ kind: 'refused', files: files.length ? files : urls, reason: err.message }];
      this._message(null, err.message);
      this._emit('error', { records: this.records, messages: this.messages });
      return;
    }
    if (this._loaded !== src) return;
    this._ui.status.textContent = '';
    this._ui.poster.hidden = true;
    this.records = report.records.filter(isProblem).map((r) => ({ ...r }));
    for (const r of this.records) this._message(r.files[0] ?? null, describeRecord(r));
    for (const note of notes ?? []) this._note(note);
    if (!this.app.characters.length && !this.records.length) {
      this.records.push({ kind: 'refused', files: urls, reason: 'nothing in these files can be shown' });
      this._message(null, 'Nothing in these files can be shown');
    }
    for (const name of RigscopeViewer.observedAttributes) this._applyView(name);
    this._syncControls();
    this.stage.invalidate();
    if (this.app.characters.length) this._emit('load', { clips: this.clips, records: report.records.map((r) => ({ ...r })) });
    if (this.records.length) this._emit('error', { records: this.records, messages: this.messages });
  }

  /**
   * A load shows what it has decoded so far (its status still says it is loading): the poster
   * gives way, and the first drawing stands as the final scene will (up, background). The other
   * view attributes apply to the final scene.
   */
  _drawnEarly(first) {
    this._ui.poster.hidden = true;
    if (!first) return;
    this._applyView('background');
    this.stage.setUp(readUp(this.getAttribute('up')) ?? [0, 0, 0]);
  }

  /** Applies one view attribute to what is loaded. */
  _applyView(name) {
    const value = this.getAttribute(name);
    const stage = this.stage;
    switch (name) {
      case 'background':
        // Taken away, the default comes back (a page that changes scenes in one element).
        stage.setBackground(value ? readBackground(value) : BACKGROUND);
        break;
      case 'skeleton':
        stage.setSkeletonVisible(value !== null && truthy(value));
        break;
      case 'labels':
        stage.setLabelsVisible(value !== null && truthy(value));
        break;
      case 'up': {
        const turns = readUp(value);
        if (!turns) this._note(`up="${value}" is not y, z or three quarter turns X,Y,Z in degrees: ignored`);
        stage.setUp(turns ?? [0, 0, 0]);
        // The selected model (the hero at first) stays the one framed.
        stage.frameAll({ characters: this.app.framed });
        this._applyView('camera');
        break;
      }
      case 'environment': {
        const env = value?.trim() || 'neutral';
        const named = env === 'neutral' || env === 'none';
        Promise.resolve()
          .then(() => stage.setEnvironment(named ? env : new URL(env, document.baseURI).href))
          .catch((err) => {
            this._note(`environment="${value}" could not be loaded (${err?.message ?? err}): the neutral room is used`);
            if (stage.environment !== 'neutral') stage.setEnvironment('neutral');
          });
        break;
      }
      case 'exposure': {
        const exposure = value === null || value.trim() === '' ? 1 : Number(value);
        if (!Number.isFinite(exposure) || exposure < 0) this._note(`exposure="${value}" is not a number of 0 or more: 1 is used`);
        stage.exposure = Number.isFinite(exposure) && exposure >= 0 ? exposure : 1;
        stage.invalidate();
        break;
      }
      case 'shadow':
        stage.setShadowVisible(value === null || truthy(value));
        break;
      case 'lod': {
        const lod = readLod(value);
        if (lod === null) this._note(`lod="${value}" is not a level of detail (0 the finest, 1, 2… or all): level 0 is shown`);
        this._applyLod(lod ?? 0);
        break;
      }
      case 'speed':
        stage.timeScale = value !== null && Number.isFinite(Number(value)) ? Number(value) : 1;
        break;
      case 'camera': {
        if (value === null) break;
        const view = readCamera(value);
        if (view) stage.setView(view);
        else this._note(`camera="${value}" is not six numbers px,py,pz,tx,ty,tz: the default view is used`);
        break;
      }
      case 'clip':
        this._applyClip(value);
        break;
      case 'frame':
        this._applyFrame(value);
        break;
      case 'autoplay':
        this._applyAutoplay();
        break;
      default:
        break;
    }
  }

  /** Assembles what is loaded again at another level of detail; the clip goes on at its time. */
  _applyLod(lod) {
    if (lod === this.app.lod) return;
    const done = this.app.setLod(lod).catch((/** @type {any} */ err) => this._note(`lod="${lod}" could not be shown: ${err.message}`));
    // `loaded` resolves once the new level is drawn.
    this._loading = Promise.all([this._loading, done]).then(() => {});
  }

  _applyClip(name) {
    if (name === null || name === '') return;
    const all = this.app.allClips;
    const hit = all.find((c) => c.clip.name === name) ?? all.find((c) => c.clip.name.toLowerCase() === name.toLowerCase());
    if (hit) {
      if (this.app.current?.clip !== hit.clip) {
        // The clip asked for shows alone: no crossfade from the clip chosen while loading.
        this.app.current?.action.stop();
        this.app.current = null;
        this.app.select(hit.character, hit.clip);
      }
      this._applyAutoplay();
      return;
    }
    const current = this.app.current?.clip.name;
    const names = all.map((c) => c.clip.name);
    const list = names.length ? `; clips: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}` : '';
    this._note(`No clip named "${name}"${current ? `: showing "${current}"` : ''}${list}`);
    const record = { kind: 'missing', files: this.src.split(/\s+/).filter(Boolean), needs: `a clip named "${name}"` };
    this.records.push(record);
    this._emit('error', { records: [record], messages: this.messages });
  }

  _applyFrame(value) {
    const cur = this.app.current;
    if (value === null || !cur) return;
    const frame = Number(value);
    const first = cur.clip.firstFrame,
      last = first + cur.clip.frameCount - 1;
    if (!Number.isFinite(frame)) return this._note(`frame="${value}" is not a number`);
    const shown = Math.min(Math.max(Math.round(frame), first), last);
    if (shown !== frame) this._note(`Frame ${value} is outside ${cur.clip.name} (frames ${first}–${last}): showing frame ${shown}`);
    this.app.setTime((shown - first) / cur.clip.fps);
    this._applyAutoplay();
  }

  /** Plays (from the frame asked for, if any) when autoplay is set; else holds still. */
  _applyAutoplay() {
    const cur = this.app.current;
    if (!cur) return;
    cur.action.paused = !(this.hasAttribute('autoplay') && truthy(this.getAttribute('autoplay'))) || reducedMotion();
    this.stage.invalidate();
    this._syncControls();
  }

  // ---- controls ---------------------------------------------------------------------------

  _bindControls() {
    const ui = this._ui;
    ui.play.addEventListener('click', () => {
      this.app.togglePlay();
      this.stage.invalidate();
    });
    ui.scrub.addEventListener('input', () => {
      this.app.pauseAt(Number(ui.scrub.value));
    });
    ui.clips.addEventListener('change', () => {
      const hit = this.app.allClips[Number(ui.clips.value)];
      if (hit) this.app.select(hit.character, hit.clip);
    });
    ui.fullscreen.addEventListener('click', () => {
      if (document.fullscreenElement === this) document.exitFullscreen();
      else this.requestFullscreen?.().catch((err) => this._note(`Fullscreen was refused: ${err.message}`));
    });
    this.addEventListener('fullscreenchange', () => this._resize());
    ui.canvas.addEventListener('keydown', (e) => this._onKey(e));
  }

  /** Arrow keys orbit, + and - zoom, PgUp/PgDn step through the models, Space plays or pauses (the canvas has the focus). */
  _onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const turns = { ArrowLeft: [KEY_TURN, 0], ArrowRight: [-KEY_TURN, 0], ArrowUp: [0, KEY_TURN], ArrowDown: [0, -KEY_TURN] };
    if (turns[e.key]) this.stage.orbit(...turns[e.key]);
    else if (e.key === 'PageUp' || e.key === 'PageDown') this.app.stepCharacter(e.key === 'PageUp' ? -1 : 1);
    else if (e.key === '+' || e.key === '=') this.stage.zoom(1 / KEY_ZOOM);
    else if (e.key === '-' || e.key === '_') this.stage.zoom(KEY_ZOOM);
    else if (e.key === ' ' && this.app.current) {
      this.app.togglePlay();
      this.stage.invalidate();
    } else return;
    e.preventDefault();
  }

  /**
   * The view's accessible name: alt when given; else one made from what is shown (model and clip
   * names from files, set as an attribute value: text, never markup).
   */
  _applyName() {
    const alt = this.getAttribute('alt');
    const names = this.app.characters.map((c) => displayName(c.name));
    const clip = this.currentClip;
    let name = 'Rigscope 3D viewer';
    if (names.length)
      name = `3D model ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}${clip ? `, clip ${displayName(clip)}` : ''}`;
    this._ui.canvas.setAttribute('aria-label', alt?.trim() ? alt : name);
  }

  /** controls="none" | "compact" (default: play, time, clip) | "full" (also frame and fullscreen). */
  _applyControls() {
    const mode = this.getAttribute('controls') ?? 'compact';
    const ui = this._ui;
    ui.bar.hidden = mode === 'none';
    ui.frameLabel.hidden = mode !== 'full';
    ui.fullscreen.hidden = mode !== 'full' || !document.fullscreenEnabled;
    this._resize();
    this._fitControls();
  }

  /**
   * A small player (a gallery's 120 × 90, a 320 px thumbnail) leaves out the controls its bar has
   * no room for, in this order: the frame counter, fullscreen, the clip menu; play and the time bar
   * stay. Each control shown is whole (the counter is as wide as its widest text, the menu as its
   * longest clip name), so none reads "1284 / 1…" or "H…". Measured when the size, the clips or
   * the mode change, never per frame.
   */
  _fitControls() {
    const ui = this._ui;
    const optional = [ui.frameLabel, ui.fullscreen, ui.clips];
    for (const el of optional) el.classList.remove('squeezed');
    if (ui.bar.hidden || !ui.bar.clientWidth) return;
    for (const el of optional) {
      if (ui.bar.scrollWidth <= ui.bar.clientWidth) break;
      el.classList.add('squeezed');
    }
  }

  _applyPoster() {
    const poster = this.getAttribute('poster');
    const ui = this._ui;
    if (poster && !this.app.characters.length) {
      ui.poster.src = new URL(poster, document.baseURI).href;
      ui.poster.hidden = false;
    } else ui.poster.hidden = true;
  }

  _onApp(what) {
    if (what === 'clip' || what === 'time' || what === 'loaded' || what === 'cleared') this.stage.poseChanged();
    if (what === 'clip' || what === 'loaded' || what === 'cleared') this._applyName();
    if (what === 'clip') {
      this._fillClips();
      this._emit('clipchange', { clip: this.currentClip });
    }
    if (what === 'loaded' || what === 'cleared') this._fillClips();
    this.stage.invalidate();
    this._syncControls();
  }

  _fillClips() {
    const { clips } = this._ui;
    const all = this.app.allClips;
    const many = new Set(all.map((c) => c.character)).size > 1;
    const options = all.map(({ character, clip }, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = displayName(many ? `${character.name}: ${clip.name}` : clip.name); // file text: never HTML
      o.selected = this.app.current?.clip === clip;
      return o;
    });
    clips.replaceChildren(...options);
    clips.hidden = all.length < 2;
    // The counter's widest text ("1297 / 1297"), so that its width holds while it counts.
    const cur = this.app.current;
    const last = cur ? String(cur.clip.firstFrame + cur.clip.frameCount - 1) : '';
    this._ui.frameLabel.style.minWidth = `${2 * last.length + 3}ch`;
    this._fitControls();
  }

  _syncControls() {
    const ui = this._ui;
    const cur = this.app.current;
    ui.play.classList.toggle('playing', this.app.playing);
    ui.play.disabled = !cur;
    ui.scrub.disabled = !cur;
    if (!cur) {
      ui.frameLabel.textContent = '';
      return;
    }
    ui.scrub.max = String(cur.clip.duration || 1);
    ui.scrub.value = String(this.app.time);
    ui.frameLabel.textContent = `${cur.clip.firstFrame + this.app.frame} / ${cur.clip.firstFrame + cur.clip.frameCount - 1}`;
  }

  _resize() {
    const { clientWidth, clientHeight } = this._ui.view;
    if (clientWidth && clientHeight) this.stage.resize(clientWidth, clientHeight);
    this._fitControls();
  }

  // ---- messages and events ----------------------------------------------------------------

  _message(file, text, kind = 'error') {
    const shown = displayName(text);
    this.messages.push({ file, text: shown });
    const p = document.createElement('p');
    p.className = kind;
    p.textContent = shown; // file text: never HTML
    this._ui.messages.append(p);
  }

  _note(text) {
    this._message(null, text, 'note');
  }

  _clearMessages() {
    this.messages = [];
    this._ui.messages.replaceChildren();
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
