// Application state: everything decoded so far, the scene assembled from it, the three.js
// characters built from that scene, and which clip plays. Each drop is decoded, the scene is
// assembled again over every drop, and only characters whose make-up changed are rebuilt. A
// failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { Playback } from '../three/playback.js';
import { assembleScene, decodeFiles } from '../families/index.js';
import { characterBounds, layoutCharacters } from '../core/layout.js';
import { Character } from '../three/character.js';
import { clipMotionBounds } from '../three/motion-bounds.js';
import { screenRect } from '../three/bounds.js';
import { assignTexture, removeTexture, textureOfRecord } from '../three/textures.js';
import { buildTextureBoard } from '../three/board.js';
import { applyMaterialMaps, clearMaterialMaps } from '../three/material-maps.js';
import { describeRecord, isProblem } from '../core/report.js';
import { nextTask, slicer, SLICE_MS } from '../core/tasks.js';
import { earlyDrawing } from '../core/early-drawing.js';
import { signature } from '../three/scene-objects.js';
import { releaseHeldInputs } from '../decoder/held.js';

const emptyDecoded = () => ({ models: [], animations: [], textures: [], texts: [], records: [], containers: [] });

/** Runs `step`, and ends the task after it when it took long. */
async function alone(step) {
  const started = performance.now();
  step();
  if (performance.now() - started > SLICE_MS / 2) await nextTask();
}

export class App extends Playback {
  constructor(viewer, decoder) {
    super();
    this.viewer = viewer;
    viewer.playback = this;
    // The view draws while a clip plays (or a prop's idle loop runs), and otherwise only on change.
    viewer.isAnimating = () => this.playing || this.characters.some((c) => c.props.some((p) => p.clips.length));
    this.decoder = decoder;
    this.decoded = emptyDecoded();
    this.drops = 0;
    this.manual = new Map(); // `${model file}#${material index}` -> texture record id
    this.lod = 0; // the level of detail shown of parts that have levels, or 'all' (panels/lod.js)
    // Of UE1 packages, the objects decoded and shown (a link's mesh=, kept for the page's life so
    // Copy link names it again), or undefined for all of them.
    this.objects = undefined;
    this.scene = null;
    this.characters = []; // built from this.scene, in its order (texture boards last); playable (Playback)
    this.built = new Map(); // signature -> Character
    this.reports = []; // one per drop: { files, records }
    this.files = new Map(); // path -> FileEntry of every file given (bytes stay readable: links and pages pack them)
    this.demo = false;
    this.lastDecodeMs = 0;
  }

  requestRender() {
    this.viewer.requestRender?.();
  }

  /** Every decoded texture record, for the manual assignment list. */
  get textures() {
    return this.decoded.textures;
  }

  /**
   * Decodes and adds a set of files. `replace` clears what is loaded first (the demo is always
   * replaced by the first drop). Resolves to this drop's report: { files, records }.
   */
  async loadFiles(entries, { onProgress, replace = false, demo = false, isCancelled } = {}) {
    const started = performance.now();
    const drop = ++this.drops;
    const early = this._drawEarly({ replace, demo });
    const objects = this.objects ? { objects: this.objects } : {};
    const set = await decodeFiles(entries, this.decoder, { onProgress, drop, isCancelled, onDecoded: early.decoded, ...objects });
    this.lastDecodeMs = performance.now() - started;
    performance.mark('rigscope:decoded');
    await early.settled();
    // The demo gives way to the first drop that brings anything to show; a drop of only broken
    // files leaves it (and any scene) as it was.
    const brings = set.models.length + set.animations.length + set.textures.length > 0;
    if (!early.cleared && (replace || (this.demo && !demo && brings))) this.clear();
    this.demo = demo || (this.demo && !brings);
    for (const k of Object.keys(this.decoded)) this.decoded[k].push(...set[k]);
    for (const e of entries) this.files.set(e.path, e);
    const added = [...early.added, ...(await this._assemble())].filter((c) => this.characters.includes(c));
    performance.mark('rigscope:built');
    const files = new Set(entries.map((e) => e.path));
    const report = { files: [...files], records: this.scene.records.filter((r) => r.files.some((f) => files.has(f))) };
    this.reports.push(report);
    performance.mark('rigscope:framed');
    // A drop that adds characters starts on its hero (core/layout.js chooseHero): its first clip
    // with motion, framed alone, the others a PgDn away.
    const hero = this.hero;
    if (added.length && hero) this._selected = hero;
    if (!this.current || !this.characters.includes(this.current.character) || added.length) {
      const pool = this.allClips.filter((c) => (hero && added.length ? c.character === hero : added.includes(c.character)));
      const first =
        Playback.firstMoving(pool) ??
        Playback.firstMoving(this.allClips.filter((c) => added.includes(c.character))) ??
        Playback.firstMoving(this.allClips);
      if (first && (!this.current || !this.characters.includes(this.current.character) || !this.current.action?.isRunning()))
        this.select(first.character, first.clip);
      else if (!first) this.current = null;
    }
    // Framed over the whole current clip, so a character that walks away stays in view; the
    // camera glides there from the framing of the characters drawn early.
    if (added.length) this.frameView(null, { glide: early.framed, characters: this.firstLook() });
    this._releaseUnusedPixels();
    performance.mark('rigscope:selected');
    this.emit('loaded');
    performance.mark('rigscope:panels');
    // Drops done, across clears (tests and host pages wait on it), once everything is in place.
    await this.viewer.settled?.();
    this.loads = (this.loads ?? 0) + 1;
    return report;
  }

