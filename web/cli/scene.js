// `rigscope scene`: the scene the viewer would show for these files — characters with their
// meshes, skeleton, bound animations, clips and textures — and what was not used, and why.
import { sceneToJSON } from '../src/core/scene.js';

const fps = (x) => +Number(x).toFixed(3);

export function formatScene(json) {
  const lines = [];
  const character = (c, indent) => {
    lines.push(`${indent}${c.name}: ${c.meshes.join(' + ')}${c.skeleton.bones ? `, ${c.skeleton.bones} bones` : ''}`);
    for (const l of c.lods ?? [])
      lines.push(
        `${indent}  levels of ${l.part}: ${l.levels.map((x) => `LOD${x.level} ${x.vertices} vertices`).join(', ')} (${l.shown === 'all' ? 'all shown' : `LOD${l.shown} shown`})`,
      );
    for (const a of c.animations) {
      lines.push(`${indent}  animation ${a.file} (${a.bound.matched}/${a.bound.total} by ${a.bound.by})`);
      for (const k of a.clips) {
        lines.push(`${indent}    clip ${k.name}: ${k.frames} frames @ ${fps(k.fps)} fps${k.loop ? '' : ', plays once'}`);
        for (const n of k.notifies) lines.push(`${indent}      notify ${n.name} at ${n.time.toFixed(3)} s`);
      }
    }
    for (const m of c.materials)
      lines.push(
        `${indent}  material ${m.name}: ${m.texture ? `${m.texture}${m.object ? ` ${m.object}` : ''} (${m.rule})` : 'no texture'}`,
      );
    for (const p of c.props ?? []) {
      lines.push(`${indent}  prop at ${p.point}:`);
      character(p, `${indent}    `);
    }
  };
  for (const c of json.characters) character(c, '');
  for (const b of json.textureBoards) lines.push(`textures: ${b.textures.map((t) => t.name).join(', ')}`);
  for (const u of json.unbound) lines.push(`unbound ${u.file}: ${u.reason}${u.best ? ` (closest: ${u.best})` : ''}`);
  for (const m of json.missing) lines.push(`missing for ${m.file}: ${m.needs}`);
  for (const f of json.unused) lines.push(`unused ${f}`);
  for (const r of json.refused) lines.push(`refused ${r.file}: ${r.reason}`);
  return lines.join('\n');
}

export { sceneToJSON };
