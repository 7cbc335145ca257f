// 0 A.D.: .pmd models, PSSA .psa animations (bound by bone index and count), actor .xml files
// that assemble a unit, and the release archives' cache names.
import { baseName, decoderInput, opensWith, readText, stem } from '../core/files.js';
import { fileKey, readActor, usesPlayerColor } from './zeroad-actor.js';

/**
 * Archive and cache names to the plain name the game's actors use: `X.dae.cached.pmd` (release
 * archives) and `X.dae.0123456789abcdef.pmd` (loose cache) are `X.pmd`; `X.png.cached.dds` is `X.png`.
 */
export function plainName(name) {
  return baseName(name)
    .replace(/\.dae\.(?:cached|[0-9a-f]{16})\.(pmd|psa)$/i, '.$1')
    .replace(/\.cached\.dds$/i, '');
}

/** An actor tree holds at most this many prop actors (a prop may prop itself: cycles are cut). */
export const MAX_ACTOR_PROPS = 256;

// The engine plays these once and holds the last frame (unit death); everything else loops.
const PLAYS_ONCE = /(^|[^a-z])(death|dying|die|corpse)([^a-z]|$)/i;

export default {
  id: 'zeroad',
  label: '0 A.D.',
  kinds: ['pmd', 'pssa', 'xml'],
  fileNames: /\.(pmd|psa)$/i, // worth fetching from a repository folder (core/repo.js)
  claims: (name) => (/\.xml$/i.test(name) ? 'xml' : null),
  /** Their magic at offset 0, as wasm/src/formats/detect.cpp reads it. */
  detect: (head) => (opensWith(head, 'PSMD') ? 'pmd' : opensWith(head, 'PSSA') ? 'pssa' : null),
  textKinds: ['xml'],
  plainName,

  plan(byKind) {
    const jobs = [];
    for (const item of byKind('pmd'))
      jobs.push({ op: 'decodePmd', inputs: [item], args: async () => [await decoderInput(item.entry), item.entry.name] });
    for (const item of byKind('pssa')) {
      jobs.push({
        op: 'decodePssa',
        inputs: [item],
        args: async () => [await decoderInput(item.entry), item.entry.name],
        // The engine ignores the PSSA name field ("God Knows", "test_anim"): clips go by file name.
        after: (anim) => {
          for (const c of anim.clips) {
            c.name = stem(plainName(item.entry.name));
            c.loop = !PLAYS_ONCE.test(c.name);
          }
        },
      });
    }
    return { jobs, records: [] };
  },

  assemble: assembleActors,
};

/**
 * Actors: each actor XML of the drop becomes one character of its mesh, with its base texture,
 * its named animations (speed and play-once from the actor) and its prop actors at their prop
 * points. Models and animations an actor uses are taken; what it names and the drop lacks is
 * listed as missing.
 */
async function assembleActors(ctx) {
  const actors = await readActors(ctx);
  if (!actors.size) return [];
  // Actors used as props of another actor are shown on it, not on their own.
  const nested = new Set([...actors.values()].flatMap(({ actor }) => actor.props.map((p) => baseName(p.actor).toLowerCase())));
  const roots = [...actors.keys()].filter((k) => !nested.has(k));
  const out = [];
  for (const k of roots.length ? roots : [...actors.keys()].slice(0, 1)) {
    const tree = { ctx, actors, props: 0 };
    const c = buildActor(tree, actors.get(k), []);
    if (c) out.push(c);
  }
  return out;
}

/** The drop's actor XML by lower-case base name: { file, actor, t }; other XML says why it is not read. */
async function readActors(ctx) {
  const texts = new Map();
  for (const t of ctx.texts.filter((x) => x.kind === 'xml'))
    texts.set(baseName(t.path).toLowerCase(), { t, text: await readText(t.entry) });
  const loadXml = (path) => texts.get(baseName(path).toLowerCase())?.text ?? null;
  const actors = new Map();
  for (const [name, { t, text }] of texts) {
    try {
      const actor = readActor(text, loadXml);
      if (actor) actors.set(name, { file: t.path, actor, t });
      else t.reason = 'not an actor (only actor XML is read)';
    } catch (err) {
      ctx.usedTexts.add(t);
      ctx.records.push({ kind: 'refused', files: [t.path], reason: err.message });
    }
  }
  return actors;
}

