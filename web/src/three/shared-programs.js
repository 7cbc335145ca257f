// Materials made to share three's shader programs where the picture is the same, for the page's
// viewer and <rigscope-viewer> alike. Software GL (no KHR_parallel_shader_compile) links each
// program and prepares its first draw one at a time, so every program a folder needs beyond one
// per kind of material is time the folder is not in place (issue #31).
import { drawUntexturedWhite } from './textures.js';
import { blendBothSidesAtOnce } from './build.js';

/** The materials a root's meshes draw with. */
export function materialsOf(root) {
  const out = [];
  root.traverse((o) => {
    if (o.material) out.push(...(Array.isArray(o.material) ? o.material : [o.material]));
  });
  return out;
}

/**
 * Readies materials before their programs are compiled: an untextured one draws the white texel
 * (its textured kind's program), a two-sided translucent or modulated one both sides in one pass
 * (one program, not one a side).
 * @param {import('three').Material[]} materials
 */
export function sharePrograms(materials) {
  for (const m of materials) {
    drawUntexturedWhite(m);
    blendBothSidesAtOnce(m);
  }
}
