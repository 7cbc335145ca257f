// Unreal maps on three.js materials (no WebGL: the material fields), the base-colour-only toggle, the
// PNG encoder, a GLB export of such a material checked by the Khronos validator and slot by slot, and the
// pixels of the fixture maps that write_material_fixtures makes.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { GLTFExporter } from 'three/addons/exporters/GLTFExporter.js';
import { TGALoader } from 'three/addons/loaders/TGALoader.js';
import { unzlibSync } from 'fflate';
import { validateBytes } from 'gltf-validator';
import { applyMaterialMaps, clearMaterialMaps, setBaseColourOnly } from '../../web/src/three/material-maps.js';
import { installNodeCanvas } from './node-canvas.js';
import { encodePng as encodePNG } from '../../web/src/core/png.js';
import { FIXTURES, bytes } from './helpers.js';

/** A 2×2 RGBA DataTexture of the given pixels (rows top first), as the TGA and decoded paths make. */
function texture(name, pixels, colorSpace = THREE.SRGBColorSpace) {
  const t = new THREE.DataTexture(new Uint8Array(pixels.flat()), 2, 2, THREE.RGBAFormat);
  t.name = name;
  t.colorSpace = colorSpace;
  t.needsUpdate = true;
  return t;
}

const flat = (name, rgba) => texture(name, [rgba, rgba, rgba, rgba]);
const standard = () => new THREE.MeshStandardMaterial({ color: 0xc8b49a, roughness: 0.75, metalness: 0.05 });
const pixels = (t) => Array.from(t.image.data);

