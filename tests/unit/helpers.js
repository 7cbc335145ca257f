// Shared set-up for unit tests: the WASM decoders in Node, sample and fixture paths.
import { afterAll, beforeAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadNodeDecoders } from '../../web/src/decoder/node.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { Box3, Vector3 } from 'three';
import { startServer } from '../e2e/server.js';

export const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;
export const FIXTURES = new URL('../../build/fixtures/', import.meta.url).pathname;
export const HAVE_SAMPLES = existsSync(SAMPLES);
if (!HAVE_SAMPLES) console.warn(`[rigscope] ${SAMPLES} not found: tests on real sample files are skipped`);

let decoders;
export const decoder = () => (decoders ??= loadNodeDecoders());

export const bytes = (path) => new Uint8Array(readFileSync(path));
export const sample = (rel) => bytes(SAMPLES + rel);
export const fixture = (rel) => bytes(FIXTURES + rel);
export const entry = (path) => entryFromBytes(path, readFileSync(path));

/** An ActorX chunk: 32-byte header, then `count` records of `size` bytes written by `fill(view, offset, i)`. */
export function pskChunk(id, size, count, fill = () => {}) {
  const v = new DataView(new ArrayBuffer(32 + size * count));
  for (let i = 0; i < id.length; i++) v.setUint8(i, id.charCodeAt(i));
  v.setInt32(24, size, true);
  v.setInt32(28, count, true);
  for (let i = 0; i < count; i++) fill(v, 32 + size * i, i);
  return new Uint8Array(v.buffer);
}

/** Byte arrays one after another, as one. */
export function joinBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** Decodes through the same op names the worker uses. */
export async function decode(op, ...args) {
  const d = await decoder();
  const model = await d.call(op, args);
  model.file = typeof args[1] === 'string' ? args[1] : undefined;
  return model;
}

/** Decodes the GLB's JSON chunk. */
export function glbJson(glb) {
  const view = new DataView(glb);
  return JSON.parse(new TextDecoder().decode(new Uint8Array(glb, 20, view.getUint32(12, true))));
}

/** The GLB read back by three's GLTFLoader. */
export async function reimport(glb) {
  // Node has no image decoder: the GLB's pictures are checked in its JSON, not re-decoded here.
  const json = glbJson(glb);
  for (const m of json.materials ?? []) {
    delete m.pbrMetallicRoughness?.baseColorTexture;
    delete m.pbrMetallicRoughness?.metallicRoughnessTexture;
    delete m.normalTexture;
    delete m.occlusionTexture;
    delete m.emissiveTexture;
  }
  delete json.textures;
  delete json.images;
  delete json.samplers;
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = (text.length + 3) & ~3;
  const binStart = 20 + new DataView(glb).getUint32(12, true);
  const bin = new Uint8Array(glb, binStart);
  const out = new Uint8Array(20 + padded + bin.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, out.length, true);
  v.setUint32(12, padded, true);
  v.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + padded);
  out.set(text, 20);
  out.set(bin, 20 + padded);
  // Compressed exports (EXT_meshopt_compression) need the decoder; raw ones never call it.
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  return new Promise((resolve, reject) => loader.parse(out.buffer, '', resolve, reject));
}

/** A viewer that draws nothing: App logic in Node. */
export const fakeViewer = () => ({
  add() {},
  remove() {},
  frameAll() {},
  view() {},
  place() {},
  requestRender() {},
  clear() {},
  visibleBounds: () => new Box3(),
  setWireframe() {},
  wireframe: false,
});

/** World positions of every vertex of a (skinned or morphed) mesh, as three computes them. */
export function positions(mesh) {
  mesh.updateMatrixWorld(true);
  const n = mesh.geometry.attributes.position.count;
  const out = new Float32Array(n * 3);
  const v = new Vector3();
  for (let i = 0; i < n; i++) {
    mesh.getVertexPosition(i, v).applyMatrix4(mesh.matrixWorld);
    out.set([v.x, v.y, v.z], i * 3);
  }
  return out;
}

/**
 * A UE1 mesh written for a test in `dir`: a `side` × `side` grid (`wave_d.3d`, two triangles a
 * cell, texture slot 1) and `frames` packed 11:11:10 frames of it waving (`wave_a.3d`), every frame
 * different (spec §2 and §3.2). @returns {string[]} the two paths
 */
export function writeUe1Wave(dir, side, frames) {
  const cells = (side - 1) ** 2;
  const data = new DataView(new ArrayBuffer(48 + 32 * cells));
  data.setUint16(0, 2 * cells, true);
  data.setUint16(2, side * side, true);
  let at = 48;
  const triangle = (a, b, c, u, v) => {
    [a, b, c].forEach((i, k) => data.setUint16(at + 2 * k, i, true));
    [u, v, u + 8, v, u, v + 8].forEach((x, k) => data.setUint8(at + 8 + k, x));
    data.setUint8(at + 14, 1);
    at += 16;
  };
  for (let y = 0; y < side - 1; y++)
    for (let x = 0; x < side - 1; x++) {
      const i = y * side + x;
      triangle(i, i + 1, i + side, x * 8, y * 8);
      triangle(i + 1, i + side + 1, i + side, x * 8, y * 8);
    }
  const n = side * side;
  const anim = new DataView(new ArrayBuffer(4 + frames * n * 4));
  anim.setUint16(0, frames, true);
  anim.setUint16(2, n * 4, true);
  for (let f = 0; f < frames; f++)
    for (let i = 0; i < n; i++) {
      const [x, y] = [(i % side) * 40 - 400, Math.floor(i / side) * 40 - 400];
      const z = Math.round(300 * Math.sin(f * 0.05 + (i % side) * 0.3 + Math.floor(i / side) * 0.2));
      anim.setUint32(4 + (f * n + i) * 4, ((x & 0x7ff) | ((y & 0x7ff) << 11) | ((z & 0x3ff) << 22)) >>> 0, true);
    }
  const paths = [join(dir, 'wave_d.3d'), join(dir, 'wave_a.3d')];
  writeFileSync(paths[0], new Uint8Array(data.buffer));
  writeFileSync(paths[1], new Uint8Array(anim.buffer));
  return paths;
}

/**
 * The test site's server (tests/e2e/server.js: the samples under /samples/, single ranges
 * answered) for one describe block: `served` collects what it answered, `url(path)` names a file.
 */
export function sampleServer() {
  const served = [];
  let site = null;
  beforeAll(async () => {
    site = await startServer(0, { site: 'build/fixtures/', served });
  });
  afterAll(() => site?.server.close());
  return { served, url: (path) => `${site.url}${path}` };
}
