// A skinned mesh's sphere is its bind pose's from the start: three's renderer asks for a mesh's
// sphere at its first draw (to sort draws by depth) and, when it has none, skins every vertex on
// the CPU to make one, 75-170 ms in one frame for the psk and zeroad sample folders.
import { describe, expect, it } from 'vitest';
import { PMDLoader, PSKLoader } from '../../web/src/index.js';
import { HAVE_SAMPLES, fixture, sample } from './helpers.js';

const buffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);

function skinnedMeshes(group) {
  const out = [];
  group.traverse((o) => {
    if (o.isSkinnedMesh) out.push(o);
  });
  return out;
}

function expectBindSpheres(meshes) {
  expect(meshes.length).toBeGreaterThan(0);
  for (const m of meshes) {
    const bind = m.geometry.boundingSphere;
    expect(m.boundingSphere, m.name).not.toBe(bind);
    expect(m.boundingSphere.center.toArray(), m.name).toEqual(bind.center.toArray());
    expect(m.boundingSphere.radius, m.name).toBe(bind.radius);
    // Its box is still skinned when asked (framing a small mesh in its pose).
    expect(m.boundingBox, m.name).toBeNull();
  }
}

describe('skinned mesh bounds', () => {
  it("give a small skinned mesh its geometry's bind-pose sphere", async () => {
    const group = await new PSKLoader().parseAsync(buffer(fixture('two_bone.psk')), 'two_bone.psk');
    expectBindSpheres(skinnedMeshes(group));
  });

  it.runIf(HAVE_SAMPLES)('give the zeroad sample characters their bind-pose spheres', async () => {
    for (const name of ['rich-man.pmd', 'skeleton.pmd']) {
      const group = await new PMDLoader().parseAsync(buffer(sample(`zeroad/${name}`)), name);
      expectBindSpheres(skinnedMeshes(group));
    }
  });
});