  /**
   * Draws a drop while it decodes: the first model as soon as it is decoded, then again each time
   * the models decoded have doubled. A folder shows its first character at about the cost of that
   * file, and assembling again stays O(n log n) over the drop. The last assembly (loadFiles) keeps
   * every character drawn here whose make-up did not change.
   */
  _drawEarly({ replace, demo }) {
    const early = { cleared: false, framed: false, added: [] };
    const draw = async (partial) => {
      if (!early.cleared && (replace || (this.demo && !demo))) {
        this.clear();
        early.cleared = true;
      }
      const before = this.characters.length;
      const decoded = Object.fromEntries(Object.keys(this.decoded).map((k) => [k, [...this.decoded[k], ...partial[k]]]));
      early.added.push(...(await this._assemble(decoded, { early: true })));
      // The first characters of an empty view are framed at once; later ones make room by gliding.
      if (!before && !early.framed && this.characters.length) {
        this.frameView();
        early.framed = true;
        // The next drawings link shaders, which holds the GPU process: the first frame goes first.
        await this.viewer.shown?.();
      }
    };
    // When to draw (core/early-drawing.js): decoded is decodeFiles()'s onDecoded, settled the last drawing's end.
    return Object.assign(early, earlyDrawing(draw));
  }

  /**
   * Assembles the scene over everything decoded and brings the three.js side in line with it.
   * A new character enters the view once its textures are on and its shaders compiled, so its
   * first frame is whole; characters already drawn glide to their new places.
   */
  async _assemble(decoded = this.decoded, { early = false } = {}) {
    this.scene = await assembleScene(decoded, { manual: this.manual, lod: this.lod });
    const next = new Map();
    const added = [];
    const pause = slicer();
    for (const sc of this.scene.characters) {
      const sig = signature(sc);
      let character = this.built.get(sig);
      if (!character) {
        await pause();
        character = new Character(sc);
        added.push(character);
      }
      character.scene = sc;
      next.set(sig, character);
    }
    for (const b of this.scene.boards) {
      let board = this.built.get(b.id);
      if (!board) {
        board = await buildTextureBoard(b.textures, this.scene.records, this.decoder);
        if (!board) continue;
        added.push(board);
      }
      next.set(b.id, board);
    }
    const gone = [...this.built].filter(([sig]) => !next.has(sig)).map(([, character]) => character);
    this.built = next;
    this.characters = [...next.values()];
    // The newcomers' programs link while the drop is laid out and its textures are made.
    await this.viewer.sendLinks?.(
      added.map((c) => c.root),
      this._mappedMaterials(added),
    );
    await this._layoutInMotion(pause);
    // What is drawn already starts for its new place now, and glides there while the newcomers'
    // textures and shaders are made ready: a glide lasts as long as its start stood (glides.js),
    // so started after them it took their time twice over (a psg folder: 120 ms of 600).
    const isNew = new Set(added);
    for (const c of this.characters) if (!isNew.has(c)) this.viewer.place?.(c, { glide: true });
    await this._applyTextures(pause, { early });
    // Linking a program holds the page until the GPU process has linked it, and making the
    // programs takes its time: not in the same task as the builds before (one of 65 ms).
    await nextTask();
    // Every character: one drawn before may have just got its texture (another program).
    await this.viewer.compileFor?.(this.characters.map((c) => c.root));
    // What was rebuilt is swapped for its new build in the same task when the drop is small; a
    // large one enters the view in slices.
    for (const c of gone) this.viewer.remove(c);
    for (const c of added) {
      await pause();
      this.viewer.add(c);
    }
    return added;
  }

