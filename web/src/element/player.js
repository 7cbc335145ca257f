// What one <rigscope-viewer> plays: the characters built from the scene of its files, and the
// one clip that plays (loop or once, paused or running, at which time). The names follow the
// viewer page's App (current, playing, allClips, select, setTime, frame, togglePlay), so the embed
// page's test hook reads the same.
import { decodeFiles } from '../families/index.js';
import { sceneObjects } from '../three/scene-objects.js';
import { Playback } from '../three/playback.js';

export class Player extends Playback {
  /**
   * @param {import('./stage.js').ElementStage} stage
   * @param {{ call(op: string, args: any[]): Promise<any> }} decoder
   */
  constructor(stage, decoder) {
    super();
    this.stage = stage;
    stage.playback = this;
    this.decoder = decoder;
    this.scene = null;
    // A paused element stays paused when its clip chooser changes.
    this.keepPausedOnSelect = true;
    /** Counts loads and drops: a load whose count is no longer current is thrown away. */
    this._generation = 0;
  }

  requestRender() {
    this.stage.invalidate?.();
  }

  /** Replaces what is shown by a file set; resolves to { records } (the scene's report). */
  async loadFiles(entries) {
    const generation = ++this._generation;
    const decoded = await decodeFiles(entries, this.decoder);
    const { scene, characters } = await sceneObjects(decoded, this.decoder);
    if (generation !== this._generation) {
      // Dropped (the element was removed) or replaced while decoding: its result is freed unseen.
      for (const c of characters) c.dispose();
      throw Object.assign(new Error('This load was dropped'), { dropped: true });
    }
    this.clear();
    this.scene = scene;
    this.characters = characters;
    for (const c of characters) {
      c.root.visible = !c.scene.hidden;
      this.stage.add(c);
    }
    if (characters.length) await this.stage.prepare();
    if (generation !== this._generation) throw Object.assign(new Error('This load was dropped'), { dropped: true });
    // The first clip with some motion (a one-frame clip is usually a pose).
    const first = Playback.firstMoving(this.allClips);
    if (first) this.select(first.character, first.clip);
    this.stage.frameAll();
    this.emit('loaded');
    return { records: scene.records };
  }

  /** Drops what is shown and any load still decoding (its result is freed when it arrives). */
  drop() {
    this._generation++;
    this.clear();
  }

  clear() {
    this.stage.clear();
    this.scene = null;
    this.characters = [];
    this.resetPlayback();
    this.emit('cleared');
  }
}
