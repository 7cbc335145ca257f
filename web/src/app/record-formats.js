// The recording formats, each through a well-kept encoder: GIF (gifenc), APNG and PNG sprite
// sheets (UPNG.js), WebM (mediabunny over WebCodecs). An encoder takes RGBA frames (rows from the
// top, alpha straight or premultiplied as the GPU wrote it) one at a time and gives the file's bytes.
// Each library is loaded only when its format is recorded.

/**
 * The encoder for `format`: {add(rgba, k), finish() → Uint8Array, close()}. `options`: width,
 * height, rate, frames, transparent.
 */
export async function encoderFor(format, options) {
  const make = { gif: gifEncoder, apng: apngEncoder, sheet: sheetEncoder, webm: webmEncoder }[format];
  if (!make) throw new Error(`Unknown recording format "${format}"`);
  return make(options);
}

/** The sprite sheet's grid: as square as the frames allow, filled row by row. */
export function sheetGrid(frames) {
  const columns = Math.ceil(Math.sqrt(frames));
  return { columns, rows: Math.ceil(frames / columns) };
}

/** Milliseconds each frame shows at `rate` frames a second. */
const frameMs = (rate) => 1000 / rate;

/**
 * Anti-aliased edges over a cleared (alpha 0) background come out premultiplied: colour × alpha.
 * PNG and GIF store straight colour, so divide it back out.
 */
function unpremultiply(rgba) {
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3];
    if (a === 0 || a === 255) continue;
    const scale = 255 / a;
    rgba[i] = Math.min(255, Math.round(rgba[i] * scale));
    rgba[i + 1] = Math.min(255, Math.round(rgba[i + 1] * scale));
    rgba[i + 2] = Math.min(255, Math.round(rgba[i + 2] * scale));
  }
  return rgba;
}

/** Animated GIF, a palette per frame; transparent: pixels under half alpha are the clear index. */
async function gifEncoder({ width, height, rate, transparent }) {
  const { GIFEncoder, quantize, applyPalette } = await import('gifenc');
  const gif = GIFEncoder();
  const delay = frameMs(rate);
  return {
    add(rgba) {
      if (transparent) unpremultiply(rgba);
      const format = transparent ? 'rgba4444' : 'rgb565';
      const palette = quantize(rgba, 256, { format, oneBitAlpha: transparent });
      const index = applyPalette(rgba, palette, format);
      const transparentIndex = transparent ? palette.findIndex((c) => c[3] === 0) : -1;
      gif.writeFrame(index, width, height, {
        palette,
        delay,
        repeat: 0,
        transparent: transparentIndex >= 0,
        transparentIndex: Math.max(0, transparentIndex),
        // Each frame replaces the last: a transparent pixel must not show the frame before.
        dispose: transparent ? 2 : -1,
      });
    },
    finish() {
      gif.finish();
      return gif.bytes();
    },
  };
}

/** UPNG.js, loaded once: a CommonJS module that needs pako beside it. */
async function upng() {
  const mod = await import('upng-js');
  return mod.default ?? mod;
}

/** Animated PNG: lossless frames, each shown 1/rate s (an APNG player loops it forever). */
async function apngEncoder({ width, height, rate, transparent }) {
  const UPNG = await upng();
  const frames = [];
  return {
    add(rgba) {
      frames.push((transparent ? unpremultiply(rgba) : rgba).buffer);
    },
    finish() {
      return new Uint8Array(UPNG.encode(frames, width, height, 0, new Array(frames.length).fill(Math.round(frameMs(rate)))));
    },
  };
}

/** All frames on one PNG, left to right then top to bottom. */
async function sheetEncoder({ width, height, frames, transparent }) {
  const UPNG = await upng();
  const { columns, rows } = sheetGrid(frames);
  const sheet = new Uint8Array(columns * width * rows * height * 4);
  const stride = columns * width * 4;
  return {
    add(rgba, k) {
      if (transparent) unpremultiply(rgba);
      const x = (k % columns) * width * 4;
      const y = Math.floor(k / columns) * height;
      for (let row = 0; row < height; row++) sheet.set(rgba.subarray(row * width * 4, (row + 1) * width * 4), (y + row) * stride + x);
    },
    finish() {
      return new Uint8Array(UPNG.encode([sheet.buffer], columns * width, rows * height, 0));
    },
  };
}

/** WebM through WebCodecs (VP9, else VP8): exact timestamps k / rate, one key frame a second. */
async function webmEncoder({ width, height, rate }) {
  if (typeof VideoEncoder === 'undefined') throw new Error('This browser cannot encode video (no WebCodecs): record a GIF or APNG instead');
  const { Output, WebMOutputFormat, BufferTarget, VideoSampleSource, VideoSample, getFirstEncodableVideoCodec } =
    await import('mediabunny');
  const codec = await getFirstEncodableVideoCodec(['vp9', 'vp8'], { width, height });
  if (!codec) throw new Error(`This browser cannot encode VP9 or VP8 video at ${width} × ${height}: record a GIF or APNG instead`);
  const target = new BufferTarget();
  const output = new Output({ format: new WebMOutputFormat(), target });
  const source = new VideoSampleSource({ codec, bitrate: 4e6, keyFrameInterval: 1 });
  output.addVideoTrack(source, { frameRate: rate });
  await output.start();
  return {
    async add(rgba, k) {
      const sample = new VideoSample(rgba, {
        format: 'RGBA',
        codedWidth: width,
        codedHeight: height,
        timestamp: k / rate,
        duration: 1 / rate,
      });
      try {
        await source.add(sample);
      } finally {
        sample.close();
      }
    },
    async finish() {
      await output.finalize();
      return new Uint8Array(target.buffer);
    },
    close() {
      if (output.state === 'started') output.cancel();
    },
  };
}