describe('applyMaterialMaps', () => {
  it('puts every map in its slot, colour maps sRGB and data maps linear', async () => {
    const t = {
      base: flat('T_BC', [200, 40, 40, 255]),
      normal: flat('T_N', [128, 75, 218, 255]),
      arm: flat('T_ARM', [255, 160, 32, 255]),
      emissive: flat('T_E', [0, 255, 0, 255]),
      opacity: flat('T_O', [128, 128, 128, 255]),
    };
    const m = await applyMaterialMaps(standard(), t);
    expect(m.map.source).toBe(t.base.source);
    expect(m.map.colorSpace).toBe(THREE.SRGBColorSpace);
    expect(m.color.getHex()).toBe(0xffffff);
    expect(m.normalMap.source).toBe(t.normal.source);
    expect(m.normalMap.colorSpace).toBe(THREE.NoColorSpace);
    expect(m.normalScale.toArray()).toEqual([1, -1]);
    expect(m.aoMap).toBe(m.roughnessMap);
    expect(m.metalnessMap).toBe(m.roughnessMap);
    expect(m.aoMap.source).toBe(t.arm.source);
    expect(m.aoMap.colorSpace).toBe(THREE.NoColorSpace);
    expect(m.aoMap.channel).toBe(0);
    expect([m.roughness, m.metalness]).toEqual([1, 1]);
    expect(m.emissiveMap.source).toBe(t.emissive.source);
    expect(m.emissiveMap.colorSpace).toBe(THREE.SRGBColorSpace);
    expect(m.emissive.getHex()).toBe(0xffffff);
    expect(m.alphaMap.source).toBe(t.opacity.source);
    expect(m.alphaMap.colorSpace).toBe(THREE.NoColorSpace);
    expect(m.transparent).toBe(true);
    expect(m.alphaTest).toBe(0);
    expect(m.userData.materialMaps).toEqual({
      roles: ['base', 'normal', 'arm', 'emissive', 'opacity'],
      baseColourOnly: false,
      skipped: [],
    });
    // The caller's textures are not changed: data maps are linear copies sharing the image.
    expect(t.normal.colorSpace).toBe(THREE.SRGBColorSpace);
    expect(m.normalMap).not.toBe(t.normal);
  });

  it('clears every map and gives the material its own settings back (a scene that no longer textures it)', async () => {
    const m = standard();
    const before = m.toJSON();
    expect(clearMaterialMaps(m)).toBe(false); // never configured
    await applyMaterialMaps(m, {
      base: flat('T_BC', [200, 40, 40, 255]),
      normal: flat('T_N', [128, 75, 218, 255]),
      opacity: flat('T_O', [9, 9, 9, 255]),
    });
    await applyMaterialMaps(m, { base: flat('T_BC2', [20, 40, 40, 255]) }); // applied again: still back to the first state
    expect(clearMaterialMaps(m)).toBe(true);
    const after = m.toJSON();
    expect({ ...after, uuid: before.uuid }).toEqual(before);
    expect([m.map, m.normalMap, m.alphaMap, m.userData.materialMaps]).toEqual([null, null, null, undefined]);
  });

  it('keeps a colour texture that is already sRGB and reuses one linear copy per texture', async () => {
    const arm = flat('T_ARM', [255, 128, 0, 255]);
    const a = await applyMaterialMaps(standard(), { arm });
    const b = await applyMaterialMaps(standard(), { arm });
    expect(a.roughnessMap).toBe(b.roughnessMap);
    const base = flat('T_BC', [1, 2, 3, 255]);
    expect((await applyMaterialMaps(standard(), { base })).map).toBe(base);
  });

  it('reads DirectX normal maps with green down the image, also for DDS textures flipped by their transform', async () => {
    const dds = new THREE.CompressedTexture([{ data: new Uint8Array(8), width: 4, height: 4 }], 4, 4, THREE.RGBA_S3TC_DXT1_Format);
    dds.repeat.set(1, -1);
    dds.offset.set(0, 1);
    expect((await applyMaterialMaps(standard(), { normal: dds })).normalScale.toArray()).toEqual([1, 1]);
    expect((await applyMaterialMaps(standard(), { normal: flat('T_N', [128, 128, 255, 255]) })).normalScale.toArray()).toEqual([1, -1]);
  });

  it('turns MRA into ARM by swapping red and blue', async () => {
    const mra = texture('T_MRA', [
      [10, 20, 30, 255],
      [40, 50, 60, 255],
      [70, 80, 90, 255],
      [100, 110, 120, 7],
    ]);
    const m = await applyMaterialMaps(standard(), { mra });
    expect(m.aoMap).toBe(m.metalnessMap);
    expect(m.aoMap.colorSpace).toBe(THREE.NoColorSpace);
    expect(pixels(m.aoMap)).toEqual([30, 20, 10, 255, 60, 50, 40, 255, 90, 80, 70, 255, 120, 110, 100, 255]);
    expect(pixels(mra)).toEqual([10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 100, 110, 120, 7]);
    expect(m.userData.materialMaps.roles).toEqual(['mra']);
  });

  it('approximates a specular map as a dielectric with roughness 1 - specular', async () => {
    const specular = texture('T_S', [
      [255, 255, 255, 255],
      [0, 0, 0, 255],
      [90, 120, 150, 255],
      [51, 51, 51, 255],
    ]);
    const m = await applyMaterialMaps(standard(), { specular });
    expect(m.roughnessMap).toBe(m.metalnessMap);
    expect(m.aoMap).toBe(null);
    expect([m.roughness, m.metalness]).toEqual([1, 0]);
    expect(pixels(m.roughnessMap)).toEqual([255, 0, 0, 255, 255, 255, 0, 255, 255, 135, 0, 255, 255, 204, 0, 255]);
    const withArm = await applyMaterialMaps(standard(), { specular, arm: flat('T_ARM', [255, 128, 0, 255]) });
    expect(withArm.metalness).toBe(1);
    expect(withArm.userData.materialMaps.skipped).toEqual([{ role: 'specular', reason: 'the packed AO/roughness/metallic map is used' }]);
  });

  it('leaves out MRA and specular maps whose pixels cannot be read', async () => {
    const dds = new THREE.CompressedTexture([{ data: new Uint8Array(8), width: 4, height: 4 }], 4, 4, THREE.RGBA_S3TC_DXT1_Format);
    const m = await applyMaterialMaps(standard(), { mra: dds, specular: dds });
    expect([m.roughnessMap, m.metalnessMap, m.aoMap]).toEqual([null, null, null]);
    expect([m.roughness, m.metalness]).toEqual([0.75, 0.05]);
    expect(m.userData.materialMaps.skipped.map((s) => s.role)).toEqual(['mra', 'specular']);
  });

  it('alpha-tests by the mask only when the material is masked', async () => {
    const mask = flat('T_M', [255, 255, 255, 255]);
    const plain = await applyMaterialMaps(standard(), { mask });
    expect([plain.alphaMap, plain.alphaTest]).toEqual([null, 0]);
    expect(plain.userData.materialMaps.skipped).toEqual([{ role: 'mask', reason: 'the material is not alpha-tested' }]);
    const bySidecar = await applyMaterialMaps(standard(), { mask }, undefined, { blend: 'masked' });
    expect(bySidecar.alphaMap.source).toBe(mask.source);
    expect(bySidecar.alphaTest).toBe(0.5);
    expect(bySidecar.transparent).toBe(false);
    const decodedMasked = standard();
    decodedMasked.alphaTest = 0.5;
    expect((await applyMaterialMaps(decodedMasked, { mask })).alphaMap.source).toBe(mask.source);
  });

  it('toggles to the base colour only and back', async () => {
    const t = {
      base: flat('T_BC', [200, 40, 40, 255]),
      normal: flat('T_N', [128, 75, 218, 255]),
      arm: flat('T_ARM', [255, 160, 32, 255]),
      emissive: flat('T_E', [0, 255, 0, 255]),
    };
    const m = await applyMaterialMaps(standard(), t);
    const full = { map: m.map, normalMap: m.normalMap, aoMap: m.aoMap, emissiveMap: m.emissiveMap };
    const version = m.version;
    expect(setBaseColourOnly(m, true)).toBe(true);
    expect(m.version).toBeGreaterThan(version);
    expect(m.map).toBe(full.map);
    expect([m.normalMap, m.aoMap, m.roughnessMap, m.metalnessMap, m.emissiveMap]).toEqual([null, null, null, null, null]);
    expect([m.roughness, m.metalness, m.emissive.getHex(), m.color.getHex()]).toEqual([0.75, 0.05, 0, 0xffffff]);
    expect(m.normalScale.toArray()).toEqual([1, 1]);
    expect(m.userData.materialMaps.baseColourOnly).toBe(true);
    setBaseColourOnly(m, false);
    expect({ map: m.map, normalMap: m.normalMap, aoMap: m.aoMap, emissiveMap: m.emissiveMap }).toEqual(full);
    expect([m.roughness, m.metalness, m.emissive.getHex()]).toEqual([1, 1, 0xffffff]);
    expect(m.normalScale.toArray()).toEqual([1, -1]);
    // Maps applied while the toggle is on wait for it to go off.
    setBaseColourOnly(m, true);
    await applyMaterialMaps(m, { base: t.base, normal: t.normal });
    expect(m.normalMap).toBe(null);
    setBaseColourOnly(m, false);
    expect(m.normalMap.source).toBe(t.normal.source);
    expect(m.aoMap).toBe(null);
    expect(setBaseColourOnly(standard(), true)).toBe(false);
  });

  it('loads through textureOf, keeping the maps that load when one fails', async () => {
    const library = { 'T_BC.png': flat('T_BC', [1, 2, 3, 255]), 'T_N.png': flat('T_N', [128, 128, 255, 255]) };
    const textureOf = async (record) => {
      if (!library[record.path]) throw new Error(`${record.path}: not a PNG`);
      return library[record.path];
    };
    const m = await applyMaterialMaps(
      standard(),
      { base: { path: 'T_BC.png' }, normal: { path: 'T_N.png' }, arm: { path: 'T_ARM.tga' } },
      textureOf,
    );
    expect(m.map.source).toBe(library['T_BC.png'].source);
    expect(m.normalMap.source).toBe(library['T_N.png'].source);
    expect(m.aoMap).toBe(null);
    expect(m.userData.materialMaps.skipped).toEqual([{ role: 'arm', reason: 'the texture failed to load: T_ARM.tga: not a PNG' }]);
  });

  it('gives an unlit material only the slots it has', async () => {
    const m = await applyMaterialMaps(new THREE.MeshBasicMaterial(), {
      base: flat('T_BC', [1, 2, 3, 255]),
      normal: flat('T_N', [128, 128, 255, 255]),
      arm: flat('T_ARM', [255, 0, 0, 255]),
    });
    expect(m.map).not.toBe(null);
    expect(m.aoMap).not.toBe(null);
    for (const k of ['normalMap', 'roughnessMap', 'metalnessMap', 'roughness', 'normalScale']) expect(k in m).toBe(false);
  });

  it('keeps the material serialisable (no textures in userData)', async () => {
    const m = await applyMaterialMaps(standard(), { base: flat('T_BC', [1, 2, 3, 255]) });
    expect(JSON.parse(JSON.stringify(m.userData))).toEqual({ materialMaps: { roles: ['base'], baseColourOnly: false, skipped: [] } });
    expect(m.clone().map).toBe(m.map);
  });
});

