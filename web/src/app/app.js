// Application state: what is loaded, which clip plays, and how new files join the scene.
// Adding files adds to the scene; a failing file is reported and never removes what is loaded.
import * as THREE from 'three';
import { loadFileSet } from '../core/fileset.js';
import { Character } from '../three/character.js';
import { assignTexture, findTexture, textureFromDecoded, textureFromEntry } from '../three/textures.js';

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
    const report = { files: entries.map((e) => e.path), ...set.report };

    for (const t of set.textures) this.textures.set(t.guid ?? t.key, t);
    const added = [];
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
    this.animations.push(...set.animations);
    this._bindAnimations(report);
    await this._applyTextures(report);
    this.reports.push(report);
    if (added.length) this.viewer.frameAll();
    if (!this.current || added.length) {
      const first = this.allClips.find((c) => added.includes(c.character)) ?? this.allClips[0];
      if (first && (!this.current || !this.current.action?.isRunning())) this.select(first.character, first.clip);
    }
    this.emit('loaded');
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
    for (const character of this.characters) {
      for (const material of character.materials) {
        if (material.map) continue;
        const record = findTexture(material.userData.source ?? {}, this.textures);
        if (!record) continue;
        try {
          record.texture ??= record.decoded ? textureFromDecoded(record.decoded) : await textureFromEntry(record.entry);
          assignTexture(material, record.texture);
          report.pairs.push(`${record.file} → material ${material.name} of ${character.name}`);
        } catch (err) {
          report.refused.push({ file: record.file, reason: err.message });
        }
      }
    }
  }

  /** Assigns a texture by hand (material panel) when nothing matched. */
  async assignTextureByHand(material, key) {
    const record = this.textures.get(key);
    if (!record) return;
    record.texture ??= record.decoded ? textureFromDecoded(record.decoded) : await textureFromEntry(record.entry);
    assignTexture(material, record.texture);
    this.emit('textures');
  }

  select(character, clip) {
    const prev = this.current;
    clip.select?.(this.loop);
    const action = character.mixer.clipAction(clip.build());
    action.reset();
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
