// Triangle normals shared by the sky-dome test and smooth normals: exact against three.js, and the
// facing test's answer for a sphere seen from outside and from inside.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { vertexNormals } from '../../web/src/three/build.js';
import { facesInward } from '../../web/src/core/layout.js';

const sphere = () => new THREE.SphereGeometry(5, 24, 16);

describe('triangle normals', () => {
  it('vertexNormals gives the very numbers of three.js computeVertexNormals', () => {
    for (const g of [new THREE.TorusKnotGeometry(3, 1, 64, 12), sphere()]) {
      const p = g.attributes.position.array;
      const ix = g.index.array;
      g.deleteAttribute('normal');
      g.computeVertexNormals();
      expect(vertexNormals(p, ix)).toEqual(g.attributes.normal.array);
    }
  });

  it('tells a dome seen from inside from a ball seen from outside', () => {
    const g = sphere();
    const positions = g.attributes.position.array;
    const outward = g.index.array;
    const inward = outward.slice();
    for (let i = 0; i < inward.length; i += 3) [inward[i + 1], inward[i + 2]] = [inward[i + 2], inward[i + 1]];
    const bounds = { min: [-5, -5, -5], max: [5, 5, 5] };
    const sc = (indices) => ({ models: [{ meshes: [{ positions, indices }] }] });
    expect(facesInward(sc(outward), bounds)).toBe(false);
    expect(facesInward(sc(inward), bounds)).toBe(true);
  });
});
