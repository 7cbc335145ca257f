// Compressed exports in Node (`--compress`). WebP: PNG decoded and WebP encoded by the WASM builds of libpng
// and libwebp (@jsquash), whose modules are handed their .wasm bytes here, as Node's fetch cannot
// read files. JPEG is left as it is (the exporter writes PNG for every picture it decodes).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { WEBP_QUALITY } from '../src/three/compress-textures.js';

const require = createRequire(import.meta.url);
const wasm = (specifier) => readFile(require.resolve(specifier));

let codecs;
function load() {
  codecs ??= (async () => {
    const png = await import('@jsquash/png/decode.js');
    const webp = await import('@jsquash/webp/encode.js');
    await png.init(await wasm('@jsquash/png/codec/pkg/squoosh_png_bg.wasm'));
    // The SIMD build when the runtime has it (Node 20 does), as @jsquash itself chooses.
    const simd = await import('wasm-feature-detect').then((m) => m.simd());
    const file = simd ? 'webp_enc_simd.wasm' : 'webp_enc.wasm';
    await webp.init({ wasmBinary: await wasm(`@jsquash/webp/codec/enc/${file}`) });
    return { decodePng: png.default, encodeWebP: webp.default };
  })();
  return codecs;
}

/** @returns {Promise<Uint8Array|null>} the picture as WebP, or null when it stays as it is */
export async function nodeWebP(bytes, mimeType) {
  if (mimeType !== 'image/png') return null;
  const { decodePng, encodeWebP } = await load();
  const image = await decodePng(bytes.slice().buffer);
  return new Uint8Array(await encodeWebP(image, { quality: WEBP_QUALITY }));
}

/**
 * KTX2 (KHR_texture_basisu): Basis Universal ETC1S with mipmaps through ktx2-encoder's
 * glTF-Transform transform, which in Node wants the PNGs decoded for it. Pictures it cannot take
 * (JPEG here) stay as they are and are named.
 */
export async function nodeKtx2(doc) {
  const [{ ktx2 }, { decodePng }] = await Promise.all([import('ktx2-encoder/gltf-transform'), load()]);
  const imageDecoder = async (bytes) => {
    const image = await decodePng(bytes.slice().buffer);
    return { data: new Uint8Array(image.data.buffer), width: image.width, height: image.height };
  };
  // The Basis encoder prints its progress through console.log whatever its debug flag says; the
  // command's stdout is its result lines (and --json), so that chatter is kept out of it.
  const log = console.log;
  console.log = () => {};
  try {
    await doc.transform(ktx2({ isUASTC: false, generateMipmap: true, qualityLevel: 128, enableDebug: false, imageDecoder }));
  } finally {
    console.log = log;
  }
  return doc
    .getRoot()
    .listTextures()
    .filter((t) => t.getMimeType() !== 'image/ktx2')
    .map((t) => `${t.getName() || 'texture'}: left as ${t.getMimeType()} (no KTX2 encoding for it here)`);
}

/** `--compress [--textures webp|ktx2|keep]` on a GLB `exportGLB` wrote. */
export async function compressForCli(glb, { textures = 'webp' } = {}) {
  const { compressGLB } = await import('../src/three/compress.js');
  return compressGLB(glb, { textures, encodeImage: nodeWebP, encodeKtx2: nodeKtx2 });
}