  /** The materials of `characters` whose scene entry gives them maps besides their texture (their programs change with them). */
  _mappedMaterials(characters) {
    const out = new Set();
    for (const top of characters) {
      if (top.textureBoard) continue;
      for (const character of top.tree())
        for (const entry of character.scene.materials)
          if (entry.maps)
            for (const m of character.materials) if (m.userData.model === entry.model && m.userData.index === entry.index) out.add(m);
    }
    return out;
  }

  /**
   * Lays the characters out again with the room their first clip needs (a leap, a walk): the
   * scene's own layout only knows the bind pose. The room is measured from the clip's data
   * (motion-bounds.js), once per character, and only when there is more than one to lay out.
   */
  async _layoutInMotion(pause = async () => {}) {
    if (this.scene.characters.length < 2) return;
    let moved = false;
    for (const c of this.characters) {
      const sc = c.scene;
      const clip = c.clips.find((k) => k.frameCount > 2);
      const rest = sc && characterBounds(sc);
      if (!clip || !rest) continue;
      if (!c.motionBounds) {
        await pause();
        // Building a long clip, binding it to the bones and posing it were one task: the spider's
        // first clip 9-27, 15 and 25 ms, with what ran before them 52-65 ms. Each long step now
        // ends its task (a short one, most characters', goes on), and the posing starts within
        // the slice's budget.
        await alone(() => clip.build(clip.loop));
        if (clip.kind !== 'vertex' && c.bones.length) await alone(() => c.mixer.clipAction(clip.build(clip.loop))); // kept by the mixer
        await pause();
      }
      c.motionBounds ??= clipMotionBounds(c, clip, new THREE.Box3().set(new THREE.Vector3(...rest.min), new THREE.Vector3(...rest.max)));
      sc.motionBounds = { min: c.motionBounds.min.toArray(), max: c.motionBounds.max.toArray() };
      moved = true;
    }
    if (moved) layoutCharacters(this.scene.characters); // placed by _assemble
  }

  /**
   * Puts each scene material's texture on its three.js material (decoded once per record). Every
   * texture is asked for at once, so the decoder pool works on them side by side. An `early`
   * drawing (made while the drop decodes) asks for a texture whose bytes are still to be fetched
   * (`awaitsFetch`: a package read in parts) but does not wait for it: the drop's last assembly
   * puts it on.
   */
  async _applyTextures(pause = async () => {}, { early = false } = {}) {
    const work = [];
    for (const top of this.characters) {
      if (top.textureBoard) continue;
      for (const character of top.tree()) {
        for (const entry of character.scene.materials) {
          const material = character.materials.find((m) => m.userData.model === entry.model && m.userData.index === entry.index);
          if (material && entry.texture && material.userData.record !== entry.texture) {
            await pause(); // textures made from decoded pixels are made here, synchronously
            // Fetched and decoded from now on; put on by the last assembly.
            if (early && entry.texture.awaitsFetch?.()) textureOfRecord(entry.texture, this.decoder).catch(() => {});
            else work.push(this._applyTexture(material, entry));
          } else if (material && !entry.texture && material.userData.record) {
            // Drawn early from part of the drop with a texture the whole drop does not give it.
            clearMaterialMaps(material);
            removeTexture(material);
            material.userData.record = null;
          }
        }
      }
    }
    await Promise.all(work);
    this.viewer.setWireframe(this.viewer.wireframe);
  }

