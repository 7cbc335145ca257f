// `rigscope export --posters`: a PNG beside each GLB, drawn by one headless Chromium for the whole
// run. Folders are exported in worker threads; each thread names the files each character uses
// (row.sources) and the main thread draws their posters here, one after another in one page
// (PosterBrowser), while the threads go on with the next folders.
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { packName } from '../src/core/pack.js';
import { entryFromPath, openBundles } from './entries.js';
import { DEFAULT_SIZE, PosterBrowser, posterOptions } from './poster.js';

/** Where a character's poster goes: beside its GLB, same base name (a path relative to OUTDIR). */
export const posterPath = (glb) => glb.replace(/\.glb$/i, '') + '.png';

const exists = (path) =>
  stat(path).then(
    () => true,
    () => false,
  );

export class ExportPosters {
  /**
   * @param {{ outDir: string, clip?: string, lod?: number | 'all', size?: { width: number, height: number },
   *   skipExisting?: boolean, onPoster?: (drawn: number) => void, write: (path: string, bytes: Uint8Array) => Promise<void> }} options
   *   write: writes a whole file (export.js writes under a temporary name, then renames)
   */
  constructor({ outDir, clip, lod = 0, size = DEFAULT_SIZE, skipExisting = false, onPoster, write }) {
    Object.assign(this, { outDir, clip, lod, skipExisting, onPoster, write });
    this.still = posterOptions(size);
    this.size = { width: this.still.width, height: this.still.height };
    // Chromium starts at once, while the threads export the first folders; a failed start is
    // each poster's problem.
    this.opening = PosterBrowser.open(this.size);
    this.opening.catch(() => {});
    /** @type {PosterBrowser | null} once started */
    this.browser = null;
    this.queue = Promise.resolve();
    this.stopped = false;
    /** Posters drawn, the time they took (ms, Chromium's start apart) and Chromium's start. */
    this.stats = { drawn: 0, failed: 0, ms: 0, startMs: 0 };
  }

  /** Draws the posters of one folder's characters (its summary's rows) after those asked for before. */
  add(unit, summary) {
    this.queue = this.queue.then(() => this._folder(unit, summary));
  }

  async _folder(unit, summary) {
    const rows = summary.characters.filter((c) => c.sources && (c.status === 'written' || c.status === 'skipped'));
    if (!rows.length || this.stopped) return;
    // The folder's files as the thread read them (a bundle stands for the files inside it).
    const entries = await openBundles(unit.files.map((f) => entryFromPath(f.path, f.size)));
    const byPath = new Map(entries.map((e) => [e.path, e]));
    for (const row of rows) {
      if (this.stopped) return;
      const sources = row.sources;
      delete row.sources;
      const png = posterPath(row.file);
      if (this.skipExisting && row.status === 'skipped' && (await exists(join(this.outDir, png)))) {
        Object.assign(row, { poster: png, posterSize: this.size });
        continue;
      }
      try {
        await this._draw(row, png, sources.map((p) => byPath.get(p)).filter(Boolean), unit.dir);
      } catch (err) {
        this.stats.failed++;
        row.problems.push(`poster not drawn: ${err.message}`);
      }
    }
  }

  async _draw(row, png, entries, dir) {
    if (!this.browser) {
      this.browser = await this.opening;
      this.stats.startMs = this.browser.startMs;
    }
    const started = performance.now();
    const files = [];
    for (const e of entries) files.push({ name: packName(e.nameInBundle ?? relative(dir, e.path)), bytes: new Uint8Array(await e.read()) });
    // --clip: that clip where the character has it; else the player's first (frame 0).
    const clip = this.clip === undefined ? undefined : row.clips[0];
    const drawn = await this.browser.render(files, { ...this.still, clip, lod: this.lod });
    await this.write(join(this.outDir, png), drawn.png);
    Object.assign(row, { poster: png, posterSize: this.size });
    this.stats.drawn++;
    this.stats.ms += performance.now() - started;
    this.onPoster?.(this.stats.drawn);
  }

  /** Waits for every poster asked for, then closes Chromium. */
  async finish() {
    try {
      await this.queue;
    } finally {
      await (this.browser ?? (await this.opening.catch(() => null)))?.close();
      this.browser = null;
    }
    return this.stats;
  }

  /** Draws no more posters (Ctrl-C); finish() still closes Chromium. */
  stop() {
    this.stopped = true;
  }
}
