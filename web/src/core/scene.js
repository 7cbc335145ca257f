// The scene assembler: everything decoded so far (every drop) becomes one scene of characters,
// each animation bound to one best target, each material's texture with the rule that chose it,
// and a structured report. No three.js: the viewer, the embed page, the CLI and the loaders all
// build from this one description. Formats are never named here: the decoders say how their
// animations bind (`bindBy`), and family entries add what only they know (actors, fallbacks).
import { baseName, stem, textureKey } from './files.js';
import { matchBonesByName } from './match.js';
import { familyById, requireFamilies } from './registry.js';
import { characterBounds, facesInward, layoutCharacters } from './layout.js';
import { slicer } from './tasks.js';

/** An animation binds by name when at least this share of its bones exist in the target. */
const MIN_NAME_SHARE = 0.5;
/** Parts join a character when their shared bones rest within this share of its size. */
const POSE_TOLERANCE = 0.02;

const key = (name) =>
  String(name)
    .replace(/[\s\0]+$/, '')
    .toLowerCase();
const isSkinned = (m) => !!m.skeleton && m.meshes.some((x) => x.skinIndex);
/** A model animations can play on (a skinned mesh): what `fitAnimation({ host: model }, anim)` takes. */
export const canHost = isSkinned;
/** Real joints: a skeleton's helper bone (0 A.D.'s bind shape) is not one. */
const jointCount = (m) => m.counts?.bones ?? m.skeleton?.names.length ?? 0;

/** Rest-pose world positions of a skeleton's bones, whatever order parents come in. */
function restWorld(skel) {
  const n = skel.names.length;
  const t = skel.restTranslation,
    r = skel.restRotation;
  const pos = new Float64Array(n * 3),
    rot = new Float64Array(n * 4);
  const done = new Uint8Array(n);
  const chain = [];
  for (let start = 0; start < n; start++) {
    // Walk up to the first solved (or root) ancestor, then solve back down; a cycle stops the walk.
    chain.length = 0;
    for (let i = start; i >= 0 && i < n && !done[i] && chain.length <= n; i = skel.parents[i] === i ? -1 : skel.parents[i]) chain.push(i);
    for (let k = chain.length - 1; k >= 0; k--) {
      const i = chain[k];
      if (done[i]) continue;
      const p = skel.parents[i];
      const rooted = p >= 0 && p < n && p !== i && done[p];
      const [px, py, pz] = rooted ? [pos[p * 3], pos[p * 3 + 1], pos[p * 3 + 2]] : [0, 0, 0];
      const [qx, qy, qz, qw] = rooted ? [rot[p * 4], rot[p * 4 + 1], rot[p * 4 + 2], rot[p * 4 + 3]] : [0, 0, 0, 1];
      // world = parent ∘ local: position = parentPos + parentRot · localPos (v' = q v q*).
      const [vx, vy, vz] = [t[i * 3], t[i * 3 + 1], t[i * 3 + 2]];
      const ix = qw * vx + qy * vz - qz * vy,
        iy = qw * vy + qz * vx - qx * vz;
      const iz = qw * vz + qx * vy - qy * vx,
        iw = -qx * vx - qy * vy - qz * vz;
      pos[i * 3] = px + ix * qw - iw * qx - iy * qz + iz * qy;
      pos[i * 3 + 1] = py + iy * qw - iw * qy - iz * qx + ix * qz;
      pos[i * 3 + 2] = pz + iz * qw - iw * qz - ix * qy + iy * qx;
      const [bx, by, bz, bw] = [r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]];
      rot[i * 4] = qx * bw + qw * bx + qy * bz - qz * by;
      rot[i * 4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
      rot[i * 4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
      rot[i * 4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
      done[i] = 1;
    }
  }
  return pos;
}

/** part bone → host bone by name (duplicates consumed in order), or null when one is missing. */
function boneMapInto(host, part) {
  const slots = new Map();
  host.skeleton.names.forEach((n, i) => {
    const k = key(n);
    if (!slots.has(k)) slots.set(k, []);
    slots.get(k).push(i);
  });
  const map = new Int32Array(part.skeleton.names.length);
  for (let i = 0; i < map.length; i++) {
    const s = slots.get(key(part.skeleton.names[i]))?.shift();
    if (s === undefined) return null;
    map[i] = s;
  }
  return map;
}

/**
 * A root bone's name (Root, ROOT, bip01) is shared by unrelated skeletons: a part must share a
 * bone below the host's root to be one of its parts. A bone under the skeleton's helper (a bone
 * that is no joint: a UE1 script's MESH ORIGIN) is a root all the same.
 */
function sharesLimb(host, map) {
  const { parents, helperBone = -1 } = host.skeleton;
  return map.some((h) => parents[h] >= 0 && parents[h] !== h && parents[h] !== helperBone);
}

/** True when the part's bones rest where the host's bones of the same names rest. */
function posesAgree(host, part, map) {
  host.restWorld ??= restWorld(host.skeleton);
  part.restWorld ??= restWorld(part.skeleton);
  const h = host.restWorld,
    p = part.restWorld;
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < h.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], h[i]);
    hi[i % 3] = Math.max(hi[i % 3], h[i]);
  }
  const size = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
  let sum = 0;
  for (let i = 0; i < map.length; i++) {
    const a = map[i] * 3,
      b = i * 3;
    sum += Math.hypot(h[a] - p[b], h[a + 1] - p[b + 1], h[a + 2] - p[b + 2]);
  }
  return sum / Math.max(1, map.length) <= POSE_TOLERANCE * size;
}

