// Unreal ActorX: .psk/.pskx meshes, .psa animations with UE Viewer's .config sidecar. Animations
// bind to meshes by bone name (the decoders say so: bindBy "name").
import { decoderInput, opensWith, readText, stem } from '../core/files.js';
import { addMaterialSidecar, isMaterialSidecar, readMaterialSidecar, resolveUnrealMaterial } from './unreal-materials.js';
import { scriptedModels } from './ue1.js';

/** Material sidecars are a few KiB; a larger file of that name is not read as one. */
const MAX_SIDECAR_BYTES = 16 << 20;

const sameStem = (a, b) => stem(a.entry.name).toLowerCase() === stem(b.entry.name).toLowerCase();

/** A sidecar beside its file wins over one of the same name elsewhere in the drop. */
function nearest(item, candidates) {
  const folder = (i) => i.entry.path.slice(0, i.entry.path.length - i.entry.name.length);
  return candidates.find((c) => folder(c) === folder(item)) ?? candidates[0];
}

export default {
  id: 'unreal',
  label: 'Unreal ActorX',
  // UE Viewer's class folders inside a package's export: a folder walk keeps them in the package's scene.
  packageFolders: [
    'SkeletalMesh',
    'MeshAnimation',
    'AnimSet',
    'AnimSequence',
    'Texture',
    'Texture2D',
    'Material',
    'MaterialInstanceConstant',
    'Textures',
    'Materials',
  ],
  kinds: ['psk', 'psa', 'config', 'material-sidecar'],
  // Names worth fetching from a repository folder (core/repo.js); the kind is still found by content.
  fileNames: /\.(pskx?|psa|config)$/i,
  /** ActorX files open with a chunk header whose id names the kind (wasm/src/formats/detect.cpp). */
  detect: (head) => (opensWith(head, 'ACTRHEAD') ? 'psk' : opensWith(head, 'ANIMHEAD') ? 'psa' : null),
  // UE Viewer's X.mat and X.props.txt, FModel's X.json: read when the scene is assembled.
  claims: (name) => (isMaterialSidecar(name) ? 'material-sidecar' : null),
  textKinds: ['material-sidecar'],
  // PSK material names are texture names (UE Viewer writes the material's name; the texture
  // usually carries the same name).
  textureNamesRule: 'material name',
  // Levels of detail: UE Viewer writes a mesh's level 0 as X.psk and level N as X_LodN.psk(x);
  // FModel writes every level as X_LODN.psk. The scene makes them one part X with levels.
  levelOf(file) {
    const name = stem(file);
    const m = /^(.+)_lod(\d{1,2})$/i.exec(name);
    return m ? { part: m[1], level: Number(m[2]) } : { part: name, level: 0 };
  },

  async plan(byKind, { text }) {
    const jobs = [],
      records = [];
    const configs = byKind('config');
    const used = new Set();
    // A .psk a dropped .uc script imports is the UE1 family's: the script places and textures it.
    const scripted = await scriptedModels(byKind, text);
    for (const item of byKind('psk').filter((i) => !scripted.has(i)))
      jobs.push({ op: 'decodePsk', inputs: [item], args: async () => [await decoderInput(item.entry), item.entry.name] });
    for (const item of byKind('psa')) {
      const config = nearest(
        item,
        configs.filter((c) => sameStem(c, item)),
      );
      if (config) used.add(config);
      jobs.push({
        op: 'decodePsa',
        inputs: config ? [item, config] : [item],
        via: config ? 'sidecar' : undefined,
        args: async () => [await decoderInput(item.entry), item.entry.name, config ? await text(config) : ''],
      });
    }
    for (const c of configs) {
      if (!used.has(c)) records.push({ kind: 'unused', files: [c.entry.path], reason: 'no .psa of the same name to apply it to' });
    }
    return { jobs, records };
  },

  /** Reads the drop's material sidecars (no characters of its own). */
  async assemble(ctx) {
    const sidecars = new Map();
    for (const t of ctx.texts.filter((x) => x.kind === 'material-sidecar')) {
      if (t.entry.size > MAX_SIDECAR_BYTES) {
        t.reason = `over ${MAX_SIDECAR_BYTES >> 20} MiB: too large for a material sidecar`;
        continue;
      }
      const record = readMaterialSidecar(t.path, await readText(t.entry));
      if (!record) {
        t.reason = 'not a material export';
        continue;
      }
      sidecars.set(record, t);
      addMaterialSidecar((ctx.state.unrealSidecars ??= new Map()), record);
    }
    ctx.state.unrealTexts = sidecars;
    return [];
  },

  /** A material's textures by role from its sidecar and its parents', else by texture suffixes. */
  resolveMaterial(material, ctx) {
    const sidecars = ctx.state.unrealSidecars ?? new Map();
    const resolved = resolveUnrealMaterial(material.name, sidecars, (name) => ctx.findTexture(name));
    // The sidecars of the chain were used, whatever they found.
    for (let key = material.name.toLowerCase(), depth = 0; key && depth < 16; depth++) {
      const record = sidecars.get(key);
      if (!record) break;
      for (const r of [record, record.mat]) if (r && ctx.state.unrealTexts.has(r)) ctx.usedTexts.add(ctx.state.unrealTexts.get(r));
      key = record.parent?.toLowerCase();
    }
    return resolved;
  },
};
