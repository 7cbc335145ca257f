// @ts-check
// How the element's `src` and `packed` become file entries. `src` is space-separated URLs (a
// GitHub or GitLab folder address among them is its files, core/repo.js); a
// token that starts with '#' (`#pack=…`, as a packed link's fragment) is a packed scene, and so is
// the `packed` attribute (with or without `#pack=`). Packed scenes are unpacked here, in the page,
// within the zip budgets (core/pack.js); their view state fills the view attributes the page did
// not set, so `<rigscope-viewer packed="…">` shows what the link showed. A URL that fetches a
// .rigscope bundle (core/bundle.js, opened with the zips) is the same: its files and its view.
import { entriesFromUrls } from '../core/input.js';
import { entryFromBytes } from '../core/files.js';
import { fromBase64Url, unpackScene } from '../core/pack.js';
import { bundlesOf } from '../core/bundle.js';
import { entriesFromRepo, isRepoUrl } from '../core/repo.js';
import { readsInParts, readsName, repoCompanions } from '../families/index.js';

const PACK = /^#?(pack=)?/;

/**
 * The view attributes a packed scene's state names (the viewer's link words → the element's).
 * @param {Record<string, unknown>} state
 * @returns {Record<string, string>}
 */
export function attributesOfPackedState(state) {
  /** @type {Record<string, string>} */
  const out = {};
  const text = (k) => (typeof state[k] === 'string' ? /** @type {string} */ (state[k]) : undefined);
  for (const [from, to] of [
    ['clip', 'clip'],
    ['frame', 'frame'],
    ['speed', 'speed'],
    ['camera', 'camera'],
    ['bg', 'background'],
    ['up', 'up'],
    ['lod', 'lod'],
    ['mesh', 'mesh'],
  ]) {
    const v = text(from);
    if (v !== undefined) out[to] = v;
  }
  if (text('skeleton') === '1') out.skeleton = '';
  // A link plays unless it says autoplay=0; the element holds still unless told to play.
  if (text('autoplay') !== '0') out.autoplay = '';
  return out;
}

/**
 * Entries for `src` and `packed`: URLs are fetched (within the fetch limits), bundles among them
 * and packed scenes unpacked, and the view attributes their states name. Throws a sentence
 * naming what failed.
 * @param {string} src
 * @param {string | null} packed
 * @param {string} base
 * @returns {Promise<{ entries: import('../core/files.js').FileEntry[], urls: string[], attributes: Record<string, string>, notes: string[] }>}
 */
export async function entriesFromSource(src, packed, base) {
  const tokens = src.split(/\s+/).filter(Boolean);
  const packs = tokens.filter((t) => t.startsWith('#')).map((t) => t.replace(PACK, ''));
  if (packed !== null && packed.trim()) packs.push(packed.trim().replace(PACK, ''));
  const links = tokens.filter((t) => !t.startsWith('#'));
  // A GitHub or GitLab folder address (core/repo.js) stands for the files in it some family reads.
  const entries = [];
  // A repository's notes (a cut listing, companions fetched from elsewhere in it) are shown as the element's notes.
  const notes = [];
  const onNote = (note) => notes.push(note);
  for (const folder of links.filter((t) => isRepoUrl(t)))
    entries.push(...(await entriesFromRepo(folder, { wanted: readsName, companions: repoCompanions, onNote })));
  const urls = links.filter((t) => !isRepoUrl(t)).map((u) => new URL(u, base).href);
  if (urls.length) entries.push(...(await entriesFromUrls(urls, undefined, { readsInParts })));
  /** @type {Record<string, string>} */
  let attributes = {};
  // Fetched bundles first, in src order: the first to name a view attribute sets it.
  for (const b of bundlesOf(entries)) attributes = { ...attributesOfPackedState(b.state), ...attributes };
  for (const text of packs) {
    let pack;
    try {
      pack = await unpackScene(fromBase64Url(text));
    } catch (/** @type {any} */ err) {
      throw new Error(`Packed scene: ${String(err.message).replace(/^Packed scene: /, '')}`, { cause: err });
    }
    entries.push(...pack.files.map((f) => entryFromBytes(f.name, f.bytes)));
    attributes = { ...attributesOfPackedState(pack.state), ...attributes };
  }
  return { entries, urls, attributes, notes };
}
