// Application state: what is loaded, which clip plays, and how new files join the scene.
// Adding files adds to the scene; a failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { loadFileSet } from '../core/fileset.js';
import { Character } from '../three/character.js';
import { assignTexture, findTexture, textureOfRecord } from '../three/textures.js';
import { textureKey } from '../core/files.js';
import { assembleActors } from './actors.js';

export class App {
  constructor(viewer, decoder) {
    this.viewer = viewer;
    this.decoder = decoder;
    this.characters = [];
    this.animations = [];      // decoded animations not yet bound (no character yet)
    this.textures = new Map(); // key -> { name, file, texture? , record }
    this.reports = [];         // one per loadFiles call: { files, pairs, missing, refused, notes }
    this.current = null;       // { character, clip, action }
    this.loop = true;
    this.listeners = new Set();
    this.lastDecodeMs = 0;
  }

  on(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  emit(what) { for (const fn of this.listeners) fn(what); }

  get allClips() {
    return this.characters.flatMap((character) => character.clips.map((clip, index) => ({ character, clip, index })));
  }

  /** Decodes and adds a set of files. Resolves to the file-set report. */
  async loadFiles(entries, { onProgress } = {}) {
    const started = performance.now();
    const set = await loadFileSet(entries, this.decoder, { onProgress });
    this.lastDecodeMs = performance.now() - started;
    performance.mark('rigscope:decoded');
    const report = { files: entries.map((e) => e.path), ...set.report };

    for (const t of set.textures) this.textures.set(t.guid ?? t.key, t);
    const added = await assembleActors(this, set, report);
    for (const model of set.models) {
      const host = this.characters.find((c) => c.canShare(model));
      if (host) {
        host.addPart(model);
        report.pairs.push(`${model.file} → shares the skeleton of ${host.name}`);
        this.viewer.setWireframe(this.viewer.wireframe);
        continue;
      }
      const character = new Character(model);
      this.characters.push(character);
      this.viewer.add(character);
      added.push(character);
    }
    performance.mark('rigscope:built');
    await this.viewer.prepare?.();
    this.animations.push(...set.animations);
    this._bindAnimations(report);
    await this._applyTextures(report);
    this.reports.push(report);
    if (added.length) this.viewer.frameAll();
    performance.mark('rigscope:framed');
    if (!this.current || added.length) {
      const first = this.allClips.find((c) => added.includes(c.character)) ?? this.allClips[0];
      if (first && (!this.current || !this.current.action?.isRunning())) this.select(first.character, first.clip);
    }
    performance.mark('rigscope:selected');
    this.emit('loaded');
    performance.mark('rigscope:panels');
    return report;
  }

  _bindAnimations(report) {
    const pending = [];
    for (const anim of this.animations) {
      const targets = this.characters.filter((c) => c.bones.length > 0 && (anim.format === 'pssa') === (c.models[0].format === 'pmd'));
      if (targets.length === 0) {
        pending.push(anim);
        report.missing.push(`${anim.file}: no ${anim.format === 'pssa' ? '.pmd model' : 'skinned mesh'} to play it on yet (drop the mesh too)`);
        continue;
      }
      let bound = false;
      for (const character of targets) {
        const r = character.addAnimation(anim);
        if (r.error) {
          report.refused.push({ file: anim.file, reason: r.error });
        } else {
          bound = true;
          report.pairs.push(`${anim.file} → ${character.name} (${r.matched}/${r.total} bones${r.byIndex ? ', by index' : ''})`);
        }
      }
      if (!bound) report.notes.push(`${anim.file}: matched no loaded mesh`);
    }
    this.animations = pending;
  }

  async _applyTextures(report) {
    // What arrived with this call: the file-order fallback pairs a mesh only with textures dropped with it.
    this._settled ??= new WeakSet();
    const fresh = [...this.textures.values()].filter((r) => !this._settled.has(r));
    const freshCharacters = this.characters.filter((c) => !this._settled.has(c));
    const apply = async (character, material, record, how = '') => {
      try {
        assignTexture(material, await textureOfRecord(record));
        report.pairs.push(`${record.file} → material ${material.name} of ${character.name}${how}`);
      } catch (err) {
        report.refused.push({ file: record.file, reason: err.message });
      }
    };
    for (const character of this.characters) {
      for (const material of character.materials) {
        if (material.map) continue;
        const record = findTexture(material.userData.source ?? {}, this.textures);
        if (record) await apply(character, material, record);
      }
    }
    // UE1 meshes with no script naming their textures: texture number N gets the N-th texture file
    // (counting from the mesh's first number) in sorted file-name order, among the files dropped with
    // it whose names start with the mesh's name, else among all of them when it came alone.
    const lower = (r) => r.file.toLowerCase();
    const files = fresh.filter((r) => !r.guid).sort((a, b) => (lower(a) < lower(b) ? -1 : lower(a) > lower(b) ? 1 : 0));
    const unscripted = freshCharacters.filter((c) => c.models[0].format === 'ue1' && c.materials.every((m) => !m.userData.source?.textureNames?.length));
    for (const character of unscripted) {
      const slots = character.materials.map((m) => Number(/^tex(\d+)_/.exec(m.name)?.[1] ?? -1));
      const first = Math.min(...slots.filter((n) => n >= 0));
      const base = character.name.replace(/_d\.3d$/i, '').toLowerCase();
      const named = files.filter((r) => textureKey(r.file).startsWith(base));
      const pool = named.length ? named : unscripted.length === 1 ? files : [];
      for (const [i, material] of character.materials.entries()) {
        const record = slots[i] >= 0 && !material.map ? pool[slots[i] - first] : null;
        if (record) await apply(character, material, record, ' (by file-name order: no script names it)');
      }
    }
    if (fresh.length && this.characters.every((c) => c.textureBoard)) await this._showTextureBoard(fresh, report);
    for (const x of [...fresh, ...this.characters]) this._settled.add(x);
  }

  /** A set of textures alone (texture arenas, PCX, images): one textured quad per texture, in a row, named. */
  async _showTextureBoard(records, report) {
    const loaded = [];
    for (const record of records) {
      try {
        await textureOfRecord(record);
        loaded.push(record);
      } catch (err) {
        report.refused.push({ file: record.file, reason: err.message });
      }
    }
    if (!loaded.length) return;
    const n = loaded.length;
    const positions = new Float32Array(n * 12), normals = new Float32Array(n * 12), uv = new Float32Array(n * 8);
    const indices = new Uint32Array(n * 6);
    const groups = [], materials = [], attachments = [], info = {};
    let x = this._boardX ?? 0;
    loaded.forEach((record, i) => {
      // Each texture fits a 1 × 1 square, keeping its aspect; bottom edges on y = 0.
      const { width = 1, height = 1 } = record.texture.image ?? {};
      const w = width >= height ? 1 : width / height, h = width >= height ? height / width : 1;
      positions.set([x, 0, 0, x + w, 0, 0, x + w, h, 0, x, h, 0], i * 12);
      for (let k = 0; k < 4; k++) normals[i * 12 + k * 3 + 2] = 1;
      uv.set([0, 0, 1, 0, 1, 1, 0, 1], i * 8);
      indices.set([0, 1, 2, 0, 2, 3].map((k) => i * 4 + k), i * 6);
      groups.push({ start: i * 6, count: 6, material: i });
      materials.push({ name: record.name, textureNames: [], blend: 'opaque', twoSided: true, unlit: true });
      attachments.push({ name: record.name, bone: -1, translation: [x + w / 2, -0.08, 0], rotation: [0, 0, 0, 1] });
      const d = record.decoded;
      info[record.name] = `${width}×${height}${d ? ` ${d.format}, ${d.mips.length} mip${d.mips.length === 1 ? '' : 's'}` : ''}${record.guid ? `, GUID ${record.guid}` : ''}`;
      x += w + 0.25;
    });
    this._boardX = x;
    const files = [...new Set(loaded.map((r) => r.file))];
    const board = new Character({
      file: files.join(', '), name: files.join(', '), format: 'textures', warnings: [], counts: { textures: n }, info,
      meshes: [{ name: 'textures', positions, normals, uvs: [uv], indices, groups }], materials, attachments,
    });
    board.textureBoard = true;
    board.materials.forEach((m, i) => assignTexture(m, loaded[i].texture));
    this.characters.push(board);
    this.viewer.add(board);
    // The names are labels; the axes markers of attachment points mean nothing here.
    for (const a of board.attachments) for (const o of [...a.node.children]) if (o.type === 'AxesHelper') o.removeFromParent();
    this.viewer.frameAll();
    report.notes.push(`only textures: ${n} shown side by side`);
  }

  /** Assigns a texture by hand (material panel) when nothing matched. */
  async assignTextureByHand(material, key) {
    const record = this.textures.get(key);
    if (!record) return;
    assignTexture(material, await textureOfRecord(record));
    this.emit('textures');
  }

  select(character, clip) {
    const prev = this.current;
    clip.select?.(this.loop);
    const action = character.mixer.clipAction(clip.build());
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

  setLoop(on) {
    this.loop = on;
    if (this.current) {
      this.current.clip.select?.(on);
      this._applyLoop(this.current.action);
    }
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
    const limit = clip.kind === 'vertex' || !this.loop ? clip.duration : clip.duration - 1e-6;
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
    for (const r of this.textures.values()) r.texture?.dispose();
    this.characters = [];
    this.animations = [];
    this.textures.clear();
    this.reports = [];
    this.current = null;
    this.emit('cleared');
  }
}