/** A file name as kinship compares it: its stem in lower case. */
const kinName = (name) => stem(name).toLowerCase();

/** Length of the common start of two kin names: horse_walk.psa is closer to horse.pmd than to cart.pmd. */
function kinship(x, y) {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

const byPath = (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
const folderOf = (path) => String(path ?? '').slice(0, String(path ?? '').length - baseName(String(path ?? '')).length);
const vertexCount = (m) => m.meshes.reduce((n, x) => n + x.positions.length / 3, 0);

/**
 * Levels of detail: models of one folder that their family names as levels of one part (UE Viewer's
 * X, X_Lod1, X_Lod2) are one part, not parts drawn on top of each other. Levels must bind alike and
 * have as many bones. Returns the groups of two levels or more: { name, levels: [{ level, model }] }.
 */
function lodGroups(models, families) {
  // One model has no other levels (a loader's single file: no name rules run).
  if (models.length < 2) return [];
  const groups = new Map();
  for (const model of models) {
    const of = familyById(families, model.family)?.levelOf?.(model.file ?? model.name ?? '');
    if (!of) continue;
    const k = `${model.family}|${folderOf(model.file)}|${of.part.toLowerCase()}`;
    if (!groups.has(k)) groups.set(k, { name: of.part, levels: [] });
    groups.get(k).levels.push({ level: of.level, model });
  }
  const out = [];
  for (const g of groups.values()) {
    g.levels.sort((a, b) => a.level - b.level || byPath(a.model, b.model));
    const base = g.levels[0].model;
    const alike = (m) => m.bindBy === base.bindBy && isSkinned(m) === isSkinned(base) && jointCount(m) === jointCount(base);
    // One model a level (the first by path); a model unlike the base stays a part of its own.
    const levels = [];
    for (const l of g.levels) if (alike(l.model) && !levels.some((x) => x.level === l.level)) levels.push(l);
    if (levels.length > 1) out.push({ name: g.name, levels });
  }
  return out;
}

/** The level shown for `lod`: that level, else the coarsest one finer than it, else the finest. */
const shownLevel = (levels, lod) => [...levels].reverse().find((l) => l.level <= lod) ?? levels[0];

/**
 * The model a character is named after: its body part (a file name with "body" in it), else its
 * part with the most vertices, never whichever file came first (arms, a hat). A part of several
 * levels is named by its finest level, so the name does not change with the level shown.
 */
function namesake(c) {
  const named = (p) => p.lod?.levels[0].model ?? p.model;
  const body = c.parts.find((p) => /body/i.test(stem(named(p).file ?? '')));
  return named(body ?? c.parts.reduce((a, b) => (vertexCount(named(b)) > vertexCount(named(a)) ? b : a)));
}

/** A character of one mesh with its own clips (loaders, tests); scenes make theirs in assembleScene. */
export function characterOf(model) {
  const c = newCharacter(model);
  ownClips(c);
  c.materials = model.materials.map((m, index) => ({ model, index, name: m.name, texture: null, rule: null }));
  return c;
}

function newCharacter(host, name = baseName(host.file ?? host.name ?? 'model')) {
  return {
    id: host.file,
    name,
    host,
    models: [host],
    parts: [{ model: host, boneMap: null }],
    skeleton: isSkinned(host) ? host.skeleton : null,
    bindBy: host.bindBy,
    family: host.family,
    animations: [],
    clips: [],
    materials: [],
    props: [],
    textureHints: new Map(),
    drop: host.drop ?? 0,
  };
}

/** Clips of one character: the mesh's own (vertex sequences, embedded clips), then bound animations'. */
function ownClips(character) {
  const { host } = character;
  const va = host.vertexAnimation;
  for (const seq of va?.sequences ?? []) {
    character.clips.push({
      kind: 'vertex',
      name: seq.name,
      frames: seq.frameCount,
      fps: seq.rate,
      loop: true,
      notifies: seq.notifies ?? [],
      file: host.files?.[1] ?? host.file,
      sequence: seq,
      firstFrame: seq.startFrame,
      group: seq.group || undefined,
    });
  }
  for (const clip of host.clips ?? []) {
    character.clips.push({
      kind: 'skeletal',
      name: clip.name,
      frames: clip.frameCount,
      fps: clip.fps,
      loop: clip.loop,
      notifies: clip.notifies ?? [],
      file: host.file,
      clip,
      map: null,
      firstFrame: 0,
    });
  }
  if (va) {
    character.animations.push({
      file: host.files?.[1] ?? host.file,
      by: host.bindBy,
      matched: va.vertexCount,
      total: va.vertexCount,
      clips: character.clips.slice(),
    });
  } else if (host.clips?.length) {
    // Clips in the mesh's own file (a GLB): every bone is its own.
    const bones = host.skeleton?.names.length ?? 0;
    character.animations.push({ file: host.file, by: host.bindBy, matched: bones, total: bones, clips: character.clips.slice() });
  }
}

/** Binds an animation's clips to a character with a match result; names and speed may be overridden. */
export function bind(character, anim, match, { names = null, speed = 1, loop = null, via = anim.bindBy } = {}) {
  const clips = anim.clips.map((clip, i) => ({
    kind: 'skeletal',
    name: names?.[i] ?? clip.name,
    frames: clip.frameCount,
    fps: clip.fps,
    loop: loop ?? clip.loop,
    notifies: clip.notifies ?? [],
    file: anim.file,
    clip,
    map: match.map,
    speed,
    firstFrame: 0,
  }));
  character.clips.push(...clips);
  character.animations.push({
    file: anim.file,
    anim,
    by: via,
    matched: match.matched,
    total: match.total,
    missing: match.missing ?? [],
    extra: match.extra ?? [],
    clips,
  });
  return clips;
}

/** How well an animation fits a character's skeleton: { map, matched, total, ok, reason }. */
export function fitAnimation(character, anim) {
  const model = character.host;
  const total = anim.bindBy === 'index' ? (anim.counts?.bones ?? 0) : (anim.skeleton?.names.length ?? 0);
  if (anim.bindBy === 'index') {
    const bones = jointCount(model);
    if (bones !== total) return { ok: false, matched: 0, total, reason: `${total} bones, ${model.name} has ${bones}` };
    const map = new Int32Array(total).map((_, i) => i);
    return { ok: true, map, matched: total, total, byIndex: true, missing: [], extra: [] };
  }
  const m = matchBonesByName(model.skeleton.names, anim.skeleton?.names ?? []);
  const ok = m.matched > 0 && m.matched >= MIN_NAME_SHARE * total;
  const reason =
    m.matched === 0 ? `shares no bone names with ${model.name}` : `only ${m.matched} of its ${total} bones exist in ${model.name}`;
  return { ...m, total, ok, reason };
}

/**
 * Assembles the scene.
 * @param {{ models: object[], animations: object[], textures: object[], texts: object[], records: object[] }} decoded
 *   everything decoded so far (all drops), as decodeFiles returns it, concatenated
 * @param {{ families: object[], manual?: Map<string, string>, lod?: number | 'all', layout?: boolean }} options
 *   families: the family registry (web/src/families/), whose hooks add what only a family knows;
 *   manual: `${model file}#${material index}` → texture record id chosen by hand;
 *   lod: the level of detail shown of parts that have levels (0, the finest, by default), or
 *   'all': every level a part of its own, named with its level;
 *   layout: false leaves characters where their files put them, with no `offset`, `enclosing` or
 *   `hidden` (the loaders: an app places its own objects, and the sky-dome test is not run)
 */
export async function assembleScene(decoded, { families, manual = new Map(), lod = 0, layout = true } = {}) {
  requireFamilies(families, 'assembleScene');
  // A drop of a thousand characters is assembled in tasks: in one, it held the page for 150 ms.
  const pause = slicer();
  if (lod !== 'all' && !(Number.isInteger(lod) && lod >= 0)) throw new Error(`lod ${lod}: a level number from 0, or 'all'`);
  const records = [...decoded.records];
  const scene = { characters: [], boards: [], records };
  const usedModels = new Set(),
    usedAnims = new Set(),
    usedTextures = new Set(),
    usedTexts = new Set();
  const library = decoded.textures;
  const findTexture = textureFinder(library);

  // Family-built characters first (0 A.D. actors): they take the models and animations they name.
  const ctx = {
    models: decoded.models,
    animations: decoded.animations,
    texts: decoded.texts,
    textures: library,
    records,
    findTexture,
    newCharacter,
    bind,
    fitAnimation,
    usedModels,
    usedAnims,
    usedTexts,
    state: {},
  };
  const familyCharacters = [];
  for (const f of families) if (f.assemble && hasOwn(f, decoded)) familyCharacters.push(...(await f.assemble(ctx)));

  const free = decoded.models.filter((m) => !usedModels.has(m));
  const hosts = await characterHosts(free, { families, lod, records, pause });
  scene.characters = [...familyCharacters, ...hosts];

  await bindAnimations(
    scene,
    decoded.animations.filter((a) => !usedAnims.has(a)),
    records,
    pause,
  );
  await assignTextures(scene, library, { families, manual, findTexture, usedTextures, records, ctx, pause });

  const boardDrops = unusedTextures(decoded, usedTextures, records);
  if (layout) await layoutScene(scene, pause);
  scene.boards = [...boardDrops.entries()].map(([drop, textures]) => ({ id: `textures#${drop}`, drop, textures }));
  for (const t of decoded.texts) {
    if (!usedTexts.has(t)) records.push({ kind: 'unused', files: [t.path], reason: t.reason ?? 'not read by any family' });
  }
  return scene;
}

/**
 * Whether a family has anything of its own to assemble: a model it decoded, or a text of its
 * textKinds (0 A.D. actors, Unreal material sidecars). Its `assemble` reads nothing else, so it is
 * not asked without one (a loader's one mesh was assembled by four families, each an async call).
 */
const hasOwn = (family, decoded) =>
  decoded.models.some((m) => m.family === family.id) || decoded.texts.some((t) => family.textKinds?.includes(t.kind));

/** findTexture(name, near): the library's texture of that name, of `near`'s drop first. */
function textureFinder(library) {
  const byKey = new Map();
  for (const r of library) {
    if (!byKey.has(r.key)) byKey.set(r.key, []);
    byKey.get(r.key).push(r);
  }
  return (name, near) => {
    // A model loaded alone (the loaders) has no textures to look through: families' name rules
    // then cost nothing.
    if (!byKey.size) return null;
    const list = byKey.get(textureKey(name));
    return list?.find((r) => r.drop === near?.drop) ?? list?.[0] ?? null;
  };
}

/**
 * The characters of the models no family took: parts with levels reduced to the level shown,
 * meshes that share a larger one's skeleton joined to it as parts, each named after its namesake
 * and with its own clips, in the order their first file arrived.
 */
async function characterHosts(free, { families, lod, records, pause }) {
  const { lodOf, setAside } = levelsShown(free, families, lod);
  const hidden = new Set(setAside.map(([l]) => l.model));
  const order = free.filter((m) => !hidden.has(m)).sort((a, b) => jointCount(b) - jointCount(a) || byPath(a, b));
  const hosts = [];
  for (const model of order) {
    await pause();
    if (!joinHost(hosts, model, records)) hosts.push(newCharacter(model));
  }
  for (const c of hosts) {
    for (const p of c.parts) {
      const l = lodOf.get(p.model);
      if (!l) continue;
      p.lod = l;
      if (lod === 'all') p.label = `${l.name} LOD${l.level}`;
    }
    const model = namesake(c);
    c.name = baseName(model.file ?? model.name ?? 'model');
    c.namedAfter = model.file;
  }
  for (const [l, shown, g] of setAside) {
    records.push({
      kind: 'part',
      files: [l.model.file, shown.model.file],
      via: 'LOD',
      reason: `level ${l.level} of ${g.name} (level ${shown.level} shown)`,
    });
  }
  // Characters in the order their first file arrived, then by path: stable across drops.
  hosts.sort((a, b) => a.drop - b.drop || byPath(a.host, b.host));
  for (const c of hosts) ownClips(c);
  return hosts;
}

/**
 * Of a part with levels, one level is shown (or, for 'all', each level is a part of its own):
 * lodOf maps a model shown to { name, level, levels, shown }; setAside lists [level, shown, group].
 */
function levelsShown(free, families, lod) {
  const lodOf = new Map();
  const setAside = [];
  for (const g of lodGroups(free, families)) {
    const shown = lod === 'all' ? null : shownLevel(g.levels, lod);
    for (const l of g.levels) {
      if (shown && l !== shown) setAside.push([l, shown, g]);
      else lodOf.set(l.model, { name: g.name, level: l.level, levels: g.levels, shown: lod === 'all' ? 'all' : l.level });
    }
  }
  return { lodOf, setAside };
}

/**
 * Meshes that bind by name and whose bones are a subset of a larger one's (head, body, armour)
 * share its skeleton, whatever order they came in: the largest skeleton hosts. True when `model`
 * joined one of `hosts` as a part.
 */
function joinHost(hosts, model, records) {
  if (model.bindBy !== 'name' || !isSkinned(model)) return false;
  for (const c of hosts) {
    if (c.bindBy !== 'name' || !c.skeleton) continue;
    const map = boneMapInto(c.host, model);
    if (!(map && sharesLimb(c.host, map) && posesAgree(c.host, model, map))) continue;
    c.models.push(model);
    c.parts.push({ model, boneMap: map });
    c.drop = Math.min(c.drop, model.drop);
    records.push({ kind: 'part', files: [model.file, c.host.file], via: 'bone names', reason: `shares the skeleton of ${c.host.name}` });
    return true;
  }
  return false;
}

/**
 * Texture files no material used: those of texture-only drops are returned by drop (shown on a
 * board); those of drops with models are recorded as unused.
 */
function unusedTextures(decoded, usedTextures, records) {
  const dropsWithModels = new Set([...decoded.models, ...decoded.animations].map((m) => m.drop));
  const boardDrops = new Map();
  const files = new Map();
  for (const r of decoded.textures) {
    if (!files.has(r.path)) files.set(r.path, []);
    files.get(r.path).push(r);
  }
  for (const [path, list] of files) {
    if (list.some((r) => usedTextures.has(r))) continue;
    const { drop } = list[0];
    if (!dropsWithModels.has(drop)) {
      if (!boardDrops.has(drop)) boardDrops.set(drop, []);
      boardDrops.get(drop).push(...list);
    } else {
      records.push({
        kind: 'unused',
        files: [path],
        reason: list[0].guid ? "no loaded material names its textures' GUIDs" : 'no material names it',
      });
    }
  }
  return boardDrops;
}

/** The sky-dome test of each new model, a task at a time (layoutCharacters then finds it kept). */
async function layoutScene(scene, pause) {
  for (const sc of scene.characters) {
    await pause();
    const bounds = characterBounds(sc);
    if (bounds && sc.models.length === 1) facesInward(sc, bounds);
  }
  layoutCharacters(scene.characters);
}

async function bindAnimations(scene, animations, records, pause) {
  // Characters whose skeletons have the same bones (most of one game's) fit an animation alike:
  // each skeleton is matched once an animation, not each character (a drop of a thousand
  // characters and hundreds of animations matched bone names hundreds of thousands of times).
  const skinned = scene.characters.filter((c) => c.skeleton);
  const bonesOf = new Map(skinned.map((c) => [c, c.host.skeleton?.names.join('\n') ?? '']));
  const kinOf = new Map(skinned.map((c) => [c, kinName(c.host.name)]));
  for (const anim of animations) {
    await pause();
    const targets = skinned.filter((c) => c.bindBy === anim.bindBy);
    const kin = kinName(anim.name);
    const fits = new Map(); // the skeleton's bones (or count, by index) -> how the animation fits it
    // Most bones matched first, then the closer name (horse_walk → horse), then the closer size.
    let best = null,
      closest = null;
    for (const c of targets) {
      const same = anim.bindBy === 'index' ? jointCount(c.host) : bonesOf.get(c);
      let fit = fits.get(same);
      if (!fit) fits.set(same, (fit = fitAnimation(c, anim)));
      const near = fit.matched * 1e6 + kinship(kin, kinOf.get(c)) * 1e3 - Math.abs(jointCount(c.host) - fit.total);
      if (!closest || near > closest.near) closest = { c, fit, near };
      if (fit.ok && (!best || near > best.near)) best = { c, fit, near };
    }
    // A fit found for another character of the same skeleton names that one: said of this one.
    if (closest && !best) closest.fit = fitAnimation(closest.c, anim);
    if (best) {
      bind(best.c, anim, best.fit);
      // Named by the file the character is named after (its body), not its skeleton's host (arms).
      records.push({
        kind: 'bound',
        files: [anim.file, best.c.namedAfter ?? best.c.host.file],
        via: anim.bindBy === 'index' ? 'bone index' : 'bone names',
        reason: `${best.fit.matched}/${best.fit.total} bones${best.fit.byIndex ? ', by index' : ''}`,
      });
    } else if (closest) {
      records.push({ kind: 'unbound', files: [anim.file], best: closest.c.host.file, reason: closest.fit.reason });
    } else {
      const what = anim.bindBy === 'index' ? `a model with its ${anim.counts?.bones ?? 0} bones` : 'a mesh with its bone names';
      records.push({ kind: 'unbound', files: [anim.file], best: null, reason: `no ${what} is loaded (drop the mesh too)` });
    }
  }
}

/**
 * A texture for every material of the scene's characters and props, by the first rule that finds
 * one (chooseMaterialTextures), then, per drop, among the textures nothing chose (dropFallbacks).
 * Each choice is recorded; `pause` yields between characters.
 */
async function assignTextures(scene, library, { families, manual, findTexture, usedTextures, records, ctx, pause }) {
  const set = textureSetter(usedTextures, records);
  const all = charactersWithProps(scene);
  const rules = {
    families,
    manual,
    findTexture,
    ctx,
    set,
    byId: new Map(library.map((r) => [r.id, r])),
    byGuid: new Map(library.filter((r) => r.guid).map((r) => [r.guid, r])),
    // Without textures no rule can find one: each material gets its entry and nothing is looked up
    // (Unreal's suffix convention tries many names a material). A sidecar is still read for the
    // texts it uses.
    none: !library.length,
  };
  for (const c of all) {
    await pause();
    chooseMaterialTextures(c, rules);
  }
  if (rules.none) return;
  for (const [drop, characters] of byDrop(all)) {
    const pool = () => library.filter((r) => r.drop === drop && !r.guid && !usedTextures.has(r));
    dropFallbacks(characters, pool, { families, set });
  }
}

/** Records `texture` as chosen for material `entry` of character `c` by `rule` (`extra`: its maps, its blend). */
function textureSetter(usedTextures, records) {
  return (c, entry, texture, rule, extra = {}) => {
    Object.assign(entry, { texture, rule, ...extra });
    usedTextures.add(texture);
    for (const m of Object.values(extra.maps ?? {})) if (m) usedTextures.add(m);
    records.push({ kind: 'texture', files: [texture.path, entry.model.file], via: rule, reason: `material ${entry.name} of ${c.name}` });
  };
}

/** Every character of the scene, each followed by the props on it (depth first). */
export function charactersWithProps(scene) {
  const all = [];
  const walk = (ch) => {
    all.push(ch);
    for (const p of ch.props) walk(p.character);
  };
  for (const c of scene.characters) walk(c);
  return all;
}

/**
 * Character `c`'s material entries, each textured by the first rule that finds one: the person's
 * pick, the material's GUID, its family's sidecar, the actor's hints, the material's texture names.
 */
function chooseMaterialTextures(c, { families, manual, findTexture, ctx, set, byId, byGuid, none }) {
  for (const model of c.models) {
    const family = familyById(families, model.family);
    const hints = c.textureHints.get(model);
    model.materials.forEach((material, index) => {
      const entry = { model, index, name: material.name, texture: null, rule: null };
      c.materials.push(entry);
      if (material.hidden || (none && !ctx.texts.length)) return;
      const chosen = manual.get(`${model.file}#${index}`);
      if (chosen && byId.has(chosen)) return set(c, entry, byId.get(chosen), 'manual');
      if (material.guid && byGuid.has(material.guid)) return set(c, entry, byGuid.get(material.guid), 'GUID');
      const sidecar = family?.resolveMaterial?.(material, ctx, model);
      if (sidecar) return set(c, entry, sidecar.texture, sidecar.rule, { maps: sidecar.maps, blend: sidecar.blend });
      if (hints?.length) {
        const hit = hints.map((n) => findTexture(n, model)).find(Boolean);
        if (hit) return set(c, entry, hit, 'actor');
        return;
      }
      const hit = material.textureNames.map((n) => findTexture(n, model)).find(Boolean);
      if (hit) set(c, entry, hit, family?.textureNamesRule ?? 'name');
    });
  }
}

/** Characters by the drop they came in, in their order. */
function byDrop(characters) {
  const drops = new Map();
  for (const c of characters) {
    if (!drops.has(c.drop)) drops.set(c.drop, []);
    drops.get(c.drop).push(c);
  }
  return drops;
}

/**
 * The textures of one drop that nothing chose (`pool()`, as it is at each step), given to its
 * characters' untextured materials: the families' fallbacks, then names that lead with a
 * material's or model's name, then the only texture left to the only bare material.
 */
function dropFallbacks(characters, pool, { families, set }) {
  // Family fallbacks (UE1 meshes without a script: texture numbers in file-name order).
  const alone =
    characters.filter((x) => familyById(families, x.host.family)?.fallbackTextures && x.materials.every((m) => !m.texture)).length === 1;
  for (const c of characters) {
    const family = familyById(families, c.host.family);
    if (!family?.fallbackTextures) continue;
    const picks = family.fallbackTextures(c.host, pool(), { alone });
    for (const [index, texture] of picks) {
      const entry = c.materials.find((m) => m.model === c.host && m.index === index);
      if (entry && !entry.texture) set(c, entry, texture, family.fallbackRule);
    }
  }
  // A texture whose name is a material's or its model's name plus `_` (0 A.D.'s
  // horse_celt_stripe_a.dds beside horse.pmd): several materials may share it.
  const unclaimed = byKeyOrder(pool());
  if (unclaimed.length) {
    for (const c of characters) {
      for (const entry of c.materials) {
        if (entry.texture || entry.model.materials[entry.index].hidden) continue;
        const family = familyById(families, entry.model.family);
        const model = stem(family?.plainName?.(entry.model.file ?? '') ?? baseName(entry.model.file ?? entry.model.name ?? ''));
        const hit = prefixed(unclaimed, entry.name) ?? prefixed(unclaimed, model);
        if (hit) set(c, entry, hit, 'name prefix');
      }
    }
  }
  // The only texture dropped with the only untextured material: surely its texture.
  const left = pool();
  const bare = characters.flatMap((c) => c.materials.filter((m) => !m.texture && !m.model.materials[m.index].hidden).map((m) => [c, m]));
  if (left.length === 1 && bare.length === 1) set(bare[0][0], bare[0][1], left[0], 'only texture');
}

/** Map textures by their usual suffixes: a base colour is preferred over them. */
const MAP_SUFFIX = /_(norm|normal|nrm|nm|n|spec|specular|s|ao|gloss|rough|roughness|metal|mask|height|bump|emissive|e|orm|arm)$/;

/** Textures by name key, sorted (then by path), for prefix look-ups by binary search. */
function byKeyOrder(textures) {
  const list = textures.map((r) => ({ key: textureKey(r.path), r }));
  return list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.r.path < b.r.path ? -1 : a.r.path > b.r.path ? 1 : 0));
}

