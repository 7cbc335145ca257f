// Links that carry the files themselves: the viewer's *Copy link* and *Embed code* pack the files
// opened from this computer that the scene uses into the fragment (`#pack=…`, core/pack.js),
// with the view state; files opened from the web stay file= URLs. Opening such a link unpacks
// it here, in the page, and nothing is sent anywhere.
import { fromBase64Url, packSceneAsync, toBase64Url, unpackScene, usedFiles } from '../core/pack.js';
import { entryFromBytes } from '../core/files.js';
import { formatBytes } from '../core/input.js';
import { nextTask } from '../core/tasks.js';
import { bundlesOf } from '../core/bundle.js';
import { buildQuery, packedState, queryWithPackedState, readParams } from './params.js';

/** Longest URL Chromium opens: 2,097,152 characters (measured, Chromium 156: one more and it does not navigate). */
export const MAX_LINK_CHARS = 2 * 1024 * 1024;
/** Longest URL Firefox opens (documented: network.standard-url.max-length, 1 MiB). */
export const FIREFOX_LINK_CHARS = 1024 * 1024;

const chars = (n) => `${n.toLocaleString('en')} characters`;

/**
 * The bytes of the files a scene uses, read again for packing, and the drops they came in (a
 * "2,3" count list: they are unpacked as drops again, in that order, so the scene assembles the
 * same way). A file moved or changed since it was opened is named.
 * @param {{ path: string, drop: number, entry: { read(): Promise<ArrayBuffer> } }[]} used
 * @param {string} what what the files are read for, in the message
 */
export async function readForPacking(used, what) {
  const counts = [];
  const files = [];
  for (const u of used) {
    if (counts.at(-1)?.drop === u.drop) counts.at(-1).n++;
    else counts.push({ drop: u.drop, n: 1 });
    try {
      files.push({ name: u.path, bytes: new Uint8Array(await u.entry.read()) });
    } catch (err) {
      const why = err.name === 'NotReadableError' ? 'moved, changed or deleted since it was opened' : err.message;
      throw new Error(`${u.path} could not be read again for ${what} (${why}): open it again`, { cause: err });
    }
  }
  return { files, drops: counts.map((d) => d.n).join(',') };
}

/**
 * The link (or embed code) for the current view.
 * A scene read from one repository folder (`state.repo`, core/repo.js) is named by that folder at
 * its commit: a link of a few hundred characters whatever the folder holds.
 * @param {{ kind: 'link' | 'embed', base: string, hosted: string[], state: object,
 *   local: { path: string, entry: import('../core/files.js').FileEntry, drop: number }[], scene: object | null,
 *   onProgress?: Function }} options
 * @returns {Promise<{ text: string, url: string, files: { name: string, size: number }[], left: string[],
 *   packedBytes: number, tooLong: boolean, read?: number, total?: number }>}
 */
export async function makeShare({ kind, base, hosted, state, local, scene, onProgress }) {
  const page = kind === 'embed' ? 'embed.html' : 'index.html';
  const used = usedFiles(scene, local);
  const left = local.filter((l) => !used.includes(l)).map((l) => l.path);
  const query = buildQuery(used.length ? { files: hosted, repo: state.repo } : { ...state, files: hosted });
  const plain = new URL(`${page}${query ? `?${query}` : ''}`, base).href;
  const result = { url: plain, files: [], left, packedBytes: 0, tooLong: false, repo: state.repo };
  if (used.length) {
    const { files, drops } = await readForPacking(used, 'the link');
    const prefix = `${plain}#pack=`;
    const room = Math.floor(((MAX_LINK_CHARS - prefix.length) * 3) / 4);
    const packed = await packSceneAsync({ files, state: { ...packedState(state), drops } }, { maxBytes: room, onProgress });
    Object.assign(result, { files: packed.files, read: packed.read, total: packed.total });
    if (!packed.payload) result.tooLong = true;
    else {
      result.packedBytes = packed.payload.length;
      result.url = prefix + toBase64Url(packed.payload);
      // The room was counted in whole bytes; base64url may still end a character or two over.
      result.tooLong = result.url.length > MAX_LINK_CHARS;
    }
  }
  result.text = result.tooLong
    ? ''
    : kind === 'embed'
      ? `<iframe src="${result.url}" width="640" height="480" style="border:0" allow="fullscreen" title="Rigscope player"></iframe>`
      : result.url;
  return result;
}

