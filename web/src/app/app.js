// Application state: everything decoded so far, the scene assembled from it, the three.js
// characters built from that scene, and which clip plays. Each drop is decoded, the scene is
// assembled again over every drop, and only characters whose make-up changed are rebuilt. A
// failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { decodeFiles } from '../core/fileset.js';
import { assembleScene } from '../core/scene.js';
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

export class App {
  constructor(viewer, decoder) {
    this.viewer = viewer;
    // The view draws while a clip plays (or a prop's idle loop runs), and otherwise only on change.
    viewer.isAnimating = () => this.playing || this.characters.some((c) => c.props.some((p) => p.clips.length));
    this.decoder = decoder;
    this.decoded = emptyDecoded();
    this.drops = 0;
    this.manual = new Map();  // `${model file}#${material index}` -> texture record id
    this.scene = null;
    this.characters = [];     // built from this.scene, in its order (texture boards last)
    this.built = new Map();   // signature -> Character
    this.reports = [];        // one per drop: { files, records }
    this.current = null;      // { character, clip, action }
    this.loop = true;
    this.demo = false;
    this.listeners = new Set();
    this.lastDecodeMs = 0;
  }

  on(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  emit(what) { for (const fn of this.listeners) fn(what); }

  get allClips() {
    return this.characters.flatMap((character) => character.clips.map((clip, index) => ({ character, clip, index })));
  }

  /** Every decoded texture record, for the manual assignment list. */
  get textures() { return this.decoded.textures; }

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
    const added = await this._assemble();
    performance.mark('rigscope:built');
    const files = new Set(entries.map((e) => e.path));
    const report = { files: [...files], records: this.scene.records.filter((r) => r.files.some((f) => files.has(f))) };
    this.reports.push(report);
    this.loads = (this.loads ?? 0) + 1; // drops done, across clears (tests and host pages wait on it)
    performance.mark('rigscope:framed');
    if (!this.current || !this.characters.includes(this.current.character) || added.length) {
      const pool = this.allClips.filter((c) => added.includes(c.character));
      const pick = (list) => list.find((c) => c.clip.frameCount > 2) ?? list[0];
      const first = pick(pool) ?? pick(this.allClips);
      if (first && (!this.current || !this.characters.includes(this.current.character) || !this.current.action?.isRunning())) this.select(first.character, first.clip);
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
    this.scene = await assembleScene(this.decoded, { manual: this.manual });
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
    if (added.length) await this.viewer.prepare?.();
    await this._applyTextures();
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
      if (c.motionBounds) { sc.motionBounds = c.motionBounds; moved = true; continue; }
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

  /** Puts each scene material's texture on its three.js material (decoded once per record). */
  async _applyTextures() {
    for (const top of this.characters) {
      if (top.textureBoard) continue;
      for (const character of top.tree()) {
        for (const entry of character.scene.materials) {
          const material = character.materials.find((m) => m.userData.model === entry.model && m.userData.index === entry.index);
          if (!material || !entry.texture || material.userData.record === entry.texture) continue;
          try {
            const textureOf = (record) => textureOfRecord(record, this.decoder);
            if (entry.maps) await applyMaterialMaps(material, { ...entry.maps, base: entry.texture }, textureOf, { blend: entry.blend });
            else assignTexture(material, await textureOf(entry.texture));
            material.userData.record = entry.texture;
          } catch (err) {
            this.scene.records.push({ kind: 'refused', files: [entry.texture.path], reason: err.message });
          }
        }
      }
    }
    this.viewer.setWireframe(this.viewer.wireframe);
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
        name: c.name, visible: c.root.visible,
        bounds: box.isEmpty() ? null : { min: box.min.toArray(), max: box.max.toArray() },
        clip: cur?.clip.name ?? null, frame: cur ? cur.clip.firstFrame + this.frame : null, playing: !!cur && this.playing,
      };
    });
    return { demo: this.demo, characters, messages: this.messages() };
  }

  /** Problems to show a person, one per file they concern: [{ file, text }]. */
  messages() {
    return (this.scene?.records ?? []).filter(isProblem).flatMap((r) => r.files.map((file) => ({ file, text: describeRecord(r) })));
  }

  select(character, clip) {
    const prev = this.current;
    if (prev?.clip !== clip) this.loop = clip.loop;
    clip.select?.(this.loop);
    const action = character.mixer.clipAction(clip.build(this.loop));
    action.reset();
    action.timeScale = clip.speed ?? 1; // 0 A.D. actors: <animation speed="…"> / 100
    this._applyLoop(action);
    action.play();
    if (prev && prev.character === character && prev.action !== action && prev.clip.kind === 'skeletal' && clip.kind === 'skeletal') {
      prev.action.crossFadeTo(action, 0.25, false);
    } else if (prev && prev.action !== action) {
      prev.action.stop();
    }
    this.current = { character, clip, action };
    this.viewer.requestRender?.();
    this.emit('clip');
  }

  _applyLoop(action) {
    action.setLoop(this.loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = !this.loop;
  }

  /** Loop or play once: a clip is built per mode (a loop has a wrap key), so the action is swapped. */
  setLoop(on) {
    this.loop = on;
    const cur = this.current;
    if (!cur) return;
    const { character, clip, action } = cur;
    const time = action.time, paused = action.paused;
    clip.select?.(on);
    const next = character.mixer.clipAction(clip.build(on));
    if (next !== action) action.stop();
    next.reset();
    next.timeScale = clip.speed ?? 1;
    this._applyLoop(next);
    next.play();
    this.current = { character, clip, action: next };
    this.setTime(time);
    next.paused = paused;
    this.emit('clip');
  }

  /** A clip is playing (a clip of one frame never is: nothing would change). */
  get playing() { return !!this.current && this.current.clip.frameCount > 1 && !this.current.action.paused && this.current.action.isRunning(); }

  togglePlay() {
    if (!this.current) return;
    const a = this.current.action;
    if (!a.isRunning() && !a.paused) a.reset().play();
    else {
      a.paused = !a.paused;
      if (!a.paused && !a.isRunning()) a.reset().play();
    }
    this.viewer.requestRender?.();
    this.emit('time');
  }

  /** The current clip's time, in seconds within the clip. */
  get time() { return this.current ? this.current.action.time : 0; }

  setTime(t) {
    if (!this.current) return;
    const { clip, action, character } = this.current;
    // At t = duration a looping action shows frame 0 again: stay just short of the end.
    const limit = this.loop ? clip.duration - 1e-6 : clip.lastTime;
    action.time = Math.min(Math.max(t, 0), Math.max(0, limit));
    action.enabled = true;
    character.mixer.update(0);
    this.viewer.requestRender?.();
    this.emit('time');
  }

  /** Frame number in the file's own frames and fps. */
  get frame() {
    if (!this.current) return 0;
    const { clip } = this.current;
    return Math.min(clip.frameCount - 1, Math.floor(this.time * clip.fps + 1e-4));
  }

  step(delta) {
    if (!this.current) return;
    const { clip, action } = this.current;
    action.paused = true;
    const n = clip.frameCount;
    let f = this.frame + delta;
    f = this.loop ? ((f % n) + n) % n : Math.min(Math.max(f, 0), n - 1);
    this.setTime(f / clip.fps);
  }

  clear() {
    this.viewer.clear();
    for (const r of this.decoded.textures) r.texture?.dispose();
    this.decoded = emptyDecoded();
    this.manual.clear();
    this.scene = null;
    this.built = new Map();
    this.characters = [];
    this.reports = [];
    this.current = null;
    this.demo = false;
    this.emit('cleared');
  }
}