/** The first texture named `name` plus `_` and more (by name, then path), base colours before maps; or null. */
function prefixed(sorted, name) {
  const k = textureKey(String(name ?? ''));
  if (!k) return null;
  const prefix = `${k}_`;
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].key < prefix) lo = mid + 1;
    else hi = mid;
  }
  let first = null;
  for (let i = lo; i < sorted.length && sorted[i].key.startsWith(prefix); i++) {
    if (!MAP_SUFFIX.test(sorted[i].key)) return sorted[i].r;
    first ??= sorted[i].r;
  }
  return first;
}

/** A character's parts with levels: each level's file and vertex count, and which level is shown. */
function lodsOf(c) {
  const out = new Map();
  for (const p of c.parts) {
    if (!p.lod || out.has(p.lod.levels)) continue;
    out.set(p.lod.levels, {
      part: p.lod.name,
      shown: p.lod.shown,
      levels: p.lod.levels.map((l) => ({ level: l.level, file: l.model.file, vertices: vertexCount(l.model) })),
    });
  }
  return [...out.values()];
}

/** The scene as plain JSON (`rigscope scene --json`): files by path, text only from records. */
export function sceneToJSON(scene) {
  const character = (c) => ({
    name: c.name,
    ...(c.offset?.some((v) => v !== 0) ? { offset: c.offset.map((v) => +v.toFixed(4)) } : {}),
    ...(c.enclosing ? { enclosing: true, hidden: c.hidden } : {}),
    meshes: c.models.map((m) => m.file),
    ...(c.parts.some((p) => p.lod) ? { lods: lodsOf(c) } : {}),
    skeleton: { bones: c.skeleton ? jointCount(c.host) : 0 },
    animations: c.animations.map((a) => ({
      file: a.file,
      bound: { matched: a.matched, total: a.total, by: a.by },
      clips: a.clips.map((k) => ({
        name: k.name,
        frames: k.frames,
        fps: k.fps,
        loop: k.loop,
        notifies: k.notifies.map((n) => ({ time: n.time, name: n.name })),
      })),
    })),
    materials: c.materials.map((m) => ({
      name: m.name,
      texture: m.texture?.path ?? null,
      // A texture inside a container (a UE1 package) is also named by its object path there.
      ...(m.texture?.object ? { object: m.texture.object } : {}),
      rule: m.rule,
      ...(m.maps
        ? {
            maps: Object.fromEntries(
              Object.entries(m.maps)
                .filter(([k]) => k !== 'base')
                .map(([k, v]) => [k, v?.path ?? null]),
            ),
          }
        : {}),
    })),
    ...(c.props.length ? { props: c.props.map((p) => ({ point: p.point, ...character(p.character) })) } : {}),
  });
  const of = (kind) => scene.records.filter((r) => r.kind === kind);
  return {
    characters: scene.characters.map(character),
    textureBoards: scene.boards.map((b) => ({ textures: b.textures.map((t) => ({ file: t.path, name: t.name })) })),
    unbound: of('unbound').map((r) => ({ file: r.files[0], reason: r.reason, best: r.best })),
    unused: of('unused').map((r) => r.files[0]),
    refused: of('refused').flatMap((r) => r.files.map((file) => ({ file, reason: r.reason }))),
    missing: of('missing').map((r) => ({ file: r.files[0], needs: r.needs ?? r.reason })),
  };
}