/** What the share dialog says about a link: its length, what it holds, where it opens. */
export function describeShare(share) {
  if (share.tooLong) {
    const size = share.files.reduce((n, f) => n + f.size, 0);
    return `These ${share.files.length} files (${formatBytes(size)}) do not fit in a link: packed, they pass the ${chars(MAX_LINK_CHARS)} the longest link Chromium opens may have${share.read < share.total ? ` (packing stopped after ${formatBytes(share.read)} of them)` : ''}.`;
  }
  const n = share.url.length;
  if (!share.files.length && share.repo) {
    const sha = /\/tree\/([0-9a-f]{7,64})/i.exec(share.repo)?.[1];
    return `${chars(n)}. The link reopens the repository folder${sha ? ` at commit ${sha.slice(0, 12)}` : ''}, with the same clip, frame and camera.`;
  }
  if (!share.files.length) return `${chars(n)}. The link reopens the same files, clip, frame and camera.`;
  const raw = share.files.reduce((s, f) => s + f.size, 0);
  const where =
    n > FIREFOX_LINK_CHARS
      ? ` Opens in Chromium browsers (up to ${chars(MAX_LINK_CHARS)}); longer than Firefox's ${chars(FIREFOX_LINK_CHARS)}.`
      : '';
  return `${chars(n)}: ${share.files.length} file${share.files.length === 1 ? '' : 's'} from this computer (${formatBytes(raw)}, packed to ${formatBytes(share.packedBytes)}) travel inside the link, with the clip, frame and camera. Nothing is uploaded: whoever opens it unpacks them in their browser.${where}`;
}

/**
 * A packed fragment's files, grouped as the drops they were, and its view state. Throws with a
 * sentence for bad base64, a cut payload, a bomb, too many files or bad names (core/pack.js).
 * @param {string} text the base64url after `#pack=`
 * @returns {Promise<{ drops: import('../core/files.js').FileEntry[][], state: Record<string, unknown> }>}
 */
export async function openPacked(text, { onProgress, limits = {} } = {}) {
  let payload;
  try {
    payload = fromBase64Url(text);
  } catch (err) {
    throw new Error(`Packed link: ${err.message}`, { cause: err });
  }
  await nextTask(); // decoding the text and inflating are separate tasks: the page draws between
  const { files, state } = await unpackScene(payload, { ...limits, onProgress });
  const entries = files.map((f) => entryFromBytes(f.name, f.bytes));
  const counts = String(state.drops ?? '')
    .split(',')
    .map(Number);
  const drops = [];
  let at = 0;
  if (counts.every((n) => Number.isSafeInteger(n) && n > 0) && counts.reduce((a, b) => a + b, 0) === entries.length) {
    for (const n of counts) {
      drops.push(entries.slice(at, at + n));
      at += n;
    }
  } else if (entries.length) drops.push(entries);
  return { drops, state };
}

/**
 * The view a load's first .rigscope bundle carries (core/bundle.js), read as a packed link's state
 * is read (its values are as untrusted as a link's query), each problem naming the bundle; null
 * when no bundle came with the load.
 * @param {{ bundle?: { path: string, state: Record<string, unknown> } }[]} entries
 */
export function bundleView(entries) {
  const [first] = bundlesOf(entries);
  if (!first) return null;
  const view = readParams(queryWithPackedState('', first.state), location.href, '');
  return { ...view, problems: view.problems.map((p) => `${first.path}: ${p}`) };
}
