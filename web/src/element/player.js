// What one <rigscope-viewer> plays: the characters built from the scene of its files, and the
// one clip that plays (loop or once, paused or running, at which time). The names follow the
// viewer page's App (current, playing, allClips, select, setTime, frame, togglePlay), so the embed
// page's test hook reads the same.
//
// A load draws while it decodes, as the page does (core/early-drawing.js): its first character as
// soon as its model is decoded, more each time the models decoded have doubled. The scene of the
// whole drop keeps every character drawn early whose make-up did not change; the clip, the
// framing and the `loaded` signal belong to that final scene alone.
import { decodeFiles } from '../families/index.js';
import { sceneObjects } from '../three/scene-objects.js';
import { Playback } from '../three/playback.js';
import { earlyDrawing } from '../core/early-drawing.js';
import { texturesOf } from './stage.js';
import { releaseHeldInputs } from '../decoder/held.js';

/** Whether a part of the scene has levels of detail: only then does another level change what is shown. */
const hasLevels = (scene) =>
  scene.characters.some(function has(c) {
    return c.parts.some((p) => p.lod) || c.props.some((p) => has(p.character));
  });

const droppedLoad = () => Object.assign(new Error('This load was dropped'), { dropped: true });

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
    /** The generation of the load that is decoding, or null. */
    this._decoding = null;
    /** What is shown is drawn early from part of a load still decoding: it has no clips yet. */
    this.partial = false;
    /** The characters shown, by signature (three/scene-objects.js): a later drawing keeps them. */
    this.built = new Map();
    /**
     * The level of detail assembled of parts that have levels (0 the finest, or 'all'): the
     * element's lod attribute.
     * @type {number | 'all'}
     */
    this.lod = 0;
    /** What the shown scene was assembled from when a part has levels, to assemble it again at another level (setLod). */
    this.decoded = null;
    /** The files of the last load: what the decoders hold of them is let go of when they are replaced or dropped. */
    this._entries = [];
  }

  /** Lets go of what the decoders hold of the last load's files (a package kept in a worker), except `keep`. */
  _releaseEntries(keep = []) {
    const kept = new Set(keep);
    releaseHeldInputs(this._entries.filter((e) => !kept.has(e)));
    this._entries = [...keep];
  }

  requestRender() {
    this.stage.invalidate?.();
  }

  /** Clips of the final scene only: a drawing from part of a load offers none. */
  get allClips() {
    return this.partial ? [] : super.allClips;
  }

  /** A clip chosen (the clip list, `clip=`) selects its character, as in the page. */
  select(character, clip) {
    this.selected = character;
    super.select(character, clip);
  }

  /** What a new framing frames: the selected model (the hero at first), or everything shown when none is. */
  get framed() {
    const s = this.selected;
    return s?.root.visible && this.characters.includes(s) ? [s] : undefined;
  }

  /**
   * Steps the selection to the next (1) or previous (-1) shown character, as the page's PgUp/PgDn
   * do: its first clip with motion plays and the camera glides to frame it.
   */
  stepCharacter(delta) {
    const shown = this.characters.filter((c) => c.root.visible);
    if (!shown.length) return;
    const at = shown.indexOf(this.selected ?? this.current?.character);
    const next = shown[at < 0 ? (delta > 0 ? 0 : shown.length - 1) : (at + delta + shown.length) % shown.length];
    this.selected = next;
    const first = Playback.firstMoving(this.allClips.filter((c) => c.character === next));
    if (first) this.select(first.character, first.clip);
    this.stage.frameAll({ glide: true, characters: [next] });
  }

  /**
   * Replaces what is shown by a file set; resolves to { records } (the scene's report).
   * `onProgress({ done, total, name })` as files are decoded; `onDrawn(first)` after each drawing
   * made before the load is done (first: the one that replaced what was shown before), before it
   * is framed.
   */
  async loadFiles(entries, { onProgress, onDrawn, objects } = {}) {
    this.cancel();
    this._releaseEntries(entries);
    const generation = ++this._generation;
    this._decoding = generation;
    const current = () => generation === this._generation;
    const early = earlyDrawing(async (partial) => {
      if (!current()) return;
      const first = !this.partial;
      await this._draw(partial, generation, { early: true });
      this.partial = true;
      onDrawn?.(first);
      // The first drawing is framed at once; the camera glides to frame each later one (it adds
      // characters beside those drawn), and frames the final scene when it is whole.
      this.stage.frameAll({ glide: !first });
      // The next drawings link shaders, which holds the GPU process: the first frame goes first.
      if (first) await this.stage.shown();
    });
    try {
      const decoded = await decodeFiles(entries, this.decoder, {
        onProgress,
        onDecoded: early.decoded,
        isCancelled: () => !current(),
        // Of containers (a UE1 package), only the objects asked for (the element's mesh attribute).
        ...(objects ? { objects } : {}),
      });
      await early.settled();
      if (!current()) throw droppedLoad();
      await this._draw(decoded, generation);
      // Kept only where another level would show something else.
      this.decoded = hasLevels(this.scene) ? decoded : null;
    } catch (err) {
      // A load that fails shows nothing of itself: what it drew early goes with its message.
      await early.settled();
      if (current() && this.partial) this.clear();
      throw err;
    } finally {
      if (this._decoding === generation) this._decoding = null;
    }
    this.partial = false;
    // The hero (core/layout.js chooseHero) is selected and framed alone, the others stand behind
    // it a PgDn away; its first clip with motion plays (a one-frame clip is usually a pose).
    const hero = this.characters.find((c) => c.scene?.hero);
    this.selected = hero ?? null;
    const first = Playback.firstMoving(this.allClips.filter((c) => c.character === hero)) ?? Playback.firstMoving(this.allClips);
    if (first) this.select(first.character, first.clip);
    this.stage.frameAll({ characters: this.framed });
    this.emit('loaded');
    return { records: this.scene.records };
  }

  /**
   * Assembles and shows `decoded`: characters already shown whose make-up did not change stay
   * (another load's never do), the others are swapped for their new build in one task, after the
   * new ones' textures are on and their shaders compiled, so no frame shows a gap. A load dropped
   * meanwhile frees what it made and throws. An `early` drawing (made while the load goes on) does
   * not wait for textures still to be fetched (sceneObjects).
   */
  async _draw(decoded, generation, { early = false } = {}) {
    const mine = this.partial ? this.built : new Map();
    const before = texturesOf(this.partial ? this.characters : []);
    let made = null;
    try {
      made = await sceneObjects(decoded, this.decoder, { built: mine, lod: this.lod, early });
      if (generation === this._generation) {
        // What is shown and stays starts for its place in this scene now, and glides there while
        // the newcomers' shaders link: a glide lasts as long as its start stood (glides.js).
        const shown = new Set(this.partial ? this.characters : []);
        for (const c of made.characters)
          if (shown.has(c)) this.stage.glideTo(c, c.root.position.clone().fromArray(c.scene.offset ?? [0, 0, 0]));
        await this.stage.prepare(made.characters.map((c) => c.root));
      }
    } finally {
      if (generation !== this._generation) {
        // Dropped: whoever dropped it cleared what was shown; what was made meanwhile, and the
        // textures the kept characters were given and let go of, are freed here.
        const shown = texturesOf(this.stage.characters);
        for (const c of made?.added ?? []) this.stage.remove(c, shown);
        for (const t of before) if (!shown.has(t)) t.dispose();
      }
    }
    if (generation !== this._generation) throw droppedLoad();
    const { scene, characters, added, built } = made;
    if (!this.partial) this.clear();
    const inUse = texturesOf(characters);
    const stays = new Set(characters);
    for (const c of this.characters) if (!stays.has(c)) this.stage.remove(c, inUse);
    // Textures a kept character showed from part of the drop and no longer shows.
    for (const t of before) if (!inUse.has(t)) t.dispose();
    const isNew = new Set(added);
    for (const c of characters) {
      c.root.visible = !c.scene.hidden;
      // Kept: on its way to its place in this scene already.
      if (isNew.has(c)) this.stage.add(c);
    }
    this.scene = scene;
    this.characters = characters;
    this.built = built;
    this.stage.poseChanged();
    this.stage.invalidate();
  }

  /**
   * Shows another level of detail (0 the finest, or 'all') of what is loaded, assembled again from
   * what was decoded; the clip that played goes on at its time and the camera stays. A load still
   * decoding assembles at this level itself.
   */
  async setLod(lod) {
    this.lod = lod;
    const { decoded } = this;
    if (!decoded || this._decoding !== null) return;
    const cur = this.current;
    const was = cur && { character: cur.character.name, clip: cur.clip.name, time: this.time, playing: this.playing };
    // A later level (or a load, or a drop) takes over from this one, which frees what it made.
    const generation = ++this._generation;
    try {
      await this._draw(decoded, generation);
    } catch (err) {
      if (err.dropped) return;
      throw err;
    }
    this.decoded = decoded;
    const same = was && this.allClips.find((c) => c.character.name === was.character && c.clip.name === was.clip);
    const next = same ?? Playback.firstMoving(this.allClips);
    if (next) this.select(next.character, next.clip);
    if (same) {
      this.setTime(was.time);
      this.current.action.paused = !was.playing;
    }
    this.emit('loaded');
  }

  /** Ends a load that is still decoding, and takes away what it drew early; a finished scene stays. */
  cancel() {
    if (this._decoding === null) return;
    this._decoding = null;
    this._generation++;
    if (this.partial) this.clear();
  }

  /** Drops what is shown and any load still decoding (its result is freed when it arrives). */
  drop() {
    this._generation++;
    this._decoding = null;
    this._releaseEntries();
    this.clear();
  }

  clear() {
    this.selected = null;
    this.stage.clear();
    this.scene = null;
    this.characters = [];
    this.built = new Map();
    this.partial = false;
    this.decoded = null;
    this.resetPlayback();
    this.emit('cleared');
  }
}
