// The decoded model as it crosses from WASM (wasm/bindings/bindings.cpp): its typed arrays copied
// into buffers (copyArrays), its objects, strings and numbers read from the words the binding
// wrote (readShape). A wrong offset anywhere (a word, a number, a string, an array) shows as a
// value unlike the sample's known facts (../shared/samples/README.md), or as two parts of one
// result that disagree: the bounds travel as numbers, the positions they bound as an array.
import { describe, expect, it } from 'vitest';
import { decode, HAVE_SAMPLES, sample } from './helpers.js';

const SLURP = 'psk/Slurp_Monster_Axe_LOD0.psk';

/** The box of xyz triples, as three's Box3.setFromBufferAttribute finds it. */
function boxOf(p) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], p[i + k]);
      max[k] = Math.max(max[k], p[i + k]);
    }
  }
  return { min, max };
}

/** Sample bytes with one name of its name table (same length) replaced. */
function renamed(rel, from, to) {
  const bytes = sample(rel);
  const at = Buffer.from(bytes).indexOf(`${from}\0`, 0, 'latin1');
  expect(at, `${from} in ${rel}`).toBeGreaterThan(0);
  bytes.set(Buffer.from(to, 'latin1'), at);
  return bytes;
}

describe.skipIf(!HAVE_SAMPLES)('the decoded model crossing from WASM, against known answers', () => {
  it("Slurp's counts, names and arrays are the README's, each where its key says", async () => {
    const model = await decode('decodePsk', sample(SLURP), 'Slurp_Monster_Axe_LOD0.psk');
    expect(model).toMatchObject({ format: 'psk', name: 'Slurp_Monster_Axe_LOD0.psk', warnings: [] });
    expect(model.counts).toMatchObject({ points: 490, wedges: 738, faces: 976, materials: 1, bones: 4, morphs: 5 });
    expect(model.info).toMatchObject({ vertexColorOrder: 'RGBA', typeFlag: '20220723', normalsFrom: 'VTXNORMS' });
    expect(model.skeleton.names[0]).toBe('b_AR_Root');
    expect(model.skeleton.parents).toBeInstanceOf(Int32Array);
    expect(model.skeleton.parents[0]).toBe(-1);
    expect(model.skeleton.restRotation).toHaveLength(4 * 4);

    const [mesh] = model.meshes;
    expect(mesh.positions).toBeInstanceOf(Float32Array);
    expect(mesh.positions).toHaveLength(738 * 3);
    expect(mesh.uvs.map((uv) => uv.length)).toEqual([738 * 2, 738 * 2]);
    expect(mesh.colors).toBeInstanceOf(Uint8Array);
    expect(mesh.colors).toHaveLength(738 * 4);
    expect(mesh.groups).toEqual([{ start: 0, count: 976 * 3, material: 0 }]);
    expect(mesh.indices).toHaveLength(976 * 3);
    expect(Math.max(...mesh.indices)).toBe(737);
    expect(mesh.skinIndex).toBeInstanceOf(Uint16Array);
    expect(Math.max(...mesh.skinIndex)).toBeLessThan(4);
    // Normals are unit vectors; one influence per point: each vertex's weights sum to 1.
    for (let v = 0; v < 738; v++) {
      const [x, y, z] = mesh.normals.subarray(3 * v, 3 * v + 3);
      expect(Math.hypot(x, y, z)).toBeCloseTo(1, 3);
      expect(mesh.skinWeight.subarray(4 * v, 4 * v + 4).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    }
    expect(mesh.morphs.map((m) => m.name)).toEqual(['pickaxe', 'axe', 'Blob_03', 'Blob02', 'Blob01']);
    for (const m of mesh.morphs) expect([m.positions.length, m.normals.length]).toEqual([738 * 3, 738 * 3]);

    // The bounds (numbers of the shape) are those of the positions (an array of the arena), exactly.
    const rest = boxOf(mesh.positions);
    expect({ min: mesh.bounds.min, max: mesh.bounds.max }).toEqual(rest);
    // The morphed box: the rest box grown by each target's box in turn, as three grows it.
    const grown = { min: [...rest.min], max: [...rest.max] };
    for (const m of mesh.morphs) {
      const target = boxOf(m.positions);
      for (const k of [0, 1, 2]) {
        for (const v of [grown.min[k] + target.min[k], grown.max[k] + target.max[k]]) {
          grown.min[k] = Math.min(grown.min[k], v);
          grown.max[k] = Math.max(grown.max[k], v);
        }
      }
    }
    expect({ min: mesh.morphedBounds.min, max: mesh.morphedBounds.max }).toEqual(grown);
  });

  it('a file name comes back as given: NUL, accents, a character past U+FFFF, and one longer than 1024 bytes', async () => {
    for (const name of ['dir/R\u00e9\u0000sum\u00e9 \u{1F600}.psk', `${'long_'.repeat(300)}.psk`]) {
      const model = await decode('decodePsk', sample('psk/Suzanne.psk'), name);
      expect(model.name).toBe(name);
      expect(model.meshes[0].name).toBe(name);
    }
  });

  it("a class named __proto__ in a package is a count of its own, not the listing's prototype", async () => {
    const listing = await decode('listPackage', renamed('upackage/C4.u', 'Animation', '__proto__'), 'C4.u');
    expect(Object.getPrototypeOf(listing.classes)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(listing.classes, '__proto__')).toMatchObject({ value: 2, enumerable: true });
    expect(listing.classes).toMatchObject({ Texture: 27, Palette: 27, SkeletalMesh: 2 });
  });

  it('a class name of cp1252 bytes is a key in the text Embind gave it (cp1252 as UTF-8)', async () => {
    const listing = await decode('listPackage', renamed('upackage/C4.u', 'Animation', 'Animatio\xe9'), 'C4.u');
    expect(Object.keys(listing.classes)).toContain('Animatio\u00e9');
    expect(listing.classes['Animatio\u00e9']).toBe(2);
  });
});
