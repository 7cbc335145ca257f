// Application state: everything decoded so far, the scene assembled from it, the three.js
// characters built from that scene, and which clip plays. Each drop is decoded, the scene is
// assembled again over every drop, and only characters whose make-up changed are rebuilt. A
// failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { Playback } from '../three/playback.js';
import { assembleScene, decodeFiles } from '../families/index.js';
import { layoutCharacters } from '../core/layout.js';
import { characterBox } from '../three/bounds.js';
import { Character } from '../three/character.js';
import { assignTexture, textureOfRecord } from '../three/textures.js';
import { buildTextureBoard } from '../three/board.js';
import { applyMaterialMaps } from '../three/material-maps.js';
import { describeRecord, isProblem } from '../core/report.js';

/** What makes a character: rebuilt only when this changes. */
function signature(sc) {
  const props = sc.props.map((p) => `${p.point}:${signature(p.character)}`).join(',');
  return `${sc.id}|${sc.models.map((m) => m.file).join(',')}|${sc.clips.map((c) => `${c.file}:${c.name}`).join(',')}|${props}`;
}

const emptyDecoded = () => ({ models: [], animations: [], textures: [], texts: [], records: [] });

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
    const set = await decodeFiles(entries, this.decoder, { onProgress, drop, isCancelled });
    this.lastDecodeMs = performance.now() - started;
    performance.mark('rigscope:decoded');
    // The demo gives way to the first drop that brings anything to show; a drop of only broken
    // files leaves it (and any scene) as it was.
    const brings = set.models.length + set.animations.length + set.textures.length > 0;
    if (replace || (this.demo && !demo && brings)) this.clear();
    this.demo = demo || (this.demo && !brings);
    for (const k of Object.keys(this.decoded)) this.decoded[k].push(...set[k]);
    for (const e of entries) this.files.set(e.path, e);
    const added = await this._assemble();
    performance.mark('rigscope:built');
    const files = new Set(entries.map((e) => e.path));
    const report = { files: [...files], records: this.scene.records.filter((r) => r.files.some((f) => files.has(f))) };
    this.reports.push(report);
    this.loads = (this.loads ?? 0) + 1; // drops done, across clears (tests and host pages wait on it)
    performance.mark('rigscope:framed');
    if (!this.current || !this.characters.includes(this.current.character) || added.length) {
      const pool = this.allClips.filter((c) => added.includes(c.character));
      const first = Playback.firstMoving(pool) ?? Playback.firstMoving(this.allClips);
      if (first && (!this.current || !this.characters.includes(this.current.character) || !this.current.action?.isRunning()))
        this.select(first.character, first.clip);
      else if (!first) this.current = null;
    }
    // Framed over the whole current clip, so a character that walks away stays in view.
    if (added.length) this.frameView();
    performance.mark('rigscope:selected');
    this.emit('loaded');
    performance.mark('rigscope:panels');
    return report;
  }

  /** Assembles the scene over everything decoded and brings the three.js side in line with it. */
  async _assemble() {
    this.scene = await assembleScene(this.decoded, { manual: this.manual, lod: this.lod });
    const next = new Map();
    const added = [];
    for (const sc of this.scene.characters) {
      const sig = signature(sc);
      let character = this.built.get(sig);
      if (!character) {
        character = new Character(sc);
        this.viewer.add(character);
        added.push(character);
      }
      character.scene = sc;
      this.viewer.place?.(character);
      next.set(sig, character);
    }
    for (const b of this.scene.boards) {
      let board = this.built.get(b.id);
      if (!board) {
        board = await buildTextureBoard(b.textures, this.scene.records, this.decoder);
        if (!board) continue;
        this.viewer.add(board);
        added.push(board);
      }
      next.set(b.id, board);
    }
    for (const [sig, character] of this.built) if (!next.has(sig)) this.viewer.remove(character);
    this.built = next;
    this.characters = [...next.values()];
    this._layoutInMotion();
    await this._applyTextures();
    // Shaders are compiled once the materials have their textures (a map changes the program),
    // off the main thread where the browser can, and once per kind of material (three's cache).
    if (added.length) await this.viewer.prepare?.();
    return added;
  }

  /**
   * Lays the characters out again with the room their first clip needs (a leap, a walk), measured
   * by posing them: the scene's own layout only knows the bind pose.
   */
  _layoutInMotion() {
    if (!this.viewer.visibleBounds || this.scene.characters.length < 2) return;
    let moved = false;
    for (const c of this.characters) {
      const sc = c.scene;
      const clip = c.clips.find((k) => k.frameCount > 2);
      if (!sc || !clip) continue;
      if (c.motionBounds) {
        sc.motionBounds = c.motionBounds;
        moved = true;
        continue;
      }
      const action = c.mixer.clipAction(clip.build(clip.loop));
      action.play();
      c.root.updateMatrixWorld(true);
      const inverse = c.root.matrixWorld.clone().invert();
      const box = new THREE.Box3();
      for (let k = 0; k < 8; k++) {
        action.time = (k / 7) * clip.lastTime;
        c.mixer.update(0);
        c.update();
        c.root.updateMatrixWorld(true);
        box.union(characterBox(c, inverse));
      }
      action.stop();
      c.mixer.update(0);
      if (box.isEmpty()) continue;
      sc.motionBounds = c.motionBounds = { min: box.min.toArray(), max: box.max.toArray() };
      moved = true;
    }
    if (!moved) return;
    layoutCharacters(this.scene.characters);
    for (const c of this.characters) this.viewer.place(c);
  }

  /**
   * Puts each scene material's texture on its three.js material (decoded once per record). Every
   * texture is asked for at once, so the decoder pool works on them side by side.
   */
  async _applyTextures() {
    const work = [];
    for (const top of this.characters) {
      if (top.textureBoard) continue;
      for (const character of top.tree()) {
        for (const entry of character.scene.materials) {
          const material = character.materials.find((m) => m.userData.model === entry.model && m.userData.index === entry.index);
          if (material && entry.texture && material.userData.record !== entry.texture) work.push(this._applyTexture(material, entry));
        }
      }
    }
    await Promise.all(work);
    this.viewer.setWireframe(this.viewer.wireframe);
  }

  async _applyTexture(material, entry) {
    try {
      const textureOf = (record) => textureOfRecord(record, this.decoder);
      if (entry.maps) await applyMaterialMaps(material, { ...entry.maps, base: entry.texture }, textureOf, { blend: entry.blend });
      else assignTexture(material, await textureOf(entry.texture));
      material.userData.record = entry.texture;
    } catch (err) {
      this.scene.records.push({ kind: 'refused', files: [entry.texture.path], reason: err.message });
    }
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
    const box = this.viewer.visibleBounds(characters);
    const cur = this.current;
    if (!cur || !characters.includes(cur.character) || cur.clip.frameCount < 2) return box;
    const { action, character } = cur;
    const time = action.time;
    const samples = Math.min(12, cur.clip.frameCount);
    for (let k = 0; k < samples; k++) {
      action.time = (k / (samples - 1)) * cur.clip.lastTime;
      character.mixer.update(0);
      character.update();
      box.union(this.viewer.visibleBounds([character]));
    }
    action.time = time;
    character.mixer.update(0);
    character.update();
    return box;
  }

  /** Frames what is visible over the current clip (a preset view direction when given). */
  frameView(preset = null) {
    const box = this.clipBounds();
    if (preset) this.viewer.view(preset, box);
    else this.viewer.frameAll(box);
  }

  /**
   * A read-only description for tests and host pages: characters with their world bounds at the
   * current frame, the clip and frame, and messages per file.
   */
  snapshot() {
    this.viewer.scene.updateMatrixWorld(true);
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
      };
    });
    return { demo: this.demo, characters, messages: this.messages() };
  }

  /** Problems to show a person, one per file they concern: [{ file, text }]. */
  messages() {
    return (this.scene?.records ?? []).filter(isProblem).flatMap((r) => r.files.map((file) => ({ file, text: describeRecord(r) })));
  }

  clear() {
    this.viewer.clear();
    for (const r of this.decoded.textures) r.texture?.dispose();
    this.decoded = emptyDecoded();
    this.manual.clear();
    this.lod = 0;
    this.scene = null;
    this.built = new Map();
    this.characters = [];
    this.reports = [];
    this.files.clear();
    this.resetPlayback();
    this.demo = false;
    this.emit('cleared');
  }
}
