// Unreal Engine 1 vertex meshes: foo_d.3d (triangles) + foo_a.3d (frames), the .uc class whose
// #exec lines import them (sequences, textures, scale), and PCX textures.
import { decoderInput, stem, textureKey } from '../core/files.js';
import { importsMesh, ue1RepoCompanions } from './ue1-companions.js';

const meshBase = (name) =>
  stem(name)
    .replace(/_[ad]$/i, '')
    .toLowerCase();

/** Texture records in file-name order (case-insensitive), each path lowered once. */
function byLowerPath(records) {
  return records
    .map((r) => ({ r, p: r.path.toLowerCase() }))
    .sort((a, b) => (a.p < b.p ? -1 : 1))
    .map((x) => x.r);
}

export default {
  id: 'ue1',
  label: 'Unreal Engine 1',
  kinds: ['ue1-data', 'ue1-anim', 'uc', 'pcx'],
  fileNames: /\.(3d|uc|pcx)$/i, // worth fetching from a repository folder (core/repo.js)
  textureNamesRule: 'script slot',
  // A UE1 package's sub-folders: a folder walk (`rigscope export`) keeps them in their package's scene.
  packageFolders: ['Models', 'Classes', 'Textures'],
  // A _d.3d holds triangles only: loaders given its URL fetch the _a.3d (vertex positions) beside it.
  companions: (name) => (/_d\.3d$/i.test(name) ? [name.replace(/_d(\.3d)$/i, '_a$1')] : []),
  // A folder link of Models/ holds a mesh but not the script in Classes/ beside it: found in the repository.
  repoCompanions: ue1RepoCompanions,

  async plan(byKind, { text }) {
    const jobs = [],
      records = [];
    const anims = byKind('ue1-anim');
    const datas = byKind('ue1-data');
    // In path order, so the same folder pairs the same way however it was dropped.
    const scripts = byKind('uc').sort((a, b) => (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0));
    const scriptTexts = await Promise.all(scripts.map(text));
    const usedAnims = new Set(),
      usedScripts = new Map(); // script -> the mesh it was paired with
    for (const item of datas) {
      const base = meshBase(item.entry.name);
      const anim = anims.find((a) => meshBase(a.entry.name) === base);
      if (!anim) {
        records.push({
          kind: 'missing',
          files: [item.entry.path],
          needs: `${base}_a.3d`,
          reason: 'its animation file (vertex positions live there)',
        });
        continue;
      }
      usedAnims.add(anim);
      // The script that imports it; else one of the same name (Deus Ex classes without #exec
      // lines); else a lone script, unless that one imports another mesh dropped here.
      let s = scripts.findIndex((_, i) => importsMesh(scriptTexts[i], base));
      if (s < 0) s = scripts.findIndex((c) => stem(c.entry.name).toLowerCase() === base);
      if (s < 0 && scripts.length === 1 && !datas.some((d) => d !== item && importsMesh(scriptTexts[0], meshBase(d.entry.name)))) s = 0;
      const script = s >= 0 ? scripts[s] : null;
      if (script) usedScripts.set(script, item);
      jobs.push({
        op: 'decodeUe1',
        inputs: script ? [item, anim, script] : [item, anim],
        via: script ? 'script' : 'name',
        args: async () => [
          await decoderInput(item.entry),
          item.entry.name,
          await decoderInput(anim.entry),
          anim.entry.name,
          script ? scriptTexts[s] : '',
          script ? script.entry.name : '',
        ],
      });
    }
    for (const a of anims) {
      if (!usedAnims.has(a))
        records.push({
          kind: 'missing',
          files: [a.entry.path],
          needs: `${meshBase(a.entry.name)}_d.3d`,
          reason: 'its data file (triangles live there)',
        });
    }
    scripts.forEach((s, i) => {
      if (usedScripts.has(s)) return;
      // Mods often import the same mesh from two classes: say which one it was paired with.
      const mesh = datas.find((d) => importsMesh(scriptTexts[i], meshBase(d.entry.name)));
      const other = mesh && [...usedScripts].find(([, d]) => d === mesh)?.[0];
      const reason = other
        ? `it imports ${mesh.entry.name}, which was paired with ${other.entry.name}`
        : 'no mesh it imports was dropped with it';
      records.push({ kind: 'unused', files: [s.entry.path], reason });
    });
    for (const item of byKind('pcx')) {
      jobs.push({ op: 'decodePcx', inputs: [item], args: async () => [await decoderInput(item.entry), item.entry.name, true] });
    }
    return { jobs, records };
  },

  /**
   * Meshes with no script naming their textures: texture number N gets the N-th texture file
   * (counting from the mesh's first number) in sorted file-name order, among the files dropped
   * with it whose names start with the mesh's name, else among all of them when it came alone.
   * @returns {Map<number, object>} material index -> texture record
   */
  fallbackTextures(model, pool, { alone }) {
    const out = new Map();
    if (model.materials.some((m) => m.textureNames.length)) return out;
    const slots = model.materials.map((m) => Number(/^tex(\d+)_/.exec(m.name)?.[1] ?? -1));
    const numbered = slots.filter((n) => n >= 0);
    if (!numbered.length) return out;
    const first = Math.min(...numbered);
    const base = meshBase(model.file);
    // Filtered before sorting: a folder of hundreds of meshes asks this of every mesh, over every
    // texture of the drop.
    const named = pool.filter((r) => textureKey(r.path).startsWith(base));
    const candidates = byLowerPath(named.length ? named : alone ? [...pool] : []);
    slots.forEach((n, i) => {
      if (n >= 0 && candidates[n - first]) out.set(i, candidates[n - first]);
    });
    return out;
  },
  fallbackRule: 'file-name order',
};
