// One triangle's normal, for the sky-dome test (core/layout.js) and smooth normals
// (three/build.js): plain numbers written into a reused array, no object per triangle.

/**
 * The area-weighted normal of the triangle whose corners start at indices `a`, `b` and `c` of flat
 * positions `p`, into `out` ([x, y, z]): (c − b) × (a − b), with three.js's float operations, so
 * normals summed from it match computeVertexNormals() exactly.
 */
export function triangleNormal(p, a, b, c, out) {
  const bx = p[b],
    by = p[b + 1],
    bz = p[b + 2];
  const cbx = p[c] - bx,
    cby = p[c + 1] - by,
    cbz = p[c + 2] - bz;
  const abx = p[a] - bx,
    aby = p[a + 1] - by,
    abz = p[a + 2] - bz;
  out[0] = cby * abz - cbz * aby;
  out[1] = cbz * abx - cbx * abz;
  out[2] = cbx * aby - cby * abx;
  return out;
}
