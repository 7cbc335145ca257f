// `rigscope poster FILE|FOLDER... -o out.png`: a still of the scene `rigscope scene` assembles,
// drawn by the player itself (<rigscope-viewer>: its renderer, environment, tone mapping and
// contact shadow) in a headless Chromium (web/cli/chromium.js), so a poster looks as the page does.
//
// The files are assembled and chosen as `rigscope page` does (sceneToPack), packed (core/pack.js)
// and handed to the standalone player's template (build/standalone/rigscope-page.html, opened
// from file://: the WASM and the worker are inline). The element loads them, frames them as the
// page's *Frame* does (over the whole clip shown), and draws one still with renderStill: at a
// fixed size, device pixel ratio 1, posed at exactly the asked time, never by the wall clock, on
// SwiftShader, so the same files and options give the same PNG on any machine.
//
// One PosterBrowser draws any number of posters in one page (`export --posters`): each is a new
// packed scene for the same element, so Chromium, the page and the decoder worker start once.
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { packScene, toBase64Url, usedFiles } from '../src/core/pack.js';
import { launchChromium, chromiumPath } from './chromium.js';
import { readTemplate, sceneToPack, TEMPLATE_PATH } from './page.js';
import { UsageError } from './usage.js';

/** A poster's size when none is asked for. */
export const DEFAULT_SIZE = { width: 640, height: 480 };
/** Sides a poster may have (what every WebGL 2 renderer draws at once). */
const SIDES = [16, 4096];
/** The view attributes a poster sets on the element; each poster clears those of the last. */
const VIEW_ATTRIBUTES = ['clip', 'frame', 'camera', 'up', 'background', 'lod', 'mesh', 'autoplay', 'skeleton', 'labels'];
/** Longest wait for a load or a still in the page (a large folder under SwiftShader on a busy machine). */
const PAGE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Checks a poster's options (the command line's words, or a caller's) and returns them ready for
 * the page; a bad one is a UsageError. Frame is the file's own numbering (as links' frame=).
 */
