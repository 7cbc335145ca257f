// `rigscope page FILE|FOLDER... -o hero.html [--clip NAME] [--lod N|all]`: the viewer's *Save page* from the
// command line. The files are assembled into the scene as `rigscope scene` does; the files that
// scene uses (not unused or refused ones) are packed (core/pack.js) into the standalone player's
// template (build/standalone/rigscope-page.html, from scripts/build-standalone.mjs): one .html
// that opens by double click, with no network.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { assembleScene, decodeFiles } from '../src/families/index.js';
import { describeRecord, isProblem } from '../src/core/report.js';
import { formatBytes } from '../src/core/input.js';
import { packName, packScene, usedFiles } from '../src/core/pack.js';
import { checkTemplate, standalonePage, titleCharacter } from '../src/core/page.js';
import { entriesFromPaths } from './entries.js';
import { UsageError } from './usage.js';

export const TEMPLATE_PATH = fileURLToPath(new URL('../../build/standalone/rigscope-page.html', import.meta.url));

export { UsageError };

/**
 * Entries for the paths, each with the name it gets when packed: a file its own name, a file in a
 * folder the path from that folder's name on (as a folder dropped in the viewer), a file from a
 * bundle its name inside the bundle (so a bundle packed again keeps its names).
 */
async function namedEntries(paths) {
  const out = [];
  for (const p of paths) {
    let entries;
    try {
      entries = await entriesFromPaths([p]);
    } catch (err) {
      throw new UsageError(err.code === 'ENOENT' ? `${p}: no such file or folder` : `${p}: ${err.message}`, { cause: err });
    }
    // A repository folder's files are already named from the folder on (core/repo.js).
    for (const e of entries)
      out.push({ entry: e, path: e.path, name: packName(e.nameInBundle ?? (e.repo ? e.path : relative(dirname(p), e.path))) });
  }
  return out;
}

/** Clip names as the player lists them (every character's clips, props included). */
async function clipNames(scene) {
  const { Character } = await import('../src/three/character.js');
  return scene.characters.flatMap((sc) => new Character(sc).clips.map((k) => k.name));
}

/**
 * What `page` and `bundle` pack: the scene of the paths, assembled as `rigscope scene` does, the
 * files it uses (not unused or refused ones) with their bytes, and the view state in the links'
 * words (strings, as the viewer's packed links carry it: `clip`, `lod`). Problems are named on
 * stderr; a `clip` no character has is a UsageError that lists the clips.
 * @param {string[]} paths
 * @param {{ clip?: string, lod?: number | 'all' }} options
 * @returns {Promise<{ files: { name: string, bytes: Uint8Array }[], state: Record<string, string>, problems: object[], left: number,
 *   clip: (name: string) => Promise<string | null> }>}
 *   left: how many files given the scene does not use; clip: a clip's name as the player has it
 *   (matched as `clip` is), or null
 */
export async function sceneToPack(paths, { clip, lod = 0, mesh }) {
  const named = await namedEntries(paths);
  if (!named.length) throw new UsageError(`no files in ${paths.join(', ')}`);
  const decoder = await loadNodeDecoders();
  // --mesh NAME: of a UE1 package, only that mesh (the player is told so by the packed state's mesh).
  const decoded = await decodeFiles(
    named.map((n) => n.entry),
    decoder,
    mesh ? { objects: [mesh] } : {},
  );
  const scene = await assembleScene(decoded, { lod });
  const problems = scene.records.filter(isProblem);
  for (const r of problems) process.stderr.write(`rigscope: ${describeRecord(r, { paths: true })}\n`);
  if (mesh && !scene.characters.some((c) => c.models.some((m) => m.container))) {
    const meshes = decoded.containers.flatMap((c) => c.meshes ?? []);
    throw new UsageError(`--mesh ${mesh}: no mesh of that name in a package${meshes.length ? `; meshes: ${meshes.join(', ')}` : ''}`);
  }
  if (!scene.characters.length) throw new Error('nothing to show: no mesh among the files');
  const state = lod === 0 ? {} : { lod: String(lod) };
  if (mesh) state.mesh = mesh;
  let names;
  const findClip = async (asked) => {
    names ??= await clipNames(scene);
    return names.find((n) => n === asked) ?? names.find((n) => n.toLowerCase() === asked.toLowerCase()) ?? null;
  };
  if (clip !== undefined) {
    const hit = await findClip(clip);
    if (!hit) throw new UsageError(`--clip ${clip}: no clip of that name; clips: ${names.length ? names.join(', ') : 'none'}`);
    state.clip = hit;
  }
  const used = usedFiles(scene, named);
  const files = [];
  for (const u of used) files.push({ name: u.name, bytes: new Uint8Array(await u.entry.read()) });
  return { files, state, problems, left: named.length - used.length, clip: findClip, title: titleCharacter(scene.characters).name };
}

/** The line a command prints for what it wrote: size, files, clip, level of detail, files left out. */
export function wroteLine(out, bytes, { files, state, left }) {
  const size = files.reduce((n, f) => n + f.bytes.length, 0);
  return `${out}: ${formatBytes(bytes)}, ${files.length} file(s) (${formatBytes(size)})${state.clip ? `, clip ${state.clip}` : ''}${state.lod !== undefined ? `, LOD ${state.lod}` : ''}${left ? `; ${left} file(s) left out (not used)` : ''}\n`;
}

export async function readTemplate(path = TEMPLATE_PATH) {
  let template;
  try {
    template = await readFile(path, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT')
      throw new Error(`${path} is missing: build the page template first (bash scripts/build.sh, or node scripts/build-standalone.mjs)`, {
        cause: err,
      });
    throw err;
  }
  checkTemplate(template, path);
  return template;
}

/**
 * Writes the standalone page. Returns the exit status: 0, or 1 when some files given could not be
 * used (named on stderr; the page of what could be used is still written).
 * @param {string[]} paths
 * @param {{ out: string, clip?: string, lod?: number | 'all', template?: string }} options lod: the
 *   level of detail the page shows of parts that have levels (every level is packed; 0 by default)
 */
export async function page(paths, { out, clip, mesh, lod = 0, template: templatePath, compress = false, textures }) {
  if (!/\.html?$/i.test(out)) throw new UsageError(`-o ${out}: the page is an .html file`);
  let template = await readTemplate(templatePath);
  let packed;
  if (compress) {
    // One compressed GLB instead of the files, and the reader that opens it (page-compressed.js).
    const { compressedPack, withGlbReader } = await import('./page-compressed.js');
    [packed, template] = await Promise.all([compressedPack(paths, { clip, lod, textures }), withGlbReader(template)]);
  } else packed = await sceneToPack(paths, { clip, lod, mesh });
  const html = standalonePage(template, packScene(packed), { title: packed.title });
  await writeFile(out, html);
  process.stdout.write(wroteLine(out, html.length, packed));
  return packed.problems.length ? 1 : 0;
}
