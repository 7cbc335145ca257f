// Application state: everything decoded so far, the scene assembled from it, the three.js
// characters built from that scene, and which clip plays. Each drop is decoded, the scene is
// assembled again over every drop, and only characters whose make-up changed are rebuilt. A
// failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { decodeFiles } from '../core/fileset.js';
import { assembleScene } from '../core/scene.js';
import { Character } from '../three/character.js';
import { assignTexture, textureOfRecord } from '../three/textures.js';
import { buildTextureBoard } from '../three/board.js';

/** What makes a character: rebuilt only when this changes. */
function signature(sc) {
  const props = sc.props.map((p) => `${p.point}:${signature(p.character)}`).join(',');
  return `${sc.id}|${sc.models.map((m) => m.file).join(',')}|${sc.clips.map((c) => `${c.file}:${c.name}`).join(',')}|${props}`;
}

const emptyDecoded = () => ({ models: [], animations: [], textures: [], texts: [], records: [] });

export class App {
  constructor(viewer, decoder) {
    this.viewer = viewer;
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
    if (replace || (this.demo && !demo)) this.clear();
    this.demo = demo;
    const started = performance.now();
    const drop = ++this.drops;
    const set = await decodeFiles(entries, this.decoder, { onProgress, drop, isCancelled });
    this.lastDecodeMs = performance.now() - started;
    performance.mark('rigscope:decoded');
    for (const k of Object.keys(this.decoded)) this.decoded[k].push(...set[k]);
    const added = await this._assemble();
    performance.mark('rigscope:built');
    const files = new Set(entries.map((e) => e.path));
    const report = { files: [...files], records: this.scene.records.filter((r) => r.files.some((f) => files.has(f))) };
    this.reports.push(report);
    if (added.length) this.viewer.frameAll();
    performance.mark('rigscope:framed');
    if (!this.current || !this.characters.includes(this.current.character) || added.length) {
      const pool = this.allClips.filter((c) => added.includes(c.character));
      const pick = (list) => list.find((c) => c.clip.frameCount > 2) ?? list[0];
      const first = pick(pool) ?? pick(this.allClips);
      if (first && (!this.current || !this.characters.includes(this.current.character) || !this.current.action?.isRunning())) this.select(first.character, first.clip);
      else if (!first) this.current = null;
    }
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
    if (added.length) await this.viewer.prepare?.();
    await this._applyTextures();
    return added;
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
            assignTexture(material, await textureOfRecord(entry.texture, this.decoder));
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

  get playing() { return !!this.current && !this.current.action.paused && this.current.action.isRunning(); }

  togglePlay() {
    if (!this.current) return;
    const a = this.current.action;
    if (!a.isRunning() && !a.paused) { a.reset().play(); return this.emit('time'); }
    a.paused = !a.paused;
    if (!a.paused && !a.isRunning()) a.reset().play();
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
