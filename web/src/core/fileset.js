// Turns a set of dropped files into decoded models, animations and textures, with a report of
// what was paired with what, what is missing and what was refused. Formats are detected by
// content; names only pair companions (foo_d.3d ↔ foo_a.3d, anim.psa ↔ anim.config).
import { baseName, extension, IMAGE_EXTENSIONS, readText, stem, textureKey } from './files.js';

const HEAD_BYTES = 65536;

export function emptyReport() {
  return { pairs: [], missing: [], refused: [], notes: [] };
}

/** Detects each entry's kind from its first bytes (and size, for headerless UE1 files). */
export async function classify(entries, decoder) {
  const out = [];
  for (const entry of entries) {
    const ext = extension(entry.name);
    let kind;
    if (IMAGE_EXTENSIONS.has(ext)) kind = 'image';
    else if (ext === 'xml') kind = 'xml';
    else if (entry.size === 0) kind = 'empty';
    else kind = await decoder.call('detectFormat', [await entry.readHead(HEAD_BYTES), entry.size, entry.name]);
    out.push({ entry, kind });
  }
  return out;
}

/**
 * 0 A.D. archive and cache names to the plain name the game's actors use: `X.dae.cached.pmd` (release
 * archives) and `X.dae.0123456789abcdef.pmd` (loose cache) are `X.pmd`; `X.png.cached.dds` is `X.png`.
 */
export function plainName(name) {
  return baseName(name)
    .replace(/\.dae\.(?:cached|[0-9a-f]{16})\.(pmd|psa)$/i, '.$1')
    .replace(/\.cached\.dds$/i, '');
}

const ue1Base = (name) => stem(name).replace(/_[ad]$/i, '').toLowerCase();

/**
 * Decodes a whole file set.
 * @returns {Promise<{ models: object[], animations: object[], textures: object[], xml: object[], report: object }>}
 */
export async function loadFileSet(entries, decoder, { onProgress } = {}) {
  const items = await classify(entries, decoder);
  const result = { models: [], animations: [], textures: [], xml: [], report: emptyReport() };
  const { report } = result;
  const byKind = (k) => items.filter((i) => i.kind === k);
  const total = items.length;
  let done = 0;
  const step = (name) => onProgress?.({ done: ++done, total, name });

  const decode = async (item, op, args, sink) => {
    try {
      const model = await decoder.call(op, args);
      model.file = plainName(item.entry.name);
      if (model.file !== item.entry.name) model.archiveName = item.entry.name;
      model.path = item.entry.path;
      sink.push(model);
      return model;
    } catch (err) {
      report.refused.push({ file: item.entry.name, reason: err.message });
      return null;
    } finally {
      step(item.entry.name);
    }
  };

  for (const item of byKind('psk')) await decode(item, 'decodePsk', [await item.entry.read(), item.entry.name], result.models);

  const configs = byKind('config');
  for (const item of byKind('psa')) {
    const config = configs.find((c) => stem(c.entry.name).toLowerCase() === stem(item.entry.name).toLowerCase());
    const configText = config ? await readText(config.entry) : '';
    const anim = await decode(item, 'decodePsa', [await item.entry.read(), item.entry.name, configText], result.animations);
    if (anim && config) {
      report.pairs.push(`${item.entry.name} ↔ ${config.entry.name} (sidecar)`);
      config.used = true;
    }
  }
  for (const c of configs) if (!c.used) report.notes.push(`${c.entry.name}: no .psa of the same name to apply it to`);

  for (const item of byKind('pmd')) await decode(item, 'decodePmd', [await item.entry.read(), item.entry.name], result.models);
  for (const item of byKind('pssa')) {
    // The engine ignores the PSSA name field ("God Knows", "test_anim"): clips go by file name.
    const anim = await decode(item, 'decodePssa', [await item.entry.read(), item.entry.name], result.animations);
    if (anim) for (const c of anim.clips) c.name = stem(anim.file);
  }

  // UE1: a mesh is its _d.3d and _a.3d; the .uc that imports it brings sequences and textures.
  const anims = byKind('ue1-anim');
  const scripts = byKind('uc');
  const scriptTexts = await Promise.all(scripts.map((s) => readText(s.entry)));
  const names = (base) => new RegExp(`\\b${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_d\\.3d\\b`, 'i');
  const datas = byKind('ue1-data');
  for (const item of datas) {
    const base = ue1Base(item.entry.name);
    const anim = anims.find((a) => ue1Base(a.entry.name) === base);
    if (!anim) {
      report.missing.push(`${item.entry.name}: its animation file ${base}_a.3d (vertex positions live there)`);
      step(item.entry.name);
      continue;
    }
    anim.used = true;
    // The script that imports it; else one of the same name (Deus Ex classes without #exec lines);
    // else a lone script, unless that one imports another mesh dropped here.
    let s = scripts.findIndex((_, i) => names(base).test(scriptTexts[i]));
    if (s < 0) s = scripts.findIndex((c) => stem(c.entry.name).toLowerCase() === base);
    if (s < 0 && scripts.length === 1 && !datas.some((d) => d !== item && names(ue1Base(d.entry.name)).test(scriptTexts[0]))) s = 0;
    const ucText = s >= 0 ? scriptTexts[s] : '';
    const ucName = s >= 0 ? scripts[s].entry.name : '';
    const model = await decode(item, 'decodeUe1',
      [await item.entry.read(), item.entry.name, await anim.entry.read(), anim.entry.name, ucText, ucName], result.models);
    if (model) {
      report.pairs.push(`${item.entry.name} ↔ ${anim.entry.name}${ucName ? ` ↔ ${ucName}` : ''}`);
      if (s >= 0) scripts[s].used = true;
    }
  }
  for (const a of anims) if (!a.used) { report.missing.push(`${a.entry.name}: its data file ${ue1Base(a.entry.name)}_d.3d`); step(a.entry.name); }
  for (const s of scripts) if (!s.used) report.notes.push(`${s.entry.name}: no mesh dropped with it`);

  for (const item of byKind('psg')) {
    const sink = [];
    const model = await decode(item, 'decodePsg', [await item.entry.read(), item.entry.name], sink);
    if (!model) continue;
    for (const t of model.textures) result.textures.push({ key: t.guid ?? textureKey(t.name), name: t.name, guid: t.guid, decoded: t, file: item.entry.name });
    if (model.meshes.length) result.models.push(model);
  }

  for (const item of byKind('pcx')) {
    const sink = [];
    const model = await decode(item, 'decodePcx', [await item.entry.read(), item.entry.name, true], sink);
    if (model) for (const t of model.textures) result.textures.push({ key: textureKey(item.entry.name), name: item.entry.name, decoded: t, file: item.entry.name });
  }
  for (const item of byKind('image')) {
    result.textures.push({ key: textureKey(item.entry.name), name: item.entry.name, entry: item.entry, file: item.entry.name });
    step(item.entry.name);
  }
  for (const item of byKind('xml')) { result.xml.push(item.entry); step(item.entry.name); }

  for (const item of items) {
    if (item.kind === 'unknown' || item.kind === 'empty') {
      report.refused.push({ file: item.entry.name, reason: item.kind === 'empty' ? 'the file is empty' : 'not a format Rigscope reads (detected by content, not extension)' });
      step(item.entry.name);
    }
  }
  return result;
}

export { baseName };
