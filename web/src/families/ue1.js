// Unreal Engine 1 vertex meshes: foo_d.3d (triangles) + foo_a.3d (frames), the .uc class whose
// #exec lines import them (sequences, textures, scale), and PCX textures. A .uc that imports an
// ActorX .psk (#exec MESH MODELIMPORT, UE2-era engines and UT v436) places and textures it the same
// way; its slots may name textures of the packages it loads (#exec OBJ LOAD), found by the UE1
// package family's lookup.
import { baseName, decoderInput, stem, textureKey } from '../core/files.js';
import { importsMesh, ue1RepoCompanions } from './ue1-companions.js';
import upackage, { packageName } from './upackage.js';

const meshBase = (name) =>
  stem(name)
    .replace(/_[ad]$/i, '')
    .toLowerCase();

/** The .psk base names (lower case) a script's #exec MESH MODELIMPORT lines name. */
function modelImports(script) {
  const found = new Set();
  for (const m of script.matchAll(/^[ \t]*#(?:force)?exec[ \t]+MESH[ \t]+MODELIMPORT\b[^\n]*?\bMODELFILE[ \t]*=[ \t]*"?([^"\s]+)/gim))
    found.add(baseName(m[1].replace(/\\/g, '/')).toLowerCase());
  return found;
}

// Script pairings per plan (its byKind): asked by both this family (which decodes them) and the
// Unreal family (which leaves those .psk files to it).
const pairings = new WeakMap();

/**
 * Each .psk a dropped script imports, with that script (the first in path order): the script
 * places and textures it.
 * @returns {Promise<Map<object, { script: object, text: string }>>}
 */
export function scriptedModels(byKind, text) {
  const psks = byKind('psk');
  if (!psks.length || !byKind('uc').length) return Promise.resolve(new Map());
  if (!pairings.has(byKind)) {
    const found = (async () => {
      const scripts = byKind('uc').sort((a, b) => (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0));
      const texts = await Promise.all(scripts.map(text));
      const out = new Map();
      const named = scripts.map((_, i) => modelImports(texts[i]));
      for (const psk of psks) {
        const i = named.findIndex((set) => set.has(psk.entry.name.toLowerCase()));
        if (i >= 0) out.set(psk, { script: scripts[i], text: texts[i] });
      }
      return out;
    })();
    pairings.set(byKind, found);
  }
  return pairings.get(byKind);
}

/** A decode of each .psk a script imports, placed and textured by that script. */
const placedJobs = (scripted) =>
  [...scripted].map(([psk, { script, text }]) => ({
    op: 'decodeScriptedPsk',
    inputs: [psk, script],
    via: 'script',
    args: async () => [await decoderInput(psk.entry), psk.entry.name, text, script.entry.name],
  }));

/** A placed .psk's dotted slot names, each a `Package.Name` (or Package.Group.Name) the package family looks up. */
function packageSlot(material, ctx, model) {
  const [first] = material.textureNames;
  const short = material.textureNames.at(-1);
  for (const path of material.textureNames.filter((n) => n.includes('.'))) {
    const hit = upackage.resolveMaterial({ textureNames: [path, short] }, ctx, model);
    if (hit) return hit;
  }
  return first?.includes('.') ? null : undefined;
}

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
    const scripted = await scriptedModels(byKind, text);
    const placing = new Set([...scripted.values()].map((x) => x.script));
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
      // lines); else a lone script, unless that one imports another mesh dropped here (a .psk too).
      let s = scripts.findIndex((_, i) => importsMesh(scriptTexts[i], base));
      if (s < 0) s = scripts.findIndex((c) => stem(c.entry.name).toLowerCase() === base);
      const importsOther = () =>
        placing.has(scripts[0]) || datas.some((d) => d !== item && importsMesh(scriptTexts[0], meshBase(d.entry.name)));
      if (s < 0 && scripts.length === 1 && !importsOther()) s = 0;
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
    for (const [psk, { script }] of scripted) usedScripts.set(script, psk);
    jobs.push(...placedJobs(scripted));
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

  /** A placed .psk's slot naming a texture of a package the script loads: the package family's lookup. */
  resolveMaterial(material, ctx, model) {
    if (!model.info?.script) return null;
    return packageSlot(material, ctx, model) ?? null;
  },

  /**
   * Slots of a placed .psk that name a texture not dropped: a `missing` record naming the package
   * file the script loads (or the texture), so the drop says what to add.
   */
  assemble(ctx) {
    const present = new Set((ctx.textures ?? []).filter((t) => t.package).map((t) => t.package.toLowerCase()));
    for (const model of ctx.models) {
      if (!model.info?.script || model.format !== 'psk') continue;
      const loads = String(model.info.objLoad ?? '')
        .split('; ')
        .filter(Boolean);
      const needs = new Map();
      model.materials.forEach((material, slot) => {
        const names = material.textureNames;
        if (material.hidden || !names.length || names.some((n) => ctx.findTexture(n, model)) || packageSlot(material, ctx, model)) return;
        // The package file the script loads that the slot may mean, else the package it names.
        const packages = names.filter((n) => n.includes('.')).map((n) => n.slice(0, n.indexOf('.')).toLowerCase());
        const loaded = loads.find((f) => packages.includes(packageName(f).toLowerCase()) && !present.has(packageName(f).toLowerCase()));
        const named = names.find((n) => n.includes('.') && !present.has(n.slice(0, n.indexOf('.')).toLowerCase()));
        const file = loaded ?? (named ? `${named.slice(0, named.indexOf('.'))}.u or .utx` : `texture ${names[0]}`);
        if (!needs.has(file)) needs.set(file, []);
        needs.get(file).push(`slot ${slot} (${names.at(-1)})`);
      });
      for (const [file, slots] of needs)
        ctx.records.push({ kind: 'missing', files: [model.file], needs: file, reason: `${slots.join(', ')} of ${model.info.script}` });
    }
    return [];
  },
};