export function posterOptions({
  out,
  width = DEFAULT_SIZE.width,
  height = DEFAULT_SIZE.height,
  frame,
  time,
  camera,
  background,
  transparent,
  up,
}) {
  if (out !== undefined && !/\.png$/i.test(out)) throw new UsageError(`-o ${out}: the poster is a .png file`);
  for (const side of [width, height])
    if (!Number.isInteger(side) || side < SIDES[0] || side > SIDES[1])
      throw new UsageError(`--size ${width}x${height}: width x height in pixels, each from ${SIDES[0]} to ${SIDES[1]}`);
  if (frame !== undefined && time !== undefined) throw new UsageError('--frame and --time name the same thing: give one');
  if (background !== undefined && transparent) throw new UsageError('--background and --transparent: give one');
  const number = (v) => (typeof v === 'string' && v.trim() === '' ? NaN : Number(v));
  if (frame !== undefined && !(Number.isInteger(number(frame)) && number(frame) >= 0))
    throw new UsageError(`--frame ${frame}: a frame number (the file's own numbering), 0 or more`);
  if (time !== undefined && !(Number.isFinite(number(time)) && number(time) >= 0))
    throw new UsageError(`--time ${time}: seconds into the clip, 0 or more`);
  if (background !== undefined && !/^#?[0-9a-f]{6}$/i.test(background))
    throw new UsageError(`--background ${background}: a colour as RRGGBB (e.g. 202830)`);
  const numbers = (v) => String(v).split(',').map(number);
  const view = camera === undefined ? null : numbers(camera);
  if (view && (view.length !== 6 || !view.every(Number.isFinite) || (view[0] === view[3] && view[1] === view[4] && view[2] === view[5])))
    throw new UsageError(`--camera ${camera}: camera position and target, six numbers px,py,pz,tx,ty,tz (not the same point)`);
  const turns = up === undefined ? null : numbers(up);
  if (turns && (turns.length !== 3 || !turns.every((d) => Number.isInteger(d) && d % 90 === 0 && Math.abs(d) <= 180)))
    throw new UsageError(`--up ${up}: quarter turns about X, Y and Z in degrees, e.g. -90,0,0`);
  return {
    width,
    height,
    // No pose asked for: the clip's first frame (time 0), whatever the clip's own numbering.
    ...(frame !== undefined ? { frame: number(frame) } : { time: time !== undefined ? number(time) : 0 }),
    transparent: !!transparent,
    attributes: {
      ...(view ? { camera: view.join(',') } : {}),
      ...(turns ? { up: turns.join(',') } : {}),
      ...(background !== undefined ? { background: background.replace(/^#/, '') } : {}),
    },
  };
}

/**
 * In the page: shows one packed scene in the player and draws one still. Runs inside Chromium
 * (serialized by playwright), so it uses nothing from this module.
 */
async function showAndDraw({ packed, attributes, names, still, timeout }) {
  const el = document.getElementById('player');
  const deadline = (what) =>
    new Promise((_, reject) => setTimeout(() => reject(new Error(`the player did not ${what} within ${timeout / 1000} s`)), timeout));
  // What the player shows, drawn as the poster (`loaded`: its files were read for it).
  async function drawStill(loaded) {
    const messages = el.messages.map((m) => m.text);
    if (!el.app.characters.length) return { messages };
    const png = await el.renderStill(still);
    let binary = '';
    for (let i = 0; i < png.length; i += 0x8000) binary += String.fromCharCode(...png.subarray(i, i + 0x8000));
    const cur = el.app.current;
    const frames = cur ? [cur.clip.firstFrame, cur.clip.firstFrame + cur.clip.frameCount - 1] : null;
    return {
      png: btoa(binary),
      messages,
      clip: el.currentClip,
      frame: cur ? frames[0] + el.app.frame : null,
      frames,
      time: el.currentTime,
      loaded,
    };
  }
  // The scene shown already, at this size and with this view but for its clip (a wiki page of
  // frames of one model): only the clip changes, and the still is posed; nothing is read again.
  const again =
    el.app.characters.length > 0 &&
    el.getAttribute('packed') === packed &&
    el.stage.width === still.width &&
    el.stage.height === still.height &&
    names.every((name) => el.getAttribute(name) === (attributes[name] ?? null) || (name === 'clip' && attributes.clip !== undefined));
  if (again) {
    if (attributes.clip !== undefined) el.setAttribute('clip', attributes.clip);
    // Framed from the clip's start, as a load frames it (the last still's pose goes first), over
    // the clip now shown, then the camera asked for: a load's last view step (the element's
    // `up`, applied after `clip`).
    el.app.pauseAt(0);
    el._applyView('up');
    return drawStill(false);
  }
  // The last poster's scene and view go (a load with no files clears what is shown at once).
  el.removeAttribute('packed');
  for (const name of names) el.removeAttribute(name);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  // The stage is the poster's size: framing depends on its shape.
  await Promise.race([
    deadline('take the poster size'),
    new Promise((resolve) => {
      const check = () => (el.stage.width === still.width && el.stage.height === still.height ? resolve() : requestAnimationFrame(check));
      check();
    }),
  ]);
  // The element loads once it is on screen: `load` or `error` says this scene's load has ended.
  const ended = new Promise((resolve) => {
    el.addEventListener('load', resolve, { once: true });
    el.addEventListener('error', resolve, { once: true });
  });
  el.setAttribute('packed', packed);
  await Promise.race([ended, deadline('load the files')]);
  await el.loaded;
  return drawStill(true);
}

/** One headless Chromium page holding the standalone player, drawing posters one after another. */
export class PosterBrowser {
  /**
   * Starts Chromium (throws the sentence of chromium.js when there is none) and opens the player.
   * @param {{ width?: number, height?: number, template?: string }} [options] the first posters' size
   */
  static async open({ width = DEFAULT_SIZE.width, height = DEFAULT_SIZE.height, template = TEMPLATE_PATH } = {}) {
    const executablePath = chromiumPath();
    await readTemplate(template); // says how to build it when it is missing
    const started = performance.now();
    const browser = await launchChromium({ executablePath });
    try {
      // Reduced motion: nothing glides or plays by itself; device pixel ratio 1: pixels as asked.
      const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.setDefaultTimeout(PAGE_TIMEOUT_MS);
      await page.goto(pathToFileURL(template).href);
      await page.waitForFunction(() => window.__rigscope?.ready === true);
      // Nothing but the view: no control bar taking rows from the picture.
      await page.evaluate(() => document.getElementById('player').setAttribute('controls', 'none'));
      return new PosterBrowser(browser, page, errors, performance.now() - started);
    } catch (err) {
      await browser.close();
      throw err;
    }
  }

  constructor(browser, page, errors, startMs) {
    Object.assign(this, { browser, page, errors, startMs });
    this.size = page.viewportSize();
  }

  /**
   * Draws one poster of `files` ({ name, bytes }[], as packed). `options` as posterOptions
   * returns them, with `clip` (a name the files have) and `lod`. Resolves to { png: Buffer, clip,
   * frame, time, messages, loaded }; throws when nothing could be shown. The scene shown already
   * is drawn again at another clip or pose without reading its files (`loaded` false) when the
   * files, the size and the rest of the view are the poster's.
   */
  async render(files, { width, height, frame, time, transparent, attributes = {}, clip, lod = 0, mesh }) {
    if (this.size.width !== width || this.size.height !== height) {
      await this.page.setViewportSize({ width, height });
      this.size = { width, height };
    }
    // The page's own autoplay rule is off: a packed scene without autoplay=0 would play.
    const packed = toBase64Url(packScene({ files, state: { autoplay: '0' } }));
    const shown = {
      ...attributes,
      ...(clip !== undefined ? { clip } : {}),
      ...(lod !== 0 ? { lod: String(lod) } : {}),
      ...(mesh ? { mesh } : {}),
    };
    const still = { width, height, transparent, ...(frame !== undefined ? { frame } : { time }) };
    this.errors.length = 0;
    const result = await this.page.evaluate(showAndDraw, {
      packed,
      attributes: shown,
      names: VIEW_ATTRIBUTES,
      still,
      timeout: PAGE_TIMEOUT_MS,
    });
    if (!result.png) {
      const why = [...result.messages, ...this.errors].join('; ') || 'the player showed nothing';
      throw new Error(`nothing could be drawn: ${why}`);
    }
    return { ...result, png: Buffer.from(result.png, 'base64') };
  }

  async close() {
    await this.browser.close();
  }
}

/**
 * The files to pack for one character of a scene alone (its poster in `export --posters`): the
 * files the scene uses, less those only other characters show. Sidecars no record names (actor
 * templates, material files) stay, as `usedFiles` keeps them.
 * @template {{ path: string }} T
 * @param {{ characters: object[], boards: object[], records: object[] }} scene
 * @param {object} character one of scene.characters
 * @param {T[]} entries
 * @returns {T[]}
 */
export function characterFiles(scene, character, entries) {
  // usedFiles of a scene whose every file is marked unused gives what its characters show.
  const everyFile = { kind: 'unused', files: entries.map((e) => e.path) };
  const shownBy = (characters) => new Set(usedFiles({ characters, boards: [], records: [everyFile] }, entries).map((e) => e.path));
  const mine = shownBy([character]);
  const others = shownBy(scene.characters.filter((c) => c !== character));
  return usedFiles(scene, entries).filter((e) => mine.has(e.path) || !others.has(e.path));
}

/** At most this many posters in one `--more` list (a wiki's page of frames is far fewer). */
const MAX_MORE = 1000;
/** At most this many files in one `--more` poster's own `files` (a wiki tag names at most 64). */
const MAX_MORE_FILES = 64;

/**
 * Reads a `--more` list: more posters, each { out, clip?, frame?, width?, height?, mesh?, files? }
 * (mesh: of a UE1 package, as `--mesh`; files: paths of other files to draw instead of the
 * command's, so posters of several sets of files share one browser), the rest of the view as the
 * command's own options. A bad entry is a UsageError naming it.
 * @param {string} path
 * @param {object} shared the command's options (size, camera, background, transparent, up)
 */
export async function readMore(path, shared) {
  let list;
  try {
    list = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--more ${path}: ${err.code === 'ENOENT' ? 'no such file' : `not JSON (${err.message})`}`);
  }
  if (!Array.isArray(list) || list.length > MAX_MORE) throw new UsageError(`--more ${path}: a JSON list of at most ${MAX_MORE} posters`);
  return list.map((p, i) => {
    const where = `--more ${path}: poster ${i}`;
    if (!p || typeof p !== 'object' || typeof p.out !== 'string') throw new UsageError(`${where}: an object with "out", the PNG to write`);
    if (p.clip !== undefined && typeof p.clip !== 'string') throw new UsageError(`${where}: "clip" is a name`);
    if (p.mesh !== undefined && (typeof p.mesh !== 'string' || !p.mesh)) throw new UsageError(`${where}: "mesh" is a name`);
    const files = p.files;
    if (
      files !== undefined &&
      !(Array.isArray(files) && files.length && files.length <= MAX_MORE_FILES && files.every((f) => typeof f === 'string' && f))
    )
      throw new UsageError(`${where}: "files" is a list of 1 to ${MAX_MORE_FILES} paths`);
    const whole = (v, name) => {
      if (v !== undefined && !Number.isInteger(v)) throw new UsageError(`${where}: "${name}" is a whole number`);
      return v;
    };
    const options = posterOptions({
      ...shared,
      out: p.out,
      width: whole(p.width, 'width') ?? shared.width,
      height: whole(p.height, 'height') ?? shared.height,
      frame: whole(p.frame, 'frame'),
      time: undefined,
    });
    return { ...options, out: p.out, clip: p.clip, mesh: p.mesh, files };
  });
}

/**
 * Writes the poster (and those of `--more`, drawn by the same browser: Chromium starts once).
 * Returns the exit status: 0, or 1 when some files given (or named by a `--more` poster's files)
 * could not be used (named on stderr; the poster of what could be used is still written) or some
 * of the `--more` posters could not be drawn (named on stderr; the others are written). A bad
 * option, a missing path or a clip no file has (for `--clip`) is a UsageError (exit 2).
 * @param {string[]} paths
 * @param {{ out: string, width?: number, height?: number, clip?: string, frame?: number, time?: number,
 *   lod?: number | 'all', camera?: string, background?: string, transparent?: boolean, up?: string, more?: string }} options
 *   frame: the file's own numbering; camera: px,py,pz,tx,ty,tz; up: X,Y,Z quarter turns in degrees;
 *   background: RRGGBB. No frame or time: the clip's first frame. more: a `--more` list's path.
 */
export async function poster(paths, { out, width, height, clip, mesh, frame, time, lod = 0, camera, background, transparent, up, more }) {
  if (out === undefined) throw new UsageError('poster needs -o OUT.png');
  const asked = posterOptions({ out, width, height, frame, time, camera, background, transparent, up });
  const others =
    more === undefined ? [] : await readMore(more, { width: asked.width, height: asked.height, camera, background, transparent, up });
  if (!paths.length) throw new UsageError('poster needs files or folders to draw');
  chromiumPath(); // no Chromium: said before any file is read
  const packed = await sceneToPack(paths, { clip, lod, mesh });
  // A `--more` poster of other files, or of another mesh of a package, is packed once per set of
  // files and mesh; files some set could not use make the exit status 1, as the command's own do.
  const key = (files, m) => JSON.stringify([files, m ?? null]);
  const packs = new Map([[key(paths, mesh), packed]]);
  let unused = packed.problems.length;
  const packOf = async (files, m) => {
    if (!packs.has(key(files, m))) {
      const pack = await sceneToPack(files, { lod, mesh: m });
      unused += pack.problems.length;
      packs.set(key(files, m), pack);
    }
    return packs.get(key(files, m));
  };
  const browser = await PosterBrowser.open(asked);
  let failed = 0;
  try {
    const drawn = await browser.render(packed.files, { ...asked, clip: packed.state.clip, lod, mesh });
    await writeFile(out, drawn.png);
    said(out, asked, drawn, packed, lod);
    for (const other of others) {
      try {
        // Another set of files takes no mesh from the command; the command's files keep its own.
        const m = other.files ? other.mesh : (other.mesh ?? mesh);
        const own = await packOf(other.files ?? paths, m);
        const shown = other.clip === undefined ? own.state.clip : await own.clip(other.clip);
        if (shown === null) {
          process.stderr.write(`rigscope: ${other.out}: no clip named ${other.clip}: not drawn\n`);
          failed++;
          continue;
        }
        const d = await browser.render(own.files, { ...other, clip: shown, lod, mesh: m });
        await writeFile(other.out, d.png);
        said(other.out, other, d, own, lod);
      } catch (err) {
        process.stderr.write(`rigscope: ${other.out}: ${err.message}\n`);
        failed++;
      }
    }
  } finally {
    await browser.close();
  }
  return unused || failed ? 1 : 0;
}

/** The lines a poster written prints: a frame the player clamped (stderr), then what was drawn. */
function said(out, asked, drawn, packed, lod) {
  // A frame outside the clip is clamped by the player, as the frame attribute is: said, not refused.
  if (asked.frame !== undefined && drawn.frames && drawn.frame !== asked.frame)
    process.stderr.write(
      `rigscope: --frame ${asked.frame} is outside ${drawn.clip} (frames ${drawn.frames[0]}-${drawn.frames[1]}): frame ${drawn.frame} is shown\n`,
    );
  const pose = drawn.clip === null ? 'no clip' : `clip ${drawn.clip}, frame ${drawn.frame} (${drawn.time.toFixed(3)} s)`;
  process.stdout.write(
    `${out}: ${asked.width}x${asked.height}, ${pose}, ${packed.files.length} file(s)${lod !== 0 ? `, LOD ${lod}` : ''}\n`,
  );
}
