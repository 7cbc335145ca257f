// A stand-in canvas for tests that run three's GLTFExporter in Node: the exporter draws every texture
// into a 2D canvas and asks it for a PNG blob; `installNodeCanvas()` provides the few canvas calls
// it makes, with the browser's semantics, over plain RGBA pixels. (Rigscope's own export writes its
// pictures itself: web/src/three/export.js.)
import { encodePng } from '../../web/src/core/png.js';

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
    const xs = [a * x + e, a * (x + w) + e],
      ys = [d * y + f, d * (y + h) + f];
    const clamp = (v, max) => Math.max(0, Math.min(max, Math.round(v)));
    return {
      x0: clamp(Math.min(...xs), this.canvas.width),
      x1: clamp(Math.max(...xs), this.canvas.width),
      y0: clamp(Math.min(...ys), this.canvas.height),
      y1: clamp(Math.max(...ys), this.canvas.height),
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
    const src = image.pixels,
      dst = this.canvas.pixels;
    for (let y = y0; y < y1; y++) {
      // Back to user space at the pixel centre, then to the source pixel (nearest).
      const sy = Math.floor((((y + 0.5 - f) / d - dy) * image.height) / dh);
      if (sy < 0 || sy >= image.height) continue;
      for (let x = x0; x < x1; x++) {
        const sx = Math.floor((((x + 0.5 - e) / a - dx) * image.width) / dw);
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
        const X = sx + x,
          Y = sy + y;
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

  get width() {
    return this._width;
  }
  set width(v) {
    this._width = v;
    this.reset();
  }
  get height() {
    return this._height;
  }
  set height(v) {
    this._height = v;
    this.reset();
  }

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
    return new Blob([encodePng(this.pixels, this._width, this._height)], { type });
  }
}

// GLTFExporter reads its blobs back through FileReader.
class NodeFileReader {
  readAsArrayBuffer(blob) {
    blob.arrayBuffer().then((b) => {
      this.result = b;
      this.onloadend?.();
    });
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
