// PNG encoding for GLB export outside the browser. three's GLTFExporter draws every texture into a 2D
// canvas and asks it for a PNG blob; Node has neither, so `installNodeCanvas()` provides the few
// canvas calls the exporter makes, with the browser's semantics, over plain RGBA pixels.
import { zlibSync } from 'fflate';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes, start, end) {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

/**
 * An 8-bit RGBA PNG of `width` × `height` pixels, rows top first.
 * @param {Uint8Array|Uint8ClampedArray} rgba width * height * 4 bytes
 * @returns {Uint8Array}
 */
export function encodePNG(rgba, width, height) {
  if (!(width > 0 && height > 0) || rgba.length < width * height * 4) {
    throw new Error(`PNG: ${width}x${height} pixels need ${width * height * 4} bytes, ${rgba.length} given`);
  }
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1); // filter 0: none
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, adaptive filters, no interlace
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', zlibSync(raw)), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

class NodeImageData {
  constructor(dataOrWidth, widthOrHeight, height) {
    if (typeof dataOrWidth === 'number') {
      this.width = dataOrWidth;
      this.height = widthOrHeight;
      this.data = new Uint8ClampedArray(this.width * this.height * 4);
    } else {
      this.data = dataOrWidth;
      this.width = widthOrHeight;
      this.height = height ?? dataOrWidth.length / 4 / widthOrHeight;
    }
  }
}

// The 2D context calls GLTFExporter makes: translate/scale (its vertical flip), fillRect, drawImage of
// another canvas, putImageData and getImageData. As in browsers, putImageData and getImageData ignore
// the transform, and drawImage accepts canvases only (not a DataTexture's { data, width, height }).
class NodeContext2D {
  constructor(canvas) {
    this.canvas = canvas;
    this.fillStyle = '#000000';
    this.matrix = [1, 0, 0, 1, 0, 0]; // a b c d e f, axis-aligned only: b = c = 0
  }

  translate(x, y) {
    const [a, , , d, e, f] = this.matrix;
    this.matrix = [a, 0, 0, d, e + a * x, f + d * y];
  }

  scale(x, y) {
    const [a, , , d, e, f] = this.matrix;
    this.matrix = [a * x, 0, 0, d * y, e, f];
  }

  setTransform(a, b, c, d, e, f) {
    this.matrix = [a, b, c, d, e, f];
  }

  // Device pixels covered by the user-space rectangle (x, y, w, h) under the transform.
  deviceRect(x, y, w, h) {
    const [a, , , d, e, f] = this.matrix;
    const xs = [a * x + e, a * (x + w) + e], ys = [d * y + f, d * (y + h) + f];
    const clamp = (v, max) => Math.max(0, Math.min(max, Math.round(v)));
    return {
      x0: clamp(Math.min(...xs), this.canvas.width), x1: clamp(Math.max(...xs), this.canvas.width),
      y0: clamp(Math.min(...ys), this.canvas.height), y1: clamp(Math.max(...ys), this.canvas.height),
    };
  }

  fillRect(x, y, w, h) {
    const m = /^#([0-9a-f]{6})$/i.exec(this.fillStyle);
    if (!m) throw new Error(`canvas stand-in: fillStyle ${this.fillStyle} is not #rrggbb`);
    const v = parseInt(m[1], 16);
    const rgba = [v >> 16, (v >> 8) & 255, v & 255, 255];
    const { x0, x1, y0, y1 } = this.deviceRect(x, y, w, h);
    const px = this.canvas.pixels;
    for (let yy = y0; yy < y1; yy++) {
      for (let xx = x0; xx < x1; xx++) px.set(rgba, (yy * this.canvas.width + xx) * 4);
    }
  }

  drawImage(image, dx = 0, dy = 0, dw = image?.width, dh = image?.height) {
    if (!(image instanceof NodeOffscreenCanvas)) throw new TypeError('canvas stand-in: drawImage takes a canvas');
    const [a, , , d, e, f] = this.matrix;
    const { x0, x1, y0, y1 } = this.deviceRect(dx, dy, dw, dh);
    const src = image.pixels, dst = this.canvas.pixels;
    for (let y = y0; y < y1; y++) {
      // Back to user space at the pixel centre, then to the source pixel (nearest).
      const sy = Math.floor((((y + 0.5 - f) / d) - dy) * image.height / dh);
      if (sy < 0 || sy >= image.height) continue;
      for (let x = x0; x < x1; x++) {
        const sx = Math.floor((((x + 0.5 - e) / a) - dx) * image.width / dw);
        if (sx < 0 || sx >= image.width) continue;
        const s = (sy * image.width + sx) * 4;
        dst.set(src.subarray(s, s + 4), (y * this.canvas.width + x) * 4);
      }
    }
  }

  putImageData(imageData, dx, dy) {
    const { width, height } = this.canvas;
    for (let y = 0; y < imageData.height; y++) {
      const ty = dy + y;
      if (ty < 0 || ty >= height) continue;
      for (let x = 0; x < imageData.width; x++) {
        const tx = dx + x;
        if (tx < 0 || tx >= width) continue;
        const s = (y * imageData.width + x) * 4;
        this.canvas.pixels.set(imageData.data.subarray(s, s + 4), (ty * width + tx) * 4);
      }
    }
  }

  getImageData(sx, sy, sw, sh) {
    const out = new NodeImageData(sw, sh);
    for (let y = 0; y < sh; y++) {
      for (let x = 0; x < sw; x++) {
        const X = sx + x, Y = sy + y;
        if (X < 0 || Y < 0 || X >= this.canvas.width || Y >= this.canvas.height) continue;
        const s = (Y * this.canvas.width + X) * 4;
        out.data.set(this.canvas.pixels.subarray(s, s + 4), (y * sw + x) * 4);
      }
    }
    return out;
  }
}

class NodeOffscreenCanvas {
  constructor(width, height) {
    this._width = width;
    this._height = height;
    this.reset();
  }

  get width() { return this._width; }
  set width(v) { this._width = v; this.reset(); }
  get height() { return this._height; }
  set height(v) { this._height = v; this.reset(); }

  // As in browsers, resizing clears the canvas (transparent black) and its context state.
  reset() {
    this.pixels = new Uint8ClampedArray(this._width * this._height * 4);
    this.context = null;
  }

  getContext(type) {
    if (type !== '2d') return null;
    this.context ??= new NodeContext2D(this);
    return this.context;
  }

  async convertToBlob({ type = 'image/png' } = {}) {
    if (type !== 'image/png') throw new Error(`canvas stand-in: only image/png can be encoded, not ${type}`);
    return new Blob([encodePNG(this.pixels, this._width, this._height)], { type });
  }
}

// GLTFExporter reads its blobs back through FileReader.
class NodeFileReader {
  readAsArrayBuffer(blob) {
    blob.arrayBuffer().then((b) => { this.result = b; this.onloadend?.(); });
  }

  readAsDataURL(blob) {
    blob.arrayBuffer().then((b) => {
      this.result = `data:${blob.type || 'application/octet-stream'};base64,${Buffer.from(b).toString('base64')}`;
      this.onloadend?.();
    });
  }
}

/**
 * Outside a browser (no document, no OffscreenCanvas), installs the OffscreenCanvas, ImageData and
 * FileReader that GLTFExporter needs to embed textures. Does nothing in a browser or worker.
 */
export function installNodeCanvas() {
  if (typeof document !== 'undefined' || typeof globalThis.OffscreenCanvas !== 'undefined') return;
  globalThis.OffscreenCanvas = NodeOffscreenCanvas;
  globalThis.ImageData ??= NodeImageData;
  globalThis.FileReader ??= NodeFileReader;
}
