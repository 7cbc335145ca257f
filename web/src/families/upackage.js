// Unreal Engine 1 packages (.u .utx .umx .uax .unr; specs/ue1-package.md): a container, like a zip
// or a bundle, but indexed. Its tables are read first (the decoders' listPackage) and say what it
// holds; each mesh export is then a job of its own (decodePackageObject), decoded into the model
// the loose files give (a vertex mesh is a UE1 model, a skeletal mesh a PSK-like one, an Animation
// a PSA-like one bound by bone names). Textures are records decoded when first drawn, known by
// their object path `Package.Group.Name`, so a mesh's texture slot finds its texture in any
// package of the drop (a .utx beside the .u); a slot naming a package that is not there is a
// `missing` record naming it.
//
// A package is read by a decoder call per object, each of which takes the whole file: a decoder
// that can hold it (its holdInput, decoder/held.js) is sent it once and keeps it; and a mesh comes back with the
// textures of its package its slots name, decoded in the same call (decodePackageMesh), so a
// mesh with its textures is one worker round trip.
import { baseName, decoderInput, stem, textureKey } from '../core/files.js';
import { MAX_ROUNDS } from '../core/ranged.js';

/** The package tag, `C1 83 2A 9E` at offset 0 (§0). */
const PACKAGE_TAG = 0x9e2a83c1;
/** Texture classes that are pictures (Palette exports are swatches: never a slot's texture). */
const isPicture = (e) => e.className !== 'Palette';

/** The package name a file gives (its name without folders and extension), as object paths spell it. */
export const packageName = (path) => stem(baseName(path));

/** Where an object of a package is shown, as a path inside the package file: `Pkg.u/Group/Name`. */
const objectFile = (path, e) => `${path}/${e.group ? `${e.group.replace(/\./g, '/')}/` : ''}${e.name}`;

// A package's listing, read once per planned item (a drop is planned twice: its first look, then whole).
const listings = new WeakMap();

function listingOf(item, call, decoder) {
  if (!listings.has(item)) {
    const listing = packageCall(call, decoder, item.entry, 'listPackage', []);
    listing.catch(() => {});
    listings.set(item, listing);
  }
  return listings.get(item);
}

// What each decoder call of a package is given: every call (the tables, then each mesh and
// texture) takes the whole package. A decoder that copies its input (Node's host, a loader's pool)
// takes the same bytes each time, read once per entry, instead of a fresh copy of them per call.
// A worker is handed a copy it takes over, as before: a Blob made once instead, which a worker
// reads through the browser's process, measured slower in Chromium (100-200 ms a call for a 4 MB
// package on a busy machine, against 15-130 ms for a copy handed over).
const inputs = new WeakMap();

function packageInput(entry, decoder) {
  if (entry.blob || decoder?.transfersInput !== false) return decoderInput(entry);
  if (!inputs.has(entry)) {
    const input = entry.read();
    input.catch(() => inputs.delete(entry)); // a failed read is tried again by the next call
    inputs.set(entry, input);
  }
  return inputs.get(entry);
}

/**
 * The package as a decoder call takes it: held by the decoder when it can hold inputs and the
 * package is large enough to be worth it (sent once, named by its id after that), else its bytes.
 */
async function packageArg(entry, decoder) {
  return decoder?.holdInput?.(entry, () => decoderInput(entry)) ?? packageInput(entry, decoder);
}

/**
 * A decoder call `op(package, name, ...rest)` on a package, about export `object` of its listing
 * when given. A link read in parts (core/ranged.js) is given the parts read so far; a call that
 * answers what it lacks has those read and is made again, at most MAX_ROUNDS times, then on the
 * whole file.
 */
async function packageCall(call, decoder, entry, op, rest, object = null, ahead = []) {
  const file = entry.ranged;
  // The object's own data is read before the first call (the listing says where it lies). Spans
  // the caller expects the call to ask for (`ahead`, [b0, e0, ...]) are read beside it, not
  // waited for: a call that asks for them waits for them then.
  if (file && object && !file.whole) {
    file.readAhead(ahead);
    await file.readMissing([object.serialOffset, object.serialOffset + object.serialSize]);
  }
  for (let round = 0; file && !file.whole && round < MAX_ROUNDS; round++) {
    const answer = await call(op, [file.input(), entry.name, ...rest]);
    if (!answer?.missing) return answer;
    await file.readMissing(answer.missing);
  }
  return call(op, [await packageArg(entry, decoder), entry.name, ...rest]);
}

/** One export of a package (`e`, of its listing) decoded (the decoders read the tables again: they are small beside the data). */
async function decodeExport(decoder, entry, e) {
  return packageCall(decoder.call.bind(decoder), decoder, entry, 'decodePackageObject', [e.index], e);
}

