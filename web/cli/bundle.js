// `rigscope bundle FILE|FOLDER... -o hero.rigscope [--clip NAME] [--frame N] [--lod N|all]
// [--camera px,py,pz,tx,ty,tz] [--up X,Y,Z] [--background RRGGBB]`: the viewer's *Save bundle*
// from the command line. The scene is assembled as for `rigscope page` (sceneToPack, shared with
// it); the files it uses and the view are packed as a packed link packs them, behind the bundle
// signature (core/bundle.js): one file that the viewer, the embed page, <rigscope-viewer>, the
// loaders and every command open as the files it holds.
import { writeFile } from 'node:fs/promises';
import { packScene } from '../src/core/pack.js';
import { BUNDLE_EXTENSION, bundleBytes } from '../src/core/bundle.js';
import { sceneToPack, wroteLine } from './page.js';
import { UsageError } from './usage.js';

/** A view option in the links' words: a comma list of `count` finite numbers, given as text or as numbers. */
function numberList(flag, value, count, form) {
  const parts = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const numbers = parts.map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (numbers.length !== count || !numbers.every(Number.isFinite)) throw new UsageError(`${flag} ${value}: ${form}`);
  return numbers.join(',');
}

/**
 * The view options as a packed link's state (app/params.js buildQuery's keys, values as text): the
 * page, the element and the embed page read a bundle's view as they read a link's.
 */
function viewState({ frame, camera, up, background }) {
  const state = {};
  if (frame !== undefined) {
    if (!Number.isInteger(Number(frame)) || Number(frame) < 0) throw new UsageError(`--frame ${frame}: a frame number, 0 or more`);
    state.frame = String(Number(frame));
  }
  if (camera !== undefined) state.camera = numberList('--camera', camera, 6, 'camera position and target, six numbers px,py,pz,tx,ty,tz');
  if (up !== undefined) {
    state.up = numberList('--up', up, 3, 'quarter turns about X, Y and Z in degrees, e.g. -90,0,0');
    if (state.up.split(',').some((d) => Number(d) % 90 !== 0 || Math.abs(Number(d)) > 180))
      throw new UsageError(`--up ${up}: quarter turns (multiples of 90 from -180 to 180) about X, Y and Z`);
  }
  if (background !== undefined) {
    if (!/^#?[0-9a-f]{6}$/i.test(background)) throw new UsageError(`--background ${background}: a colour as RRGGBB (e.g. 202830)`);
    state.bg = background.replace(/^#/, '').toLowerCase();
  }
  return state;
}

/**
 * Writes a .rigscope bundle. Returns the exit status: 0, or 1 when some files given could not be
 * used (named on stderr; the bundle of what could be used is still written). Throws a UsageError
 * for a bad command line (an `out` that is not .rigscope, a missing path, a clip no file has, a
 * view option that is not one), and an Error when nothing can be shown (nothing is written).
 * @param {string[]} paths files and folders (bundles among them are opened: their files go in again)
 * @param {{ out: string, clip?: string, frame?: number | string, lod?: number | 'all',
 *   camera?: string | number[], up?: string | number[], background?: string }} options
 *   camera `px,py,pz,tx,ty,tz`, up `X,Y,Z` (quarter turns in degrees), background `RRGGBB`: as in links
 * @returns {Promise<number>}
 */
export async function bundle(paths, { out, clip, mesh, frame, lod = 0, camera, up, background }) {
  if (typeof out !== 'string' || !out.toLowerCase().endsWith(`.${BUNDLE_EXTENSION}`))
    throw new UsageError(`-o ${out}: the bundle is a .${BUNDLE_EXTENSION} file`);
  const view = viewState({ frame, camera, up, background });
  const packed = await sceneToPack(paths, { clip, lod, mesh });
  Object.assign(packed.state, view);
  const bytes = bundleBytes(packScene(packed));
  await writeFile(out, bytes);
  process.stdout.write(wroteLine(out, bytes.length, packed));
  return packed.problems.length ? 1 : 0;
}
