// glTF binary (.glb): Rigscope's own exports, compressed or not, and any other GLB with meshes,
// a skin and clips. Read in JavaScript (gltf-model.js, loaded only when a GLB is opened, as the
// one module scripts/build-standalone.mjs bundles it into, so that apps bundling Rigscope meet no
// Node built-in of glTF-Transform's), not by the WASM decoders. Each character of a GLB is a
// model of its own: a GLB of several (`rigscope convert` of a folder, any GLB with skinned
// meshes under separate roots) opens as several characters, laid out as game files are.
import { extension } from '../core/files.js';

const GLB_MAGIC = 0x46546c67; // "glTF"
const JSON_CHUNK = 0x4e4f534a; // "JSON"

/** The JSON chunk of a GLB, or null when the bytes are not one (the decode then says why). */
export function glbJson(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 20) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const length = view.getUint32(12, true);
  if (view.getUint32(0, true) !== GLB_MAGIC || view.getUint32(16, true) !== JSON_CHUNK || 20 + length > b.length) return null;
  try {
    return JSON.parse(new TextDecoder().decode(b.subarray(20, 20 + length)));
  } catch {
    return null;
  }
}

/**
 * The characters of a glTF document: the default scene's root nodes, each with what hangs below
 * it, joined where a skinned mesh under one root has joints under another (an exporter's
 * "Armature" beside its mesh); groups without a mesh are no character.
 * @returns {{ name: string, roots: number[] }[]} node indices of each character's roots, in the scene's order
 */
export function charactersOf(json) {
  const nodes = json.nodes ?? [];
  const roots = json.scenes?.[json.scene ?? 0]?.nodes ?? [];
  const rootOf = new Map();
  const walk = (n, root) => {
    if (rootOf.has(n) || !nodes[n]) return;
    rootOf.set(n, root);
    for (const c of nodes[n].children ?? []) walk(c, root);
  };
  for (const r of roots) walk(r, r);
  const joined = new Map(roots.map((r) => [r, r]));
  const find = (r) => (joined.get(r) === r ? r : find(joined.get(r)));
  for (const [n, root] of rootOf) {
    const skin = json.skins?.[nodes[n].skin];
    if (nodes[n].mesh === undefined || !skin) continue;
    for (const j of [...skin.joints, skin.skeleton]) if (rootOf.has(j)) joined.set(find(rootOf.get(j)), find(root));
  }
  const withMesh = new Set([...rootOf].filter(([n]) => nodes[n].mesh !== undefined).map(([, root]) => find(root)));
  const groups = new Map();
  for (const r of roots) {
    if (!withMesh.has(find(r))) continue;
    if (!groups.has(find(r))) groups.set(find(r), []);
    groups.get(find(r)).push(r);
  }
  const seen = new Map();
  return [...groups.values()].map((group, k) => {
    const base = (nodes[group[0]].name || `character ${k + 1}`).replace(/[\\/]/g, '_');
    seen.set(base, (seen.get(base) ?? 0) + 1);
    return { name: seen.get(base) > 1 ? `${base} ${seen.get(base)}` : base, roots: group };
  });
}

// The characters of each GLB opened, read from its JSON when the files are planned (a file set
// is planned more than once: its first look, then the whole).
const planned = new WeakMap();

function charactersIn(entry) {
  if (!planned.has(entry))
    planned.set(
      entry,
      entry.read().then((bytes) => (glbJson(bytes) ? charactersOf(glbJson(bytes)) : [])),
    );
  return planned.get(entry);
}

const reader = () => import('../../../build/gltf/gltf-model.js');

export default {
  id: 'gltf',
  label: 'glTF',
  kinds: ['glb'],
  claims: (name) => (extension(name) === 'glb' ? 'glb' : null),
  async plan(byKind) {
    const jobs = [];
    for (const item of byKind('glb')) {
      const characters = await charactersIn(item.entry).catch(() => []);
      // Decoded here, not by a worker op: the decoders are WASM, and a GLB is glTF-Transform's.
      if (characters.length < 2) {
        jobs.push({ inputs: [item], decode: async () => (await reader()).decodeGlb(await item.entry.read(), item.entry.name) });
        continue;
      }
      for (const [k, character] of characters.entries()) {
        jobs.push({
          inputs: [item],
          // Tells the jobs of one file apart (a first look's decode is reused by its op and inputs).
          op: `glb#${k}`,
          decode: async () => (await reader()).decodeGlb(await item.entry.read(), item.entry.name, { roots: character.roots }),
          // Each character is known by its root's name, as a file inside the GLB.
          after: (decoded) => Object.assign(decoded, { file: `${item.entry.path}/${character.name}`, name: character.name }),
        });
      }
    }
    return { jobs, records: [] };
  },
};
