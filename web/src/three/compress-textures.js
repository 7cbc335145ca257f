// Textures of a compressed export: PNG and JPEG pictures written again as WebP
// (EXT_texture_webp). The encoder is the caller's: the page uses the browser's own (a canvas'
// `convertToBlob`), the CLI libwebp's WASM build (web/cli/webp.js), which Node needs and a page
// would only carry as dead weight.

/** WebP at this quality: colour textures of old games have no detail finer than it keeps. */
export const WEBP_QUALITY = 90;

/** The browser's WebP encoder: decode with `createImageBitmap`, encode from a canvas. */
export async function canvasWebP(bytes, mimeType) {
  const bitmap = await createImageBitmap(new Blob([bytes], { type: mimeType }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  canvas.getContext('2d').drawImage(bitmap, 0, 0);
  bitmap.close();
  const blob = await canvas.convertToBlob({ type: 'image/webp', quality: WEBP_QUALITY / 100 });
  // A browser without a WebP encoder answers with PNG: keep the original then.
  return blob.type === 'image/webp' ? new Uint8Array(await blob.arrayBuffer()) : null;
}

/**
 * @param {import('@gltf-transform/core').Document} doc
 * @param {{ WebP: Function, encodeImage?: (bytes: Uint8Array, mimeType: string) => Promise<Uint8Array|null> }} options
 *   WebP: glTF-Transform's EXTTextureWebP
 * @returns {Promise<string[]>} textures left as they were, and why
 */
export async function encodeWebP(doc, { WebP, encodeImage = canvasWebP }) {
  const problems = [];
  let used = false;
  for (const texture of doc.getRoot().listTextures()) {
    const mimeType = texture.getMimeType();
    const image = texture.getImage();
    if (!image || (mimeType !== 'image/png' && mimeType !== 'image/jpeg')) continue;
    try {
      const webp = await encodeImage(image, mimeType);
      // WebP is not always smaller (a tiny or flat PNG): the smaller one goes in.
      if (!webp || webp.length >= image.length) continue;
      texture.setImage(webp).setMimeType('image/webp');
      if (texture.getURI()) texture.setURI(texture.getURI().replace(/\.\w+$/, '.webp'));
      used = true;
    } catch (err) {
      problems.push(`${texture.getName() || 'texture'}: left as ${mimeType} (${err.message})`);
    }
  }
  if (used) doc.createExtension(WebP).setRequired(true);
  return problems;
}