/**
 * Of each package entry, the textures its meshes' calls brought back before any texture record
 * asked for them (`early`, by export index, each taken once), and the texture exports asked for
 * so far (`asked`: a later mesh's call does not decode them again).
 */
const slotTextures = new WeakMap();

function slotTexturesOf(entry) {
  let s = slotTextures.get(entry);
  if (!s) slotTextures.set(entry, (s = { early: new Map(), asked: new Set() }));
  return s;
}

/** The package's picture textures not asked for yet, as decodePackageMesh takes them (decoder/ops.js slotTextureIndices). */
function textureTable(listing, asked) {
  const pictures = listing.textures.filter((e) => isPicture(e) && !asked.has(e.index));
  return { name: listing.name, paths: pictures.map((e) => e.path), indices: pictures.map((e) => e.index) };
}

/**
 * What the mesh's call of a package read in parts reads of each slot texture: its properties
 * (whether it is masked), which lead its data. The decoders ask for this much from a texture's
 * start (formats/upackage/upackage_texture.cpp kPropertiesAsk).
 */
const PROPERTIES_HEAD = 1024;

/**
 * The heads of the textures a mesh's slots likely name, read with the mesh: a round trip fewer
 * before it is drawn. Skins are named after their mesh in the packages seen (Jsg_GL1st1 for
 * sg_GL1st, BarrelToxicTex1 for BarrelToxic); a guess that misses costs a kilobyte, and the call
 * asks for what it lacks as before.
 */
function skinHeads(listing, mesh) {
  const name = mesh.name.toLowerCase();
  return listing.textures
    .filter((t) => t.className !== 'Palette' && t.serialSize > 0 && t.name.toLowerCase().includes(name))
    .flatMap((t) => [t.serialOffset, t.serialOffset + Math.min(t.serialSize, PROPERTIES_HEAD)]);
}

/** A mesh export with the textures of its package its slots name, in one call; those wait for their records' `load`. */
async function decodeMesh(decoder, entry, e, listing) {
  const s = slotTexturesOf(entry);
  const args = [e.index, textureTable(listing, s.asked)];
  const model = await packageCall(decoder.call.bind(decoder), decoder, entry, 'decodePackageMesh', args, e, skinHeads(listing, e));
  for (const { index, decoded } of model.slotTextures ?? []) {
    s.asked.add(index);
    s.early.set(index, decoded);
  }
  // The slot textures it left out are drawn next: their pixels and palettes are read from now
  // on, in one round, so each texture's own call finds them (or waits for them) and is its last.
  if (model.slotMissing?.length) entry.ranged.readAhead(model.slotMissing);
  delete model.slotTextures;
  delete model.slotMissing;
  return model;
}

/** A texture record of the drop for a texture export, decoded when first used (`load`). */
function textureRecord(item, e) {
  let decoded = false;
  return {
    id: `${item.entry.path}#${e.path}`,
    path: item.entry.path,
    name: e.name,
    // Known by its object path: slots name Package.Group.Name.
    key: textureKey(e.path),
    object: e.path,
    className: e.className,
    package: packageName(item.entry.path),
    // Of a package read in parts, a texture its mesh's call did not bring may still have bytes to
    // be fetched (its pixels, its palette) until it is decoded: a drawing made while the load goes
    // on does not wait for it.
    awaitsFetch: () => !!item.entry.ranged && !decoded && !slotTexturesOf(item.entry).early.has(e.index),
    load: async (decoder) => {
      const s = slotTexturesOf(item.entry);
      s.asked.add(e.index);
      const early = s.early.get(e.index);
      s.early.delete(e.index);
      const texture = (early ?? (await decodeExport(decoder, item.entry, e))).textures[0];
      decoded = true;
      return texture;
    },
  };
}

/** Texture formats by their `Format` byte (§10; codes past 5 depend on the engine). */
const TEXTURE_FORMATS = ['P8', 'RGBA7', 'RGB16', 'DXT1', 'RGB8', 'RGBA8'];
const textureFormat = (code) => TEXTURE_FORMATS[Number(code ?? 0)] ?? `format ${code}`;

/** A mesh's sequences: a vertex mesh's own, a skeletal mesh's from the Animation it names (when decoded). */
function sequencesOf(model, animations) {
  if (model.vertexAnimation)
    return model.vertexAnimation.sequences.map((s) => ({
      name: s.name,
      startFrame: s.startFrame,
      frames: s.frameCount,
      fps: s.rate,
      ...(s.notifies?.length ? { notifies: s.notifies.map((n) => ({ name: n.name, time: n.time })) } : {}),
    }));
  const anim = animations.find((a) => a.container?.object === model.info?.defaultAnimation);
  return (anim?.clips ?? []).map((c) => ({ name: c.name, frames: c.frameCount, fps: c.fps }));
}

