// A UE1 mesh's companions elsewhere in its repository. A package's sources are laid out as
// `Package/Classes/*.uc`, `Package/Models/…`, `Package/Textures/…`, and the script that imports a
// mesh (`#exec MESH IMPORT MESH=X ANIVFILE=Models\X_a.3d DATAFILE=Models\X_d.3d`) sits in Classes/,
// often under another name than the mesh (UMSSpaceMarine.uc imports UMSMarine). A link to a folder
// of Models/ holds the mesh but not its script: its scale, sequences and texture slots. Given the
// files chosen and the repository's folders, this names the script and the textures it imports.
import { baseName, stem } from '../core/files.js';

/** Scripts read at most while looking for the ones that import a folder's meshes (raw files, not API calls). */
export const MAX_SCRIPTS_READ = 160;
/** Scripts read at once. */
const BATCH = 24;

const meshBase = (path) =>
  stem(path)
    .replace(/_[ad]$/i, '')
    .toLowerCase();
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Whether a script names a mesh's data file (`…DATAFILE=Models\x_d.3d`), as the family's plan pairs them. */
export const importsMesh = (script, base) => new RegExp(`\\b${escape(base)}_d\\.3d\\b`, 'i').test(script);

const dirOf = (path) => path.split('/').slice(0, -1).join('/');

/** The package folder a script belongs to: the folder above its Classes/ (else its own folder). */
function packageOf(script) {
  const dir = dirOf(script);
  return /(^|\/)classes$/i.test(dir) ? dirOf(dir) : dir;
}

/** The folders holding `dir`, nearest first, down to the repository's root (''). */
function ancestors(dir) {
  const parts = dir ? dir.split('/') : [];
  return parts.map((_, i) => parts.slice(0, parts.length - 1 - i).join('/'));
}

/**
 * The files a script's `#exec TEXTURE IMPORT … FILE=path` lines name, as written (backslashes
 * made slashes). Commented-out lines (`//#exec`) are skipped.
 */
export function importedTextureFiles(script) {
  const out = [];
  for (const line of script.split(/\r?\n/)) {
    const m = /^\s*#exec\s+texture\s+import\b.*?\bfile\s*=\s*("?)([^"\s]+)\1/i.exec(line);
    if (m) out.push(m[2].replace(/\\/g, '/'));
  }
  return out;
}

/** `written` (relative to the package folder, any case, `..` allowed) among `files`, else a file of that name in the package. */
function resolveIn(files, pkg, written) {
  const parts = pkg ? pkg.split('/') : [];
  for (const p of written.split('/')) {
    if (p === '..') parts.pop();
    else if (p && p !== '.') parts.push(p);
  }
  const wanted = parts.join('/').toLowerCase();
  const exact = files.find((f) => f.toLowerCase() === wanted);
  if (exact) return exact;
  const name = baseName(written).toLowerCase();
  return files.find((f) => (!pkg || f.startsWith(`${pkg}/`)) && baseName(f).toLowerCase() === name);
}

// Candidates in the order worth reading: a script of the mesh's own name, then one whose name holds
// the mesh's (or the other way round), then the rest by name.
function ranked(scripts, bases) {
  const score = (p) => {
    const s = stem(p).toLowerCase();
    if (bases.some((b) => s === b)) return 0;
    if (bases.some((b) => s.includes(b) || b.includes(s))) return 1;
    return 2;
  };
  return scripts
    .map((p) => ({ p, k: score(p) }))
    .sort((a, b) => a.k - b.k || (a.p < b.p ? -1 : 1))
    .map((x) => x.p);
}

/**
 * The registry's `repoCompanions` hook for UE1. `ctx`: `{ files }` chosen (paths from the
 * repository's root), `read(paths)` → Map of path → text, `under(dir)` → the repository's files
 * below a folder. Returns `{ paths, notes }`: the scripts that import meshes of `files` that no
 * chosen script imports, and the textures those scripts import.
 */
export async function ue1RepoCompanions({ files, read, under }) {
  const none = { paths: [], notes: [] };
  const meshes = files.filter((p) => /_d\.3d$/i.test(p));
  if (!meshes.length) return none;
  const own = await read(files.filter((p) => /\.uc$/i.test(p)));
  const scripted = (base) => [...own].some(([p, text]) => importsMesh(text, base) || stem(p).toLowerCase() === base);
  const named = new Map(meshes.map((p) => [meshBase(p), baseName(p).replace(/_d\.3d$/i, '')]));
  let orphans = [...named.keys()].filter((b) => !scripted(b));
  if (!orphans.length) return none;
  const chosen = new Set(files);
  const found = new Map(); // script -> { pkg, text, meshes }
  let budget = MAX_SCRIPTS_READ;
  for (const dir of ancestors(dirOf(meshes[0]))) {
    if (!orphans.length || budget <= 0) break;
    const inside = await under(dir);
    const scripts = ranked(
      inside.filter((p) => /\.uc$/i.test(p) && !chosen.has(p) && !found.has(p) && packageOf(p) === dir),
      orphans,
    );
    for (let i = 0; i < scripts.length && orphans.length && budget > 0; i += BATCH) {
      const batch = scripts.slice(i, i + Math.min(BATCH, budget));
      budget -= batch.length;
      for (const [p, text] of await read(batch)) {
        const imports = orphans.filter((b) => importsMesh(text, b));
        if (!imports.length) continue;
        found.set(p, { pkg: dir, text, files: inside, meshes: imports });
        orphans = orphans.filter((b) => !imports.includes(b));
      }
    }
  }
  const paths = [];
  const notes = [];
  for (const [script, { pkg, text, files: inside, meshes: imported }] of found) {
    const textures = importedTextureFiles(text)
      .map((w) => resolveIn(inside, pkg, w))
      .filter((p) => p && !chosen.has(p) && !paths.includes(p));
    paths.push(script, ...textures);
    const also = textures.length ? `, with the ${textures.length} texture${textures.length === 1 ? '' : 's'} it imports` : '';
    notes.push(
      `script ${script} fetched from elsewhere in the repository${also}: it imports ${imported.map((b) => named.get(b)).join(', ')}`,
    );
  }
  return { paths, notes };
}