  async _applyTexture(material, entry) {
    try {
      const textureOf = async (record) => {
        await this._restorePixels(record);
        return textureOfRecord(record, this.decoder);
      };
      if (entry.maps) await applyMaterialMaps(material, { ...entry.maps, base: entry.texture }, textureOf, { blend: entry.blend });
      else assignTexture(material, await textureOf(entry.texture));
      material.userData.record = entry.texture;
    } catch (err) {
      this.scene.records.push({ kind: 'refused', files: [entry.texture.path], reason: err.message });
    }
  }

  /**
   * Lets go of the pixels of texture files no material uses (a texture dictionary of which a drop
   * uses nothing: 50 PSG dictionaries of 1.06 MB were 53 MB of the bench's 2,000-file drop, 48 % of
   * the page's memory). A file's textures share one buffer, so a file goes only when none of its
   * textures is drawn and it holds no model. The record keeps its name, size and format; its
   * pixels come back from the file (App.files) when a material or the texture viewer needs them.
   */
  _releaseUnusedPixels() {
    const kept = new Set(this.decoded.models.map((m) => m.file));
    for (const r of this.decoded.textures) if (r.texture || !r.decoded) kept.add(r.path);
    for (const r of this.decoded.textures) {
      // A texture a family decodes when used (one inside a package) is decoded again the same way.
      if (r.load) {
        if (!r.texture) r.decoded = null;
        continue;
      }
      if (kept.has(r.path) || !this.files.has(r.path)) continue;
      const { name, width, height, format, cube, mips } = r.decoded;
      r.decoded = null;
      r.released = { name, width, height, format, cube, mips: mips.length };
      r.restore = () => this._restorePixels(r);
    }
  }

  /** Gives a record whose pixels were let go its pixels again: its file decoded again (all its textures at once). */
  async _restorePixels(record) {
    if (!record.released) return;
    const path = record.path;
    this._restoring ??= new Map();
    let decoding = this._restoring.get(path);
    if (!decoding) {
      decoding = decodeFiles([this.files.get(path)], this.decoder, { drop: record.drop }).finally(() => this._restoring.delete(path));
      this._restoring.set(path, decoding);
    }
    const { textures } = await decoding;
    for (const r of this.decoded.textures.includes(record) ? this.decoded.textures : [record]) {
      const again = r.released && r.path === path && textures.find((t) => t.id === r.id);
      if (!again) continue;
      r.decoded = again.decoded;
      r.released = null;
    }
    if (!record.decoded) throw new Error(`${path}: its texture ${record.name} could not be decoded again`);
  }

  /** Assigns a texture by hand (material panel): it wins over every rule from then on. */
  async assignTextureByHand(material, recordId) {
    const { model, index } = material.userData;
    if (!model || !this.decoded.textures.some((r) => r.id === recordId)) return;
    this.manual.set(`${model.file}#${index}`, recordId);
    material.userData.record = null;
    await this._assemble();
    this.emit('textures');
  }

  /** Shows another level of detail (0 the finest, or 'all'); the clip that played goes on at its time. */
  async setLod(lod) {
    const was = this.current && { name: this.current.character.name, clip: this.current.clip.name, time: this.time };
    this.lod = lod;
    await this._assemble();
    const character = was && this.characters.find((c) => c.name === was.name);
    const clip = character?.clips.find((k) => k.name === was.clip);
    if (clip) {
      this.select(character, clip);
      this.setTime(was.time);
    }
    this.emit('loaded');
  }

  /** Shows or hides a character (outliner); isolate shows it alone, and again shows everything. */
  setVisible(character, on) {
    character.hiddenByUser = !on;
    this.viewer.place(character);
    this.emit('visibility');
  }

  isolate(character) {
    const alone = this.characters.every((c) => c === character || !c.root.visible);
    for (const c of this.characters) c.hiddenByUser = alone ? undefined : c !== character;
    for (const c of this.characters) this.viewer.place(c);
    this.emit('visibility');
  }

  /** World bounds of what is visible over the whole current clip (sampled), else as posed now. */
  clipBounds(characters = this.characters.filter((c) => c.root.visible)) {
    return this.boundsOverClip(characters, (list) => this.viewer.visibleBounds(list));
  }

  /** Frames what is visible (or `characters`) over the current clip (a preset view direction when given). */
  frameView(preset = null, { glide = false, characters } = {}) {
    // Framed where the characters are going, not where a glide has them now.
    const measure = () => this.clipBounds(characters?.filter((c) => c.root.visible));
    const box = this.viewer.whenSettled ? this.viewer.whenSettled(measure) : measure();
    if (preset) this.viewer.view(preset, box);
    else this.viewer.frameAll(box, null, { glide });
  }

