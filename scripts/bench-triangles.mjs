// Triangles a loader made, for the peer benches (Node and Chromium): the peer reads FACE0000 only,
// so on a PSKX of FACE3200 it makes none, and the tables say so.

/** Triangles of a geometry or of every mesh under a Group. */
export function trianglesOf(object) {
  let n = 0;
  const count = (g) => (n += (g.index?.count ?? g.attributes?.position?.count ?? 0) / 3);
  if (object?.isBufferGeometry) count(object);
  else object?.traverse?.((o) => o.geometry && count(o.geometry));
  return n;
}