// ------------------------------------------------------------------------------------------------

/** The RGBA rows of a PNG written by encodePNG (8-bit RGBA, filter 0 on every row). */
function decodePNG(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8,
    width = 0,
    height = 0;
  const idat = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      [width, height] = [view.getUint32(at + 8), view.getUint32(at + 12)];
      expect(Array.from(body.subarray(8))).toEqual([8, 6, 0, 0, 0]);
    }
    if (type === 'IDAT') idat.push(...body);
    if (type === 'IEND') break; // a GLB pads its image buffer views to 4 bytes
    at += 12 + length;
  }
  const raw = unzlibSync(new Uint8Array(idat));
  const rgba = [];
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    rgba.push(...raw.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)));
  }
  return { width, height, rgba };
}

describe('encodePNG', () => {
  it('writes signature, IHDR, IDAT and IEND with their CRCs', () => {
    const rgba = new Uint8Array([255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const png = encodePNG(rgba, 3, 2);
    const hex = (a) => Array.from(a, (b) => b.toString(16).padStart(2, '0')).join('');
    expect(hex(png.subarray(8, 33))).toBe('0000000d49484452000000030000000208060000009d74661a'); // CRC from Python's zlib.crc32
    expect(hex(png.subarray(png.length - 12))).toBe('0000000049454e44ae426082');
    expect(decodePNG(png)).toEqual({ width: 3, height: 2, rgba: Array.from(rgba) });
    expect(() => encodePNG(rgba, 4, 2)).toThrow('PNG: 4x2 pixels need 32 bytes, 24 given');
  });
});

describe('GLB export of the maps', () => {
  installNodeCanvas();

  async function exportGLB(material) {
    const mesh = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), material);
    mesh.name = 'Hero';
    const glb = new Uint8Array(await new GLTFExporter().parseAsync(mesh, { binary: true }));
    const report = await validateBytes(glb);
    const view = new DataView(glb.buffer);
    const jsonLength = view.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength)));
    const bin = glb.subarray(20 + jsonLength + 8);
    const image = (textureInfo) => {
      const tex = json.textures[textureInfo.index];
      const img = json.images[tex.source];
      const bv = json.bufferViews[img.bufferView];
      expect(img.mimeType).toBe('image/png');
      return { source: tex.source, ...decodePNG(bin.subarray(bv.byteOffset ?? 0, (bv.byteOffset ?? 0) + bv.byteLength)) };
    };
    return { report, json, image };
  }

  it('writes base colour, normal, metallic-roughness, occlusion and emissive textures the validator accepts', async () => {
    const base = texture('T_BC', [
      [200, 40, 40, 255],
      [10, 20, 30, 255],
      [40, 50, 60, 255],
      [70, 80, 90, 255],
    ]);
    const normal = texture('T_N', [
      [128, 75, 218, 255],
      [128, 75, 218, 255],
      [128, 180, 218, 255],
      [128, 180, 218, 255],
    ]);
    const arm = texture('T_ARM', [
      [255, 160, 32, 255],
      [250, 150, 30, 255],
      [200, 100, 20, 255],
      [100, 50, 10, 255],
    ]);
    const emissive = flat('T_E', [0, 255, 0, 255]);
    const { report, json, image } = await exportGLB(await applyMaterialMaps(standard(), { base, normal, arm, emissive }));
    expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
    expect(report.issues.numErrors).toBe(0);
    const [material] = json.materials;
    expect(material.pbrMetallicRoughness).toMatchObject({ metallicFactor: 1, roughnessFactor: 1 });
    expect(material.emissiveFactor).toEqual([1, 1, 1]);
    expect(material.normalTexture.scale).toBe(undefined);
    // DataTextures are written as stored (their flipY is false); a DirectX normal map drawn with
    // normalScale.y = -1 on a mesh without tangents keeps its pixels (see material-maps.js).
    expect(image(material.pbrMetallicRoughness.baseColorTexture).rgba).toEqual(pixels(base));
    expect(image(material.normalTexture).rgba).toEqual(pixels(normal));
    const packed = image(material.pbrMetallicRoughness.metallicRoughnessTexture);
    expect(packed.rgba).toEqual(pixels(arm));
    expect(image(material.occlusionTexture).source).toBe(packed.source);
    expect(image(material.emissiveTexture).rgba).toEqual(pixels(emissive));
    expect(report.info.resources.filter((r) => r.pointer.startsWith('/images/'))).toHaveLength(4);
  });

  it('writes the specular approximation as a dielectric and a masked material as MASK', async () => {
    const specular = texture('T_S', [
      [255, 255, 255, 255],
      [0, 0, 0, 255],
      [90, 120, 150, 255],
      [51, 51, 51, 255],
    ]);
    const { report, json, image } = await exportGLB(
      await applyMaterialMaps(
        standard(),
        { base: flat('T_BC', [1, 2, 3, 255]), specular, mask: flat('T_M', [255, 255, 255, 255]) },
        undefined,
        { blend: 'masked' },
      ),
    );
    expect(report.issues.numErrors).toBe(0);
    const [material] = json.materials;
    expect(material.pbrMetallicRoughness).toMatchObject({ metallicFactor: 0, roughnessFactor: 1 });
    expect(image(material.pbrMetallicRoughness.metallicRoughnessTexture).rgba).toEqual([
      255, 0, 0, 255, 255, 255, 0, 255, 255, 135, 0, 255, 255, 204, 0, 255,
    ]);
    expect(material.occlusionTexture).toBe(undefined);
    expect([material.alphaMode, material.alphaCutoff]).toEqual(['MASK', 0.5]);
  });
});

