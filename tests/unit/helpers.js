// Shared set-up for unit tests: the WASM decoders in Node, sample and fixture paths.
import { existsSync, readFileSync } from 'node:fs';
import { loadNodeDecoders } from '../../web/src/decoder/node.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { Box3, Vector3 } from 'three';

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
