// `rigscope inspect`: what each file is, its counts, sequences, bounds and warnings, one record per
// file in input order; files given together are assembled into one scene as in the viewer, and
// each record says what the file was paired with, bound to or why it was not used.
import { canHost, fitAnimation } from '../src/core/scene.js';
import { assembleScene, decodeFiles, familyById } from '../src/families/index.js';
import { describeRecord } from '../src/core/report.js';
import { createHash } from 'node:crypto';

function bounds(model) {
  const b = model.meshes.map((m) => m.bounds).filter(Boolean);
  if (!b.length) return undefined;
  return {
    min: [0, 1, 2].map((k) => Math.min(...b.map((x) => x.min[k]))),
    max: [0, 1, 2].map((k) => Math.max(...b.map((x) => x.max[k]))),
  };
}

function sequences(model) {
  if (model.vertexAnimation) {
    return model.vertexAnimation.sequences.map((s) => ({
      name: s.name,
      frames: s.frameCount,
      fps: s.rate,
      duration: s.frameCount / (s.rate || 30),
      startFrame: s.startFrame,
      group: s.group || undefined,
      notifies: s.notifies?.length ? s.notifies : undefined,
    }));
  }
  return (model.clips ?? []).map((c) => ({ name: c.name, frames: c.frameCount, fps: c.fps, duration: c.frameCount / c.fps, loop: c.loop }));
}

/** A bone name as the scene matches it (core/scene.js): trailing blanks and NULs cut, lower case. */
const boneKey = (name) =>
  String(name)
    .replace(/[\s\0]+$/, '')
    .toLowerCase();

/**
 * What an animation binds by, as one string that a host (a wiki) can look up in an index: a mesh
 * and an animation with the same key fit each other by fitAnimation's rule. Animations bound by
 * name: a hash of their sorted bone names (duplicates kept); by index (0 A.D.): the bone count.
 * Only skinned meshes (canHost) and animations have one.
 */
function bindKey(model) {
  if (model.bindBy === 'index') {
    const n = model.counts?.bones ?? model.skeleton?.names.length ?? 0;
    return n > 0 ? `index:${n}` : undefined;
  }
  if (model.bindBy !== 'name' || !model.skeleton?.names.length) return undefined;
  const names = model.skeleton.names.map(boneKey).sort();
  return `name:${createHash('sha1').update(names.join('\n')).digest('hex').slice(0, 24)}`;
}

/**
 * @param {{ lod?: number | 'all', layout?: boolean }} [options] layout: false when only the records are
 *   wanted (`rigscope inspect`): the scene's layout and sky-dome test are for `scene`'s offsets
 * @returns {Promise<{ records: object[], scene: object }>} one record per input entry, in input order
 */
export async function inspect(entries, decoder, { lod, layout = true } = {}) {
  // A walk of a tree on disk has no file cap: caps belong to a single drop in the page.
  const decoded = await decodeFiles(entries, decoder, { maxFiles: Infinity });
  const scene = await assembleScene(decoded, { lod, layout });
  const records = new Map(
    entries.map((e) => [e.path, { file: e.path, format: undefined, counts: {}, sequences: [], warnings: [], error: null }]),
  );
  for (const model of [...decoded.models, ...decoded.animations]) describeDecode(records, model, decoded);
  await describeContainers(records, decoded, entries, decoder);
  describeTextures(records, decoded);
  for (const t of decoded.texts) records.get(t.path).format ??= t.kind;
  describePairings(records, decoded);
  describeSceneRecords(records, scene);
  for (const r of records.values()) {
    r.format ??= 'unknown';
    if (!Object.keys(r.counts).length) delete r.counts;
    if (!r.sequences.length) delete r.sequences;
  }
  return { records: [...records.values()], scene };
}

