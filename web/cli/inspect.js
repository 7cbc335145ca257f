// `rigscope inspect`: what each file is, its counts, sequences, bounds and warnings; files given
// together are paired as in the viewer (PSA against PSK, PSSA against PMD by bone count).
import { loadFileSet, plainName } from '../src/core/fileset.js';
import { matchBonesByCount, matchBonesByName } from '../src/core/match.js';

function bounds(model) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const m of model.meshes) {
    const p = m.positions;
    for (let i = 0; i < p.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        if (p[i + k] < min[k]) min[k] = p[i + k];
        if (p[i + k] > max[k]) max[k] = p[i + k];
      }
    }
  }
  return min[0] === Infinity ? undefined : { min, max };
}

function sequences(model) {
  if (model.vertexAnimation) {
    return model.vertexAnimation.sequences.map((s) => ({
      name: s.name, frames: s.frameCount, fps: s.rate, duration: s.frameCount / (s.rate || 30), startFrame: s.startFrame, group: s.group || undefined,
    }));
  }
  return (model.clips ?? []).map((c) => ({ name: c.name, frames: c.frameCount, fps: c.fps, duration: c.frameCount / c.fps }));
}

/** @returns {Promise<object[]>} one record per input entry, in input order */
export async function inspect(entries, decoder) {
  const kinds = new Map();
  const set = await loadFileSet(entries, decoder);
  const records = new Map(entries.map((e) => [e.name, { file: e.path, format: undefined, counts: {}, sequences: [], warnings: [], error: null }]));
  // 0 A.D. archive names (X.dae.cached.pmd) are known by their plain names (X.pmd) too.
  for (const e of entries) if (!records.has(plainName(e.name))) records.set(plainName(e.name), records.get(e.name));
  for (const model of [...set.models, ...set.animations]) {
    const r = records.get(model.file);
    if (!r) continue;
    Object.assign(r, { format: model.format, counts: { ...model.counts }, sequences: sequences(model), warnings: [...model.warnings] });
    const b = bounds(model);
    if (b) r.bounds = b;
    if (Object.keys(model.info ?? {}).length) r.info = { ...model.info };
    if (model.format === 'pmd') r.props = (model.attachments ?? []).map((a) => ({ name: a.name, bone: a.bone }));
    kinds.set(model.file, model);
  }
  for (const t of set.textures) {
    const r = records.get(t.file);
    if (!r) continue;
    r.format ??= t.decoded ? (t.file.toLowerCase().endsWith('.pcx') ? 'pcx' : 'psg') : 'image';
    if (t.decoded) (r.textures ??= []).push({ name: t.name, guid: t.guid, width: t.decoded.width, height: t.decoded.height, format: t.decoded.format, mips: t.decoded.mips.length });
  }
  for (const x of set.report.refused) {
    const r = records.get(x.file);
    if (r && !r.error) r.error = x.reason;
  }
  for (const p of set.report.pairs) {
    const names = p.split(/ ↔ | → /).map((s) => s.replace(/ \(.*$/, ''));
    for (const n of names) {
      const r = records.get(n);
      if (r && !r.format) r.format = 'companion';
      if (r) r.pairedWith = names.filter((m) => m !== n);
    }
  }
  // Pair animations with meshes as the viewer does and record the verdict on the animation.
  const meshes = set.models.filter((m) => m.skeleton);
  for (const anim of set.animations) {
    const r = records.get(anim.file);
    const matches = [];
    for (const mesh of meshes) {
      if ((anim.format === 'pssa') !== (mesh.format === 'pmd')) continue;
      const m = anim.format === 'pssa'
        ? matchBonesByCount(mesh.counts.bones, anim.counts.bones, anim.file, mesh.file)
        : matchBonesByName(mesh.skeleton.names, anim.skeleton.names);
      matches.push(m.error
        ? { mesh: mesh.file, error: m.error }
        : { mesh: mesh.file, matched: m.matched, total: anim.skeleton?.names.length ?? anim.counts.bones, byIndex: m.byIndex, missing: m.missing, extra: m.extra });
    }
    if (matches.length) r.pairing = matches;
  }
  for (const m of set.report.missing) {
    const file = m.split(':')[0];
    const r = records.get(file);
    if (r) r.warnings.push(`missing ${m.slice(file.length + 2)}`);
  }
  for (const r of records.values()) {
    r.format ??= 'unknown';
    if (!Object.keys(r.counts).length) delete r.counts;
    if (!r.sequences.length) delete r.sequences;
  }
  return [...new Set(records.values())];
}

// UE1 triangle Type byte: render type (low nibble) and flag bits (spec §2.3).
const UE1_TYPES = { 0: 'normal', 1: 'two-sided', 2: 'translucent', 3: 'masked', 4: 'modulated', 5: 'alpha blend', 8: 'weapon' };
const UE1_FLAGS = [[16, 'unlit'], [32, 'flat'], [64, 'environment'], [128, 'no smooth']];

function ue1Types(histogram) {
  return histogram.split(' ').map((pair) => {
    const [type, count] = pair.split(':').map(Number);
    const names = [UE1_TYPES[type & 15] ?? `type ${type & 15} (drawn as normal)`, ...UE1_FLAGS.filter(([bit]) => type & bit).map(([, n]) => n)];
    return `${type} ${names.join('+')} ×${count}`;
  }).join(', ');
}

const INFO_LABELS = { types: 'triangle types', textureNumbers: 'texture numbers', ucMesh: 'script mesh' };

export function formatText(records) {
  const lines = [];
  for (const r of records) {
    lines.push(`${r.file}: ${r.format}${r.error ? '  ERROR' : ''}`);
    if (r.error) lines.push(`  error: ${r.error}`);
    if (r.counts) lines.push(`  ${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (r.bounds) lines.push(`  bounds min (${r.bounds.min.map((x) => x.toFixed(3)).join(', ')}) max (${r.bounds.max.map((x) => x.toFixed(3)).join(', ')})`);
    for (const [k, v] of Object.entries(r.info ?? {})) {
      if (r.counts && String(r.counts[k]) === String(v)) continue; // already on the counts line
      lines.push(`  ${INFO_LABELS[k] ?? k}: ${r.format === 'ue1' && k === 'types' ? ue1Types(v) : v}`);
    }
    for (const s of r.sequences ?? []) {
      const at = s.startFrame === undefined ? '' : s.frames > 1 ? `frames ${s.startFrame}–${s.startFrame + s.frames - 1}, ` : `frame ${s.startFrame}, `;
      lines.push(`  sequence ${s.name}: ${at}${s.frames} frames @ ${+s.fps.toFixed(3)} fps, ${s.duration.toFixed(3)} s${s.group ? `, group ${s.group}` : ''}`);
    }
    if (r.props?.length) lines.push(`  props: ${r.props.map((p) => `${p.name} (${p.bone >= 0 ? `bone ${p.bone}` : 'model origin'})`).join(', ')}`);
    if (r.textures?.length > 1) lines.push(`  textures: ${r.textures.length}`);
    for (const t of r.textures ?? []) lines.push(`  texture ${t.name}${t.guid ? ` guid ${t.guid}` : ''}: ${t.width}x${t.height} ${t.format}, ${t.mips} mip${t.mips === 1 ? '' : 's'}`);
    for (const p of r.pairing ?? []) {
      lines.push(p.error ? `  pairing with ${p.mesh}: refused — ${p.error}`
        : `  pairing with ${p.mesh}: ${p.matched}/${p.total} bones matched${p.byIndex ? ' (by index)' : ''}; ${p.missing.length} mesh bones without a track; ${p.extra.length} animation bones not in the mesh`);
    }
    if (r.pairedWith) lines.push(`  paired with ${r.pairedWith.join(', ')}`);
    for (const w of r.warnings) lines.push(`  warning: ${w}`);
  }
  return lines.join('\n');
}
