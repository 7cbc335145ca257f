// What one <rigscope-viewer> plays: the characters built from the scene of its files, and the
// one clip that plays (loop or once, paused or running, at which time). The names follow the
// viewer page's App (current, playing, allClips, select, setTime, frame, togglePlay), so the embed
// page's test hook reads the same.
import * as THREE from 'three';
import { decodeFiles } from '../core/fileset.js';
import { sceneObjects } from '../three/scene-objects.js';

export class Player {
  /**
   * @param {import('./stage.js').ElementStage} stage
   * @param {{ call(op: string, args: any[]): Promise<any> }} decoder
   */
  constructor(stage, decoder) {
    this.stage = stage;
    this.decoder = decoder;
    this.scene = null;
    this.characters = [];
    this.current = null;   // { character, clip, action }
    this.loop = true;
    this.listeners = new Set();
  }

  on(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  emit(what) { for (const fn of this.listeners) fn(what); }

  get allClips() {
    return this.characters.flatMap((character) => character.clips.map((clip, index) => ({ character, clip, index })));
  }

  /** Replaces what is shown by a file set; resolves to { records } (the scene's report). */
  async loadFiles(entries) {
    const decoded = await decodeFiles(entries, this.decoder);
    const { scene, characters } = await sceneObjects(decoded, this.decoder);
    this.clear();
    this.scene = scene;
    this.characters = characters;
    for (const c of characters) {
      c.root.visible = !c.scene.hidden;
      this.stage.add(c);
    }
    if (characters.length) await this.stage.prepare();
    // The first clip with some motion (a one-frame clip is usually a pose).
    const all = this.allClips;
    const first = all.find((c) => c.clip.frameCount > 2) ?? all[0];
    if (first) this.select(first.character, first.clip);
    this.stage.frameAll();
    this.emit('loaded');
    return { records: scene.records };
  }

  select(character, clip) {
    const prev = this.current;
    if (prev?.clip !== clip) this.loop = clip.loop;
    clip.select?.(this.loop);
    const action = character.mixer.clipAction(clip.build(this.loop));
    action.reset();
    action.timeScale = clip.speed ?? 1; // 0 A.D. actors: <animation speed="…"> / 100
    action.setLoop(this.loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = !this.loop;
    action.play();
    if (prev && prev.action !== action) prev.action.stop();
    action.paused = !!prev?.action.paused;
    this.current = { character, clip, action };
    character.mixer.update(0);
    this.emit('clip');
  }

  get playing() { return !!this.current && !this.current.action.paused && this.current.action.isRunning(); }

  togglePlay() {
    const a = this.current?.action;
    if (!a) return;
    if (a.paused) a.paused = false;
    else if (a.isRunning()) a.paused = true;
    // A clip that played once to its end starts again.
    if (!a.paused && !a.isRunning()) a.reset().play();
    this.emit('time');
  }

  /** Seconds into the current clip. */
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

  /** Frame number within the clip, in the file's own frames and fps. */
  get frame() {
    if (!this.current) return 0;
    const { clip } = this.current;
    return Math.min(clip.frameCount - 1, Math.floor(this.time * clip.fps + 1e-4));
  }

  clear() {
    this.stage.clear();
    this.scene = null;
    this.characters = [];
    this.current = null;
    this.emit('cleared');
  }
}