/** A model's or an animation's record: format, counts, clips, bounds, what it pairs with. */
function describeDecode(records, model, decoded) {
  const r = records.get(model.file);
  // An object of a container (a mesh in a UE1 package) is told of in its container's record.
  if (!r) return;
  Object.assign(r, { format: model.format, counts: { ...model.counts }, sequences: sequences(model), warnings: [...model.warnings] });
  const b = bounds(model);
  if (b) r.bounds = b;
  if (Object.keys(model.info ?? {}).length) r.info = { ...model.info };
  if (model.attachments?.length) r.attachments = model.attachments.map((a) => ({ name: a.name, bone: a.bone }));
  const key = decoded.animations.includes(model) || canHost(model) ? bindKey(model) : undefined;
  if (key) r.bindKey = key;
  for (const other of model.files.slice(1)) {
    const c = records.get(other);
    c.format ??= 'companion';
    c.pairedWith = [model.file];
  }
  if (model.files.length > 1) r.pairedWith = model.files.slice(1);
}

/** What each container holds, in its family's words (a UE1 package's version, classes, meshes, textures). */
async function describeContainers(records, decoded, entries, decoder) {
  for (const c of decoded.containers) {
    const r = records.get(c.path);
    if (!r) continue;
    r.format = c.format;
    const family = familyById(c.family);
    const entry = entries.find((e) => e.path === c.path);
    if (family?.inspect && entry) r.package = await family.inspect(c, { ...decoded, decoder, entry });
    for (const w of r.package?.warnings ?? []) r.warnings.push(w);
  }
}

/** Texture files and the textures of arenas, with their sizes, formats and mip counts. */
function describeTextures(records, decoded) {
  for (const t of decoded.textures) {
    const r = records.get(t.path);
    // A texture a family decodes when used belongs to a container, told of above.
    if (t.load) continue;
    r.format ??= t.decoded ? 'texture' : 'image';
    if (t.decoded)
      (r.textures ??= []).push({
        name: t.name,
        guid: t.guid,
        width: t.decoded.width,
        height: t.decoded.height,
        format: t.decoded.format,
        mips: t.decoded.mips.length,
      });
  }
}

/**
 * Every mesh of the drop an animation was weighed against (each part and each level of detail,
 * not only the character it was bound to), with its bones matched and missing, and the verdict.
 */
function describePairings(records, decoded) {
  const meshes = decoded.models.filter(canHost);
  for (const anim of decoded.animations) {
    const r = records.get(anim.file);
    if (!r) continue;
    const pairing = meshes
      .filter((m) => m.bindBy === anim.bindBy)
      .map((model) => {
        const fit = fitAnimation({ host: model }, anim);
        const counts = {
          matched: fit.matched,
          total: fit.total,
          byIndex: !!fit.byIndex,
          missing: fit.missing ?? [],
          extra: fit.extra ?? [],
        };
        return fit.ok ? { mesh: model.file, fits: true, ...counts } : { mesh: model.file, fits: false, ...counts, error: fit.reason };
      });
    if (pairing.length) r.pairing = pairing;
  }
}

/** What assembling said of each file: refusals, bindings, texture uses, warnings. */
function describeSceneRecords(records, scene) {
  for (const x of scene.records) {
    for (const file of x.files.slice(0, x.kind === 'refused' ? undefined : 1)) {
      const r = records.get(file);
      if (!r) continue;
      if (x.kind === 'refused') r.error ??= x.reason;
      else if (x.kind === 'bound') r.boundTo = x.files[1];
      else if (x.kind === 'texture') {
        if (!r.package) (r.usedBy ??= []).push(`${x.reason} (${x.via})`);
      } else if (x.kind === 'missing' || x.kind === 'unused' || x.kind === 'unbound')
        r.warnings.push(describeRecord(x).replace(/^[^:]*: /, ''));
    }
  }
}

const num = (x) => +x.toFixed(3);