const missing = (ctx, file, needs) => ctx.records.push({ kind: 'missing', files: [file], needs });
const findFile = (list, path) => list.find((m) => fileKey(m.file) === fileKey(path));

/**
 * One actor as a character of its mesh, with its props built below it. `tree` is the root's:
 * { ctx, actors, props (how many prop actors it holds so far) }; `chain` the actors above this one.
 */
function buildActor(tree, entry, chain) {
  const { ctx } = tree;
  const { file, actor } = entry;
  ctx.usedTexts.add(entry.t);
  for (const m of actor.missing) missing(ctx, file, m);
  const model = actor.mesh && findFile(ctx.models, actor.mesh);
  if (!model) return (missing(ctx, file, actor.mesh ? `its mesh ${actor.mesh}` : 'a <mesh> in the chosen variants'), null);
  ctx.usedModels.add(model);
  const character = ctx.newCharacter(model, baseName(file));
  character.id = [...chain, file].join(' > ');
  character.actor = file;
  character.playerColor = usesPlayerColor(actor);
  const base = actor.textures.find((t) => t.name === 'baseTex') ?? actor.textures[0];
  if (base) {
    character.textureHints.set(model, [base.file]);
    if (!ctx.findTexture(base.file, model)) missing(ctx, file, `texture ${base.file}`);
  }
  for (const a of actor.animations) bindActorAnimation(ctx, character, model, file, a);
  for (const p of actor.props) {
    const prop = propOf(tree, model, file, p, chain);
    if (prop) character.props.push(prop);
  }
  return character;
}

/** The actor's animation `a` bound to its character under the actor's name, speed and play-once. */
function bindActorAnimation(ctx, character, model, file, a) {
  const anim = findFile(ctx.animations, a.file);
  if (!anim) return missing(ctx, file, `animation ${a.name} (${a.file})`);
  ctx.usedAnims.add(anim);
  const fit = ctx.fitAnimation(character, anim);
  if (!fit.ok) return ctx.records.push({ kind: 'unbound', files: [anim.file], best: model.file, reason: fit.reason });
  ctx.bind(character, anim, fit, {
    names: anim.clips.map(() => a.name),
    speed: a.speed / 100,
    loop: !PLAYS_ONCE.test(a.name),
    via: 'actor',
  });
  ctx.records.push({
    kind: 'bound',
    files: [anim.file, file],
    via: 'actor',
    reason: `as "${a.name}"${a.speed !== 100 ? ` at ${a.speed / 100}×` : ''}`,
  });
}

/**
 * Prop `p` of the actor in `file`: { point, character } at its prop point, or null when it is not
 * attached (a projectile), missing, a cycle, or past MAX_ACTOR_PROPS in this tree.
 */
function propOf(tree, model, file, p, chain) {
  const { ctx } = tree;
  if (p.attachpoint === 'projectile') return null; // the projectile's model, not attached
  const point = p.attachpoint.replace(/^loaded-/, '');
  const strip = (n) => n.replace(/^prop[-_]/i, '').toLowerCase();
  const at =
    (model.attachments ?? []).find((x) => x.name === point) ?? (model.attachments ?? []).find((x) => strip(x.name) === strip(point));
  const child = tree.actors.get(baseName(p.actor).toLowerCase());
  if (!at) return (missing(ctx, file, `prop point ${point} (for ${p.actor}) on ${model.name}`), null);
  if (!child) return (missing(ctx, file, `prop actor ${p.actor}`), null);
  if (chain.includes(child.file) || child.file === file) {
    const reason = `props itself through ${[...chain, file].map((f) => baseName(f)).join(' → ')}: the cycle is cut`;
    if (!ctx.records.some((r) => r.reason === reason)) ctx.records.push({ kind: 'refused', files: [child.file], reason });
    return null;
  }
  if (++tree.props > MAX_ACTOR_PROPS) {
    if (tree.props === MAX_ACTOR_PROPS + 1)
      ctx.records.push({
        kind: 'refused',
        files: [chain[0] ?? file],
        reason: `more than ${MAX_ACTOR_PROPS} prop actors: the rest are not shown`,
      });
    return null;
  }
  const prop = buildActor(tree, child, [...chain, file]);
  return prop && { point: at.name, character: prop };
}
