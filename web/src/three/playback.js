// The one playback model: which clip plays on which character, loop or once, a loop range,
// crossfades, speed, the time and frame in the file's own numbering, and the clip's notify
// markers. The viewer page's App and the element's Player both extend it; nothing else keeps
// playback state. The render loop advances the mixers by `dt × speed` and calls `tick()`.
import * as THREE from 'three';

/** Seconds a skeletal clip blends into the next one on the same character. */
export const CROSSFADE_SECONDS = 0.25;

export class Playback {
  constructor() {
    /** @type {any[]} what can play: objects with `clips`, `mixer`, `update()` (three/character.js) */
    this.characters = [];
    /** @type {{ character: any, clip: any, action: THREE.AnimationAction } | null} */
    this.current = null;
    this.loop = true;
    this._speed = 1;
    /** Loop range in the file's own frame numbers ({ from, to }, either may be null), or null. */
    this.range = null;
    /** Whether choosing another clip keeps a paused player paused (the element) or plays it (the page). */
    this.keepPausedOnSelect = false;
    this.listeners = new Set();
  }

  /**
   * Listens to one named signal (`on('clip', fn)`: fn(detail)) or to all of them (`on(fn)`:
   * fn(name, detail)). Signals: 'clip' (another clip or loop mode), 'time' (time or play state),
   * 'range' (loop range), 'speed'; App adds 'loaded', 'cleared', 'visibility', 'textures' and 'tick' (a
   * drawn frame, detail dt). Returns a function that stops listening.
   */
  on(name, fn) {
    const entry = typeof name === 'function' ? { fn: name } : { name, fn };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  emit(what, detail) {
    for (const l of this.listeners) {
      if (!l.name) l.fn(what, detail);
      else if (l.name === what) l.fn(detail);
    }
  }

  /** Playback speed, a multiplier of every clip's own rate (signal 'speed'). */
  get speed() {
    return this._speed;
  }
  set speed(v) {
    this._speed = v;
    this.emit('speed', v);
  }

  /** Asks whoever draws for a frame; the page's and the element's stages set this. */
  requestRender() {}

  get allClips() {
    return this.characters.flatMap((character) => character.clips.map((clip, index) => ({ character, clip, index })));
  }

  /** The clip to start with among `list`: the first with some motion (one or two frames are usually a pose). */
  static firstMoving(list) {
    return list.find((c) => c.clip.frameCount > 2) ?? list[0];
  }

  /** Plays `clip` on `character`; a skeletal clip on the same character crossfades from the last. */
  select(character, clip) {
    const prev = this.current;
    if (prev?.clip !== clip) {
      this.loop = clip.loop;
      this.range = null;
    }
    const action = this._actionFor(character, clip);
    if (prev && prev.character === character && prev.action !== action && prev.clip.kind === 'skeletal' && clip.kind === 'skeletal') {
      prev.action.crossFadeTo(action, CROSSFADE_SECONDS, false);
    } else if (prev && prev.action !== action) {
      prev.action.stop();
    }
    action.paused = this.keepPausedOnSelect && !!prev?.action.paused;
    this.current = { character, clip, action };
    character.mixer.update(0);
    this.requestRender();
    this.emit('clip');
  }

  // A clip is built per mode (a loop has a wrap key), so its action depends on the loop flag.
  _actionFor(character, clip) {
    clip.select?.(this.loop);
    const action = character.mixer.clipAction(clip.build(this.loop));
    action.reset();
    action.timeScale = clip.speed ?? 1; // 0 A.D. actors: <animation speed="…"> / 100
    action.setLoop(this.loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = !this.loop;
    action.play();
    return action;
  }

  /** Loop or play once, keeping the time and the paused state. */
  setLoop(on) {
    this.loop = on;
    const cur = this.current;
    if (!cur) return;
    const { character, clip, action } = cur;
    const time = action.time,
      paused = action.paused;
    const next = this._actionFor(character, clip);
    if (next !== action) action.stop();
    this.current = { character, clip, action: next };
    this.setTime(time);
    next.paused = paused;
    this.emit('clip');
  }

  /** A loop range in file frame numbers (null or '' ends are the clip's own); null clears it. */
  setRange(from, to) {
    const none = (v) => v === null || v === undefined || v === '';
    this.range = none(from) && none(to) ? null : { from: none(from) ? null : Number(from), to: none(to) ? null : Number(to) };
    this.emit('range');
  }

  /** The loop range as clip times [a, b] in seconds, or null when none applies. */
  rangeTimes() {
    const cur = this.current;
    if (!cur || !this.range) return null;
    const { firstFrame = 0, frameCount, fps } = cur.clip;
    const a = Math.max(0, (this.range.from ?? firstFrame) - firstFrame) / fps;
    const b = Math.min(frameCount - 1, (this.range.to ?? firstFrame + frameCount - 1) - firstFrame) / fps;
    return b > a ? [a, b] : null;
  }

  /** Called by the render loop after the mixers advanced: keeps a looping clip inside its range. */
  tick() {
    const cur = this.current;
    const span = this.loop && cur && !cur.action.paused ? this.rangeTimes() : null;
    if (span && (cur.action.time > span[1] || cur.action.time < span[0])) this.setTime(span[0]);
  }

  /** A clip is playing (a clip of one frame never is: nothing would change). */
  get playing() {
    const cur = this.current;
    return !!cur && cur.clip.frameCount > 1 && !cur.action.paused && cur.action.isRunning();
  }

  togglePlay() {
    if (!this.current) return;
    const a = this.current.action;
    if (!a.isRunning() && !a.paused) a.reset().play();
    else {
      a.paused = !a.paused;
      // A clip that played once to its end starts again.
      if (!a.paused && !a.isRunning()) a.reset().play();
    }
    this.requestRender();
    this.emit('time');
  }

  play() {
    if (this.current && !this.playing) this.togglePlay();
  }
  pause() {
    if (this.current && this.playing) this.togglePlay();
    else if (this.current) this.current.action.paused = true;
  }

  /** The current clip's time, in seconds within the clip. */
  get time() {
    return this.current ? this.current.action.time : 0;
  }

  setTime(t) {
    if (!this.current) return;
    const { clip, action, character } = this.current;
    // At t = duration a looping action shows frame 0 again: stay just short of the end.
    const limit = this.loop ? clip.duration - 1e-6 : clip.lastTime;
    action.time = Math.min(Math.max(t, 0), Math.max(0, limit));
    action.enabled = true;
    character.mixer.update(0);
    this.requestRender();
    this.emit('time');
  }

  /** Frame number within the clip (0-based), at the clip's own rate. */
  get frame() {
    if (!this.current) return 0;
    const { clip } = this.current;
    return Math.min(clip.frameCount - 1, Math.floor(this.time * clip.fps + 1e-4));
  }

  /** Frame number as the file counts it (UE1 sequences start where they start in the file). */
  get fileFrame() {
    return this.current ? (this.current.clip.firstFrame ?? 0) + this.frame : 0;
  }

  /** Pauses on a frame given in the file's own numbering, clamped to the clip. */
  goToFileFrame(n) {
    const cur = this.current;
    if (!cur || !Number.isFinite(n)) return;
    const f = Math.min(Math.max(Math.round(n) - (cur.clip.firstFrame ?? 0), 0), cur.clip.frameCount - 1);
    this.pauseAt(f / cur.clip.fps);
  }

  /**
   * Pauses on `t` seconds into the current clip, shown alone: a time or frame chosen (scrubbed,
   * stepped, gone to, asked of a still picture) is that clip's, never a blend with the clip it
   * fades from.
   */
  pauseAt(t) {
    if (!this.current) return;
    this.current.action.paused = true;
    this.endFade();
    this.setTime(t);
  }

  /**
   * Ends a crossfade under way, so the current clip shows alone (a slow machine's few frames
   * would leave it half done where a frame is chosen, recorded or shared).
   */
  endFade() {
    const cur = this.current;
    if (!cur) return;
    const paused = cur.action.paused;
    cur.action.paused = true;
    cur.character.mixer.update(CROSSFADE_SECONDS);
    cur.action.paused = paused;
  }

  /** Pauses and moves `delta` frames, wrapping when the clip loops. */
  step(delta) {
    if (!this.current) return;
    const { clip } = this.current;
    const n = clip.frameCount;
    let f = this.frame + delta;
    f = this.loop ? ((f % n) + n) % n : Math.min(Math.max(f, 0), n - 1);
    this.pauseAt(f / clip.fps);
  }

  /** The current clip's notify markers: [{ time, name }] (UE1 `#exec MESH NOTIFY`). */
  get notifies() {
    return this.current?.clip.notifies ?? [];
  }

  /**
   * Bounds of `characters` over the whole current clip: `posed(list)` (their world bounds as posed
   * now) united with the current character's at 12 times spread over its clip, so framing them
   * keeps a character that walks away in view. The clip is put back at its time. The page's and
   * the element's framing both measure this way.
   * @param {any[]} characters
   * @param {(list: any[]) => THREE.Box3} posed
   */
  boundsOverClip(characters, posed) {
    const box = posed(characters);
    const cur = this.current;
    if (!cur || !characters.includes(cur.character) || cur.clip.frameCount < 2) return box;
    const { action, character } = cur;
    const time = action.time;
    const samples = Math.min(12, cur.clip.frameCount);
    for (let k = 0; k < samples; k++) {
      action.time = (k / (samples - 1)) * cur.clip.lastTime;
      character.mixer.update(0);
      character.update();
      box.union(posed([character]));
    }
    action.time = time;
    character.mixer.update(0);
    character.update();
    return box;
  }

  /** Forgets what plays (the owner clears the characters themselves). */
  resetPlayback() {
    this.current = null;
    this.range = null;
  }
}