export function formatText(records) {
  const lines = [];
  for (const r of records) {
    lines.push(`${r.file}: ${r.format}${r.error ? '  ERROR' : ''}`);
    if (r.error) lines.push(`  error: ${r.error}`);
    if (r.counts)
      lines.push(
        `  ${Object.entries(r.counts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    if (r.bounds)
      lines.push(
        `  bounds min (${r.bounds.min.map((x) => x.toFixed(3)).join(', ')}) max (${r.bounds.max.map((x) => x.toFixed(3)).join(', ')})`,
      );
    for (const [k, v] of Object.entries(r.info ?? {})) {
      if (r.counts && String(r.counts[k]) === String(v)) continue; // already on the counts line
      lines.push(`  ${k}: ${v}`);
    }
    for (const s of r.sequences ?? []) {
      const at =
        s.startFrame === undefined
          ? ''
          : s.frames > 1
            ? `frames ${s.startFrame}–${s.startFrame + s.frames - 1}, `
            : `frame ${s.startFrame}, `;
      lines.push(
        `  sequence ${s.name}: ${at}${s.frames} frames @ ${num(s.fps)} fps, ${s.duration.toFixed(3)} s${s.group ? `, group ${s.group}` : ''}${s.loop === false ? ', plays once' : ''}`,
      );
      for (const n of s.notifies ?? []) lines.push(`    notify ${n.name} at ${n.time.toFixed(3)} s`);
    }
    if (r.attachments?.length)
      lines.push(`  attachments: ${r.attachments.map((p) => `${p.name} (${p.bone >= 0 ? `bone ${p.bone}` : 'model origin'})`).join(', ')}`);
    if (r.textures?.length > 1) lines.push(`  textures: ${r.textures.length}`);
    for (const t of r.textures ?? [])
      lines.push(
        `  texture ${t.name}${t.guid ? ` guid ${t.guid}` : ''}: ${t.width}x${t.height} ${t.format}, ${t.mips} mip${t.mips === 1 ? '' : 's'}`,
      );
    if (r.package) lines.push(...packageLines(r.package));
    for (const p of r.pairing ?? []) {
      const counts = `${p.matched}/${p.total} bones matched${p.byIndex ? ' (by index)' : ''}; ${p.missing.length} mesh bones without a track; ${p.extra.length} animation bones not in the mesh`;
      lines.push(p.fits ? `  pairing with ${p.mesh}: ${counts}` : `  pairing with ${p.mesh}: refused — ${p.error} (${counts})`);
    }
    if (r.boundTo) lines.push(`  plays on ${r.boundTo}`);
    if (r.pairedWith) lines.push(`  paired with ${r.pairedWith.join(', ')}`);
    for (const u of r.usedBy ?? []) lines.push(`  used as ${u}`);
    for (const w of r.warnings) lines.push(`  warning: ${w}`);
  }
  return lines.join('\n');
}

/** A UE1 package's facts as lines: version, exports by class, every mesh and texture. */
function packageLines(p) {
  const lines = [];
  lines.push(
    `  package ${p.name}, version ${p.version}${p.licenseeVersion ? `/${p.licenseeVersion}` : ''}: ${p.counts.names} names, ${p.counts.imports} imports, ${p.counts.exports} exports`,
  );
  const classes = Object.entries(p.classes).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  lines.push(`  classes: ${classes.map(([c, n]) => `${c} ${n}`).join(', ')}`);
  for (const m of p.meshes) {
    if (m.decoded === false) {
      lines.push(`  mesh ${m.object} (${m.className}): not decoded`);
      continue;
    }
    lines.push(
      `  mesh ${m.object} (${m.className}): ${m.vertices} vertices, ${m.frames} frame${m.frames === 1 ? '' : 's'}, ${m.triangles} triangles, ${m.sequences.length} sequence${m.sequences.length === 1 ? '' : 's'}`,
    );
    for (const s of m.sequences) {
      const at =
        s.startFrame === undefined
          ? ''
          : s.frames > 1
            ? `frames ${s.startFrame}–${s.startFrame + s.frames - 1}, `
            : `frame ${s.startFrame}, `;
      lines.push(`    sequence ${s.name}: ${at}${s.frames} frames @ ${num(s.fps)} fps`);
    }
  }
  for (const t of p.textures) {
    if (t.error) {
      lines.push(`  texture ${t.object} (${t.className}): ${t.error}`);
      continue;
    }
    const extra = [
      `${t.mips} mip${t.mips === 1 ? '' : 's'}`,
      t.palette && `palette ${t.palette}`,
      t.masked && 'masked',
      t.compMips && `${t.compMips} ${t.compFormat} mips`,
      t.placeholder && `placeholder (${t.placeholder})`,
    ].filter(Boolean);
    lines.push(`  texture ${t.object} (${t.className}): ${t.format} ${t.width}x${t.height}, ${extra.join(', ')}`);
  }
  if (p.palettes) lines.push(`  palettes: ${p.palettes}`);
  if (p.uses?.length) lines.push(`  textures from: ${p.uses.join(', ')}`);
  return lines;
}