/** The record of a package none of whose meshes is the one asked for (mesh=, --mesh): which it has. */
function noMeshNamed(path, objects, meshes) {
  const names = meshes.map((e) => e.name);
  const listed = names.length > 12 ? `${names.slice(0, 12).join(', ')} and ${names.length - 12} more` : names.join(', ');
  const count = `${names.length} mesh${names.length === 1 ? '' : 'es'}`;
  return { kind: 'unused', files: [path], reason: `no mesh named ${objects.join(' or ')}; its ${count}: ${listed}` };
}

export default {
  id: 'upackage',
  label: 'Unreal Engine 1 packages',
  kinds: ['upackage'],
  fileNames: /\.(u|utx|umx|uax|unr)$/i, // worth fetching from a repository folder (core/repo.js)
  // A link to one is read in parts where its host answers ranges (core/input.js, core/ranged.js):
  // its first and last 256 KB side by side (the header and the names lead the file, the import
  // and export tables close it, §3), then the objects shown, each call saying what it lacks.
  partsFirst: { head: 256 * 1024, tail: 256 * 1024 },
  // A game's or mod's package folders: a folder walk (`rigscope export`) keeps System/*.u with the
  // Textures/*.utx their slots name (UE1's own entry keeps Textures/).
  packageFolders: ['System'],
  /** By content, whatever the extension: the tag at offset 0. */
  detect(head) {
    if (head.byteLength < 4) return null;
    const view = new DataView(head.buffer, head.byteOffset, 4);
    return view.getUint32(0, true) === PACKAGE_TAG ? 'upackage' : null;
  },
  textureNamesRule: 'object path',

  async plan(byKind, { call, objects, decoder }) {
    // Only the objects asked for (`rigscope convert --mesh NAME`), when some are.
    const wanted = objects?.map((n) => n.toLowerCase());
    const asked = (e) => !wanted || wanted.includes(e.name.toLowerCase()) || wanted.includes(e.path.toLowerCase());
    const jobs = [],
      records = [],
      textures = [],
      containers = [];
    const packages = byKind('upackage');
    const listed = await Promise.all(
      packages.map((item) =>
        listingOf(item, call, decoder).then(
          (listing) => ({ item, listing }),
          (err) => ({ item, error: err }),
        ),
      ),
    );
    // Animations are decoded only when some package of the drop has a skeletal mesh to play them on.
    const skeletal = listed.some(({ listing }) => listing?.meshes.some((e) => e.className === 'SkeletalMesh' && asked(e)));
    for (const { item, listing, error } of listed) {
      const path = item.entry.path;
      if (error) {
        records.push({ kind: 'refused', files: [path], reason: error.message });
        continue;
      }
      // `meshes`: what a container offers to be picked by name (`rigscope convert --mesh`).
      containers.push({ path, format: 'upackage', listing, meshes: listing.meshes.map((e) => e.name) });
      const shown = listing.meshes.filter(asked);
      if (wanted && listing.meshes.length && !shown.length) records.push(noMeshNamed(path, objects, listing.meshes));
      const chosen = [...shown, ...(skeletal ? listing.animations : [])];
      for (const e of chosen) {
        jobs.push({
          inputs: [item],
          // Tells the jobs of one file apart (a first look's decode is reused by its op and inputs).
          op: `decodePackageObject#${e.index}`,
          bytes: e.serialSize,
          // A mesh with the textures its slots name; an Animation alone.
          decode: (decoder) =>
            listing.animations.includes(e) ? decodeExport(decoder, item.entry, e) : decodeMesh(decoder, item.entry, e, listing),
          after: (decoded) =>
            Object.assign(decoded, {
              file: objectFile(path, e),
              name: e.name,
              container: { path, package: listing.name, group: e.group, object: e.path, className: e.className },
            }),
        });
      }
      for (const e of listing.textures) if (isPicture(e)) textures.push(textureRecord(item, e));
      if (!listing.meshes.length && !listing.textures.some(isPicture))
        records.push({ kind: 'unused', files: [path], reason: 'the package holds no mesh or texture (code, sounds or music only)' });
    }
    return { jobs, records, textures, containers };
  },

  /**
   * What `rigscope inspect` says of a package: its version, its exports by class, every mesh
   * (class, vertices, frames, triangles, sequences with frames and rates) and every texture
   * (format, size, mips, palette), each texture decoded here for its facts.
   */
  async inspect(container, { models, animations, decoder, entry }) {
    const { listing, path } = container;
    const inside = (m) => m.container?.path === path;
    const meshes = listing.meshes.map((e) => {
      const m = models.find((x) => inside(x) && x.container.object === e.path);
      const base = { name: e.name, object: e.path, className: e.className, group: e.group };
      if (!m) return { ...base, decoded: false };
      return {
        ...base,
        vertices: m.counts.frameVerts ?? m.counts.points ?? m.counts.vertices,
        frames: m.counts.frames ?? 0,
        triangles: m.counts.triangles,
        textureSlots: m.counts.textureSlots,
        sequences: sequencesOf(m, animations.filter(inside)),
        ...(m.info?.defaultAnimation ? { defaultAnimation: m.info.defaultAnimation } : {}),
        ...(m.warnings.length ? { warnings: [...m.warnings] } : {}),
      };
    });
    const textures = [];
    for (const e of listing.textures.filter(isPicture)) {
      const base = { name: e.name, object: e.path, className: e.className, group: e.group };
      try {
        const t = await decodeExport(decoder, entry, e);
        const { counts = {}, info = {} } = t;
        textures.push({
          ...base,
          format: textureFormat(info.textureFormat),
          width: counts.width,
          height: counts.height,
          mips: counts.mips,
          ...(info.palette ? { palette: info.palette } : {}),
          ...(info.masked === '1' ? { masked: true } : {}),
          // CompMips as the decoder read them (DXT1/DXT5), else the engine's code as stored.
          ...(counts.compMips
            ? { compMips: counts.compMips, compFormat: t.textures[1]?.format.toUpperCase() ?? `code ${info.compFormat}` }
            : {}),
          ...(info.placeholder ? { placeholder: info.placeholder } : {}),
          ...(t.warnings.length ? { warnings: [...t.warnings] } : {}),
        });
      } catch (err) {
        textures.push({ ...base, error: err.message });
      }
    }
    // Other packages its meshes' slots name (a host finds them as companions: Botpack → Botpack.u).
    const uses = new Set();
    for (const m of models.filter(inside))
      for (const material of m.materials) {
        const path = material.textureNames[0];
        const pkg = path?.includes('.') ? path.slice(0, path.indexOf('.')) : '';
        if (pkg && pkg.toLowerCase() !== listing.name.toLowerCase()) uses.add(pkg);
      }
    return {
      name: listing.name,
      version: listing.version,
      licenseeVersion: listing.licenseeVersion,
      counts: { ...listing.counts },
      classes: { ...listing.classes },
      meshes,
      textures,
      palettes: listing.textures.length - textures.length,
      animations: listing.animations.map((e) => ({ name: e.name, object: e.path })),
      uses: [...uses].sort(),
      warnings: [...listing.warnings],
    };
  },

  /**
   * Slots that name a package not in the drop: one `missing` record per package file and package
   * named, whatever else was dropped (also when no texture at all was).
   */
  assemble(ctx) {
    const present = new Set();
    for (const t of ctx.textures ?? []) if (t.package) present.add(t.package.toLowerCase());
    for (const m of ctx.models) if (m.container?.package) present.add(m.container.package.toLowerCase());
    const missing = new Map();
    for (const model of ctx.models) {
      if (!model.container) continue;
      for (const material of model.materials) {
        const path = material.textureNames[0];
        if (!path?.includes('.')) continue;
        const pkg = path.slice(0, path.indexOf('.'));
        if (present.has(pkg.toLowerCase())) continue;
        const k = `${model.container.path}\n${pkg.toLowerCase()}`;
        let record = missing.get(k);
        if (!record) {
          record = { kind: 'missing', files: [model.container.path], needs: `${pkg}.u or .utx`, paths: [] };
          missing.set(k, record);
          ctx.records.push(record);
        }
        if (!record.paths.includes(path)) record.paths.push(path);
        record.reason = `the package of ${[...record.paths].sort().join(', ')}`;
      }
    }
    return [];
  },

  /**
   * A slot's texture by its object path, in any package of the drop; then by name in the package
   * it names when the groups differ (§11.5). Else null: a loose texture of the slot's name, if one
   * was dropped, is found by the generic rule after this.
   */
  resolveMaterial(material, ctx, model) {
    const [path, name] = material.textureNames;
    if (!path || !path.includes('.')) return null;
    const exact = ctx.findTexture(path, model);
    if (exact) return { texture: exact, rule: 'object path' };
    const pkg = path.slice(0, path.indexOf('.')).toLowerCase();
    const byName = (ctx.textures ?? []).find(
      (t) => t.package?.toLowerCase() === pkg && t.name.toLowerCase() === String(name ?? '').toLowerCase(),
    );
    return byName ? { texture: byName, rule: 'object name' } : null;
  },
};