  /** The scene's hero as built (core/layout.js chooseHero marks it), or null. */
  get hero() {
    return this.characters.find((c) => c.scene?.hero) ?? null;
  }

  /** What the first view of a drop frames: the hero alone when it is shown beside others, else everything shown. */
  firstLook() {
    const hero = this.hero;
    return hero?.root.visible ? [hero] : undefined;
  }

  /** The selected character: the last stepped to or chosen, else the current clip's. */
  get selected() {
    const s = this._selected;
    return s && this.characters.includes(s) ? s : (this.current?.character ?? null);
  }

  select(character, clip) {
    this._selected = character;
    super.select(character, clip);
  }

  /** Makes a character the selected one without changing the clip (a name clicked in the outliner). */
  choose(character) {
    this._selected = character;
    this.emit('clip');
  }

  /**
   * Steps the selection to the next (1) or previous (-1) shown character in outliner order, as
   * UE Viewer's PgDn/PgUp step through objects: its first clip with motion plays, and the camera
   * glides to frame it.
   */
  stepCharacter(delta) {
    const shown = this.characters.filter((c) => c.root.visible);
    if (!shown.length) return;
    const at = shown.indexOf(this.selected);
    const next = shown[at < 0 ? (delta > 0 ? 0 : shown.length - 1) : (at + delta + shown.length) % shown.length];
    const first = Playback.firstMoving(this.allClips.filter((c) => c.character === next));
    if (first) this.select(first.character, first.clip);
    else this.choose(next);
    this.frameView(null, { glide: true, characters: [next] });
  }

  /**
   * A read-only description for tests and host pages: characters with their world bounds at the
   * current frame, the clip and frame, and messages per file.
   */
  snapshot() {
    this.viewer.scene.updateMatrixWorld(true);
    this.viewer.camera.updateMatrixWorld();
    const canvas = this.viewer.renderer.domElement;
    const characters = this.characters.map((c) => {
      const box = this.viewer.visibleBounds([c]);
      const cur = this.current?.character === c ? this.current : null;
      return {
        name: c.name,
        visible: c.root.visible,
        bounds: box.isEmpty() ? null : { min: box.min.toArray(), max: box.max.toArray() },
        clip: cur?.clip.name ?? null,
        frame: cur ? cur.clip.firstFrame + this.frame : null,
        playing: !!cur && this.playing,
        screen: c.root.visible ? screenRect(box, this.viewer.camera, canvas.clientWidth, canvas.clientHeight) : null,
      };
    });
    return { demo: this.demo, selected: this.selected?.name ?? null, characters, messages: this.messages() };
  }

  /** Problems to show a person, one per file they concern: [{ file, text }]. */
  messages() {
    return (this.scene?.records ?? []).filter(isProblem).flatMap((r) => r.files.map((file) => ({ file, text: describeRecord(r) })));
  }

  clear() {
    this.viewer.clear();
    // three keeps a pool of render items per scene as long as the most objects ever drawn (2,400
    // after the bench's 2,000 files, 0.13 MB of heap): the next frame makes one for what it draws.
    this.viewer.renderer?.renderLists.dispose();
    for (const r of this.decoded.textures) r.texture?.dispose();
    this.decoded = emptyDecoded();
    this.manual.clear();
    this.lod = 0;
    this.scene = null;
    this.built = new Map();
    this.characters = [];
    this._selected = null;
    this.reports = [];
    // What the decoders hold of these files (a package kept in a worker) is let go of.
    releaseHeldInputs(this.files.values());
    this.files.clear();
    this._restoring = null;
    this.resetPlayback();
    this.demo = false;
    this._endIdleDecoders();
    this.emit('cleared');
  }

  /**
   * A decoder worker's WASM memory stays at its peak (WebAssembly memory never shrinks), so Clear
   * ends the workers that have nothing to decode; the next drop starts them again.
   */
  _endIdleDecoders() {
    const d = this.decoder;
    if (d.endIdleWorkers) d.endIdleWorkers();
    else if (d.busy === false) d.cancel(); // one DecoderClient: its worker, when it is idle
  }
}
