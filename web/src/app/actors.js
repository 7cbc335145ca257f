// 0 A.D. actors in the viewer: an actor XML dropped with its files becomes one assembled
// character (mesh, base texture, named animations, prop actors at their prop points).
import { Character } from '../three/character.js';
import { findTexture } from '../three/textures.js';
import { baseName, readText } from '../core/files.js';
import { fileKey, readActor, usesPlayerColor } from '../core/actor.js';

/**
 * 0 A.D. actors: each actor XML of the set becomes one character of its mesh, with its base
 * texture, its named animations (speed from the actor) and its prop actors attached at their
 * prop points. Models and animations an actor uses are taken out of the set; what it names and
 * the set lacks is listed as missing. Returns the characters added.
 */
export async function assembleActors(app, set, report) {
  if (!set.xml.length) return [];
  const texts = new Map();
  for (const e of set.xml) texts.set(baseName(e.name).toLowerCase(), await readText(e));
  const loadXml = (path) => texts.get(baseName(path).toLowerCase()) ?? null;
  const actors = new Map();
  for (const e of set.xml) {
    try {
      const actor = readActor(texts.get(baseName(e.name).toLowerCase()), loadXml);
      if (actor) actors.set(baseName(e.name).toLowerCase(), { file: e.name, actor });
      else report.notes.push(`${e.name}: not an actor (only actor XML is read)`);
    } catch (err) {
      report.refused.push({ file: e.name, reason: err.message });
    }
  }
  const used = new Set(), added = [];
  const find = (list, path) => list.find((m) => fileKey(m.file) === fileKey(path) || fileKey(m.archiveName ?? '') === fileKey(path));
  const build = (file, actor, depth) => {
    for (const m of actor.missing) report.missing.push(`${file}: ${m}`);
    const found = actor.mesh && find(set.models, actor.mesh);
    if (!found) {
      report.missing.push(`${file}: ${actor.mesh ? `its mesh ${actor.mesh}` : 'no <mesh> in the chosen variants'}`);
      return null;
    }
    used.add(found);
    // A copy per use: the same mesh may carry other textures in another actor.
    const base = actor.textures.find((t) => t.name === 'baseTex') ?? actor.textures[0];
    const model = { ...found, materials: found.materials.map((m) => ({ ...m, textureNames: base ? [base.file] : m.textureNames, playerColor: usesPlayerColor(actor) })) };
    if (base && !findTexture({ textureNames: [base.file] }, app.textures)) report.missing.push(`${file}: texture ${base.file}`);
    const character = new Character(model);
    character.name = file;
    character.root.name = file;
    for (const a of actor.animations) {
      const anim = find(set.animations, a.file);
      if (!anim) { report.missing.push(`${file}: animation ${a.name} (${a.file})`); continue; }
      used.add(anim);
      const r = character.addAnimation({ ...anim, clips: anim.clips.map((c) => ({ ...c, name: a.name })) });
      if (r.error) { report.refused.push({ file: anim.file, reason: r.error }); continue; }
      character.clips[character.clips.length - 1].speed = a.speed / 100;
      report.pairs.push(`${anim.file} → ${file} as "${a.name}"${a.speed !== 100 ? ` (speed ${a.speed / 100}×)` : ''}`);
    }
    app.characters.push(character);
    app.viewer.add(character);
    report.pairs.push(`${file} → actor of ${model.file}${base ? ` with ${base.file}` : ''}`);
    for (const p of actor.props) {
      if (p.attachpoint === 'projectile') continue; // the projectile's model, not attached
      const point = p.attachpoint.replace(/^loaded-/, '');
      const strip = (n) => n.replace(/^prop[-_]/i, '').toLowerCase();
      const at = character.attachments.find((x) => x.name === point) ?? character.attachments.find((x) => strip(x.name) === strip(point));
      const child = actors.get(baseName(p.actor).toLowerCase());
      if (!at) { report.missing.push(`${file}: prop point ${point} (for ${p.actor}) on ${model.file}`); continue; }
      if (!child) { report.missing.push(`${file}: prop actor ${p.actor}`); continue; }
      if (depth > 8) continue;
      const prop = build(child.file, child.actor, depth + 1);
      if (!prop) continue;
      at.node.add(prop.root); // follows the bone it hangs on
      const idle = prop.clips.find((c) => c.name === 'idle') ?? prop.clips[0];
      if (idle) prop.mixer.clipAction(idle.build()).play();
      report.pairs.push(`${child.file} → prop point ${at.name} of ${file}`);
    }
    return character;
  };
  // Actors used as props of another actor are shown on it, not on their own.
  const nested = new Set([...actors.values()].flatMap(({ actor }) => actor.props.map((p) => baseName(p.actor).toLowerCase())));
  for (const [key, { file, actor }] of actors) {
    if (nested.has(key)) continue;
    const character = build(file, actor, 0);
    if (character) added.push(character);
  }
  set.models = set.models.filter((m) => !used.has(m));
  set.animations = set.animations.filter((a) => !used.has(a));
  return added;
}