describe('fixture maps (write_material_fixtures)', () => {
  const dir = `${FIXTURES}unreal_export/fmodel_json/Game/Characters/Hero/Textures/`;
  const png = (name) => decodePNG(bytes(dir + name));
  const tga = (name) => {
    const t = new TGALoader().parse(bytes(dir + name).buffer);
    return { width: t.width, height: t.height, rgba: Array.from(t.data) };
  };
  const halves = (top, bottom = top) => ({
    width: 8,
    height: 8,
    rgba: Array.from({ length: 64 }, (_, i) => (i < 32 ? top : bottom)).flat(),
  });

  it('decode to the documented pixels, top rows first (PNG with stored deflate, TGA of both origins)', () => {
    expect(png('T_Hero_Body_BC.png')).toEqual(halves([230, 60, 60, 255], [140, 30, 30, 255]));
    expect(png('T_Default_BC.png')).toEqual(halves([128, 128, 128, 255]));
    expect(png('T_Hero_Body_N.png')).toEqual(halves([128, 75, 218, 255], [128, 180, 218, 255]));
    expect(tga('T_Hero_Body_ARM.tga')).toEqual(halves([255, 140, 0, 255]));
    expect(tga('T_Head_D.tga')).toEqual(halves([60, 120, 230, 255], [30, 60, 150, 255]));
    expect(tga('T_Head_N.tga')).toEqual(halves([128, 128, 255, 255]));
  });
});
