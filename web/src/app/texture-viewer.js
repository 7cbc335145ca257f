// The 2D texture viewer: one texture record on a canvas, with zoom and pan, alpha over a
// checkerboard, mip levels and cube faces. Decoded textures (PCX, PSG arenas, TGA/BMP/DDS) show
// their own levels: rgba8 as is, DXT blocks expanded to RGBA; browser images (PNG, JPEG, GIF,
// WebP) are decoded by the browser. Names and paths come from files: textContent only.
import { decodeDxt } from '../core/dxt.js';
import { displayName } from '../core/files.js';
import { decodedTexture } from '../core/fileset.js';
import { browserImageSize, checkImagePixels } from '../three/textures.js';
import { el } from './dom.js';

const FACES = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];
const MIN_SCALE = 1 / 64,
  MAX_SCALE = 1024;
const mipSize = (n, mip) => Math.max(1, n >> mip);

/**
 * The levels of a decoded texture ({ width, height, format, cube, mips }): `pixels(mip, face)`
 * gives that level's RGBA8, rows top first. Cube faces are concatenated in each level.
 */
function decodedLevels(t, label) {
  const faces = t.cube ? 6 : 1;
  return {
    width: t.width,
    height: t.height,
    format: t.format,
    faces,
    mips: t.mips.length,
    pixels(mip, face) {
      const width = mipSize(t.width, mip),
        height = mipSize(t.height, mip);
      const level = t.mips[mip];
      const faceBytes = level.byteLength / faces;
      const bytes = level.subarray(face * faceBytes, (face + 1) * faceBytes);
      if (t.format === 'rgba8') {
        if (bytes.byteLength < width * height * 4)
          throw new Error(`${label}: mip ${mip} holds ${bytes.byteLength} bytes, ${width} × ${height} RGBA needs ${width * height * 4}`);
        return { width, height, rgba: bytes.slice(0, width * height * 4) };
      }
      if (!['dxt1', 'dxt3', 'dxt5'].includes(t.format)) throw new Error(`${label}: format ${t.format} cannot be shown`);
      return { width, height, rgba: decodeDxt(t.format, bytes, width, height) };
    },
  };
}

let gl = null;

/**
 * A bitmap's pixels as the file stores them, read back through WebGL with straight alpha: a 2D
 * canvas premultiplies, which loses the colour under alpha 0 (0 A.D. player_trans textures keep
 * their colour there). Null when WebGL cannot take it; rows top first.
 */
function straightPixels(bitmap) {
  gl ??= new OffscreenCanvas(1, 1).getContext('webgl2');
  const { width, height } = bitmap;
  if (!gl || Math.max(width, height) > gl.getParameter(gl.MAX_TEXTURE_SIZE)) return null;
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
  const framebuffer = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
  const rgba = new Uint8Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  gl.deleteFramebuffer(framebuffer);
  gl.deleteTexture(texture);
  return rgba;
}

/** The same through a 2D canvas (premultiplied), where WebGL is not available. */
function canvasPixels(bitmap) {
  const { width, height } = bitmap;
  const ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  return new Uint8Array(ctx.getImageData(0, 0, width, height).data.buffer);
}

/** A browser image (PNG, JPEG, GIF, WebP) as one level, its declared size checked first. */
async function browserLevels(buffer, declared, label) {
  checkImagePixels(declared, label);
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([buffer]), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  } catch (err) {
    throw new Error(`${declared.type} ${label}: the browser could not decode it (${err.message})`, { cause: err });
  }
  const { width, height } = bitmap;
  const rgba = straightPixels(bitmap) ?? canvasPixels(bitmap);
  bitmap.close();
  return { width, height, format: declared.type, faces: 1, mips: 1, pixels: () => ({ width, height, rgba }) };
}

/** Where a record's pixels come from: its decoded levels, or its image file. */
async function levelsOf(record, decoder) {
  await record.restore?.(); // pixels the page let go of (a texture no material uses): decoded again
  if (record.decoded || record.load) return decodedLevels(await decodedTexture(record, decoder), record.name);
  if (!record.entry) throw new Error(`${record.name}: no pixels were decoded for this texture`);
  const buffer = await record.entry.read();
  const declared = browserImageSize(new Uint8Array(buffer));
  if (declared) return browserLevels(buffer, declared, record.entry.name);
  if (!decoder) throw new Error(`${record.entry.name}: no decoder to read this image with`);
  const model = await decoder.call('decodeImage', [buffer, record.entry.name]);
  return decodedLevels(model.textures[0], record.entry.name);
}

/** What the channels control shows: colour and alpha, colour alone, or alpha as grey. */
function applyChannels(rgba, mode) {
  const out = new Uint8ClampedArray(rgba);
  if (mode === 'rgb') for (let i = 3; i < out.length; i += 4) out[i] = 255;
  else if (mode === 'alpha')
    for (let i = 0; i < out.length; i += 4) {
      out[i] = out[i + 1] = out[i + 2] = out[i + 3];
      out[i + 3] = 255;
    }
  return out;
}

function checkerPattern(ctx) {
  const tile = new OffscreenCanvas(16, 16);
  const t = tile.getContext('2d');
  t.fillStyle = '#8a8f99';
  t.fillRect(0, 0, 16, 16);
  t.fillStyle = '#5d626c';
  t.fillRect(0, 0, 8, 8);
  t.fillRect(8, 8, 8, 8);
  return ctx.createPattern(tile, 'repeat');
}

/** The dialog, made once and reused for every texture. */
class TextureViewer {
  constructor() {
    this.title = el('h2', { id: 'texview-title' });
    this.facts = el('p', { class: 'texview-facts' });
    this.zoomLabel = el('output', { class: 'texview-zoom', 'aria-live': 'polite' });
    this.channels = el(
      'select',
      { class: 'texview-channels', 'aria-label': 'Alpha' },
      el('option', { value: 'rgba' }, 'RGBA over checkerboard'),
      el('option', { value: 'rgb' }, 'RGB only'),
      el('option', { value: 'alpha' }, 'Alpha as grey'),
    );
    this.mip = el('select', { class: 'texview-mip', 'aria-label': 'Mip level' });
    this.face = el('select', { class: 'texview-face', 'aria-label': 'Cube face' }, ...FACES.map((f, i) => el('option', { value: i }, f)));
    this.mipLabel = el('label', {}, 'Mip ', this.mip);
    this.faceLabel = el('label', {}, 'Face ', this.face);
    this.canvas = el('canvas', {
      class: 'texview-canvas',
      'aria-label': 'Texture (drag to pan, wheel or + − to zoom, 0 fit, 1 one to one)',
      tabIndex: 0,
    });
    this.message = el('p', { class: 'texview-message', role: 'status' });
    const zoomButton = (text, label, action) => el('button', { type: 'button', 'aria-label': label, title: label, onclick: action }, text);
    this.dialog = el(
      'dialog',
      { class: 'texview', 'aria-labelledby': 'texview-title' },
      el(
        'header',
        { class: 'texview-head' },
        this.title,
        el('form', { method: 'dialog' }, el('button', { class: 'texview-close', 'aria-label': 'Close' }, '×')),
      ),
      this.facts,
      el(
        'div',
        { class: 'texview-tools' },
        zoomButton('−', 'Zoom out', () => this.zoomBy(0.5)),
        this.zoomLabel,
        zoomButton('+', 'Zoom in', () => this.zoomBy(2)),
        zoomButton('Fit', 'Fit to the window', () => this.fit()),
        zoomButton('1:1', 'One texel per pixel', () => this.actualSize()),
        el('label', {}, 'Alpha ', this.channels),
        this.mipLabel,
        this.faceLabel,
      ),
      el('div', { class: 'texview-stage' }, this.canvas, this.message),
    );
    document.body.append(this.dialog);
    this.ctx = this.canvas.getContext('2d');
    this.checker = checkerPattern(this.ctx);
    this.source = new OffscreenCanvas(1, 1);
    this.view = { scale: 1, x: 0, y: 0 };
    this.fitted = true; // follows the window size and the mip level until zoomed or panned
    this.levels = null;
    this.cache = new Map(); // `${mip}/${face}` -> { width, height, rgba }

    this.channels.addEventListener('change', () => this.showLevel());
    this.mip.addEventListener('change', () => this.showLevel({ keepZoom: true }));
    this.face.addEventListener('change', () => this.showLevel({ keepZoom: true }));
    this.canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.canvas.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.dialog.addEventListener('keydown', (e) => this.onKey(e));
    this.dialog.addEventListener('close', () => {
      this.cache.clear();
      this.levels = null;
    });
    new ResizeObserver(() => (this.fitted ? this.fit() : this.draw())).observe(this.canvas);
  }

  async open(record, decoder) {
    const token = (this.token = {});
    this.levels = null;
    this.cache.clear();
    this.title.textContent = displayName(record.name);
    this.facts.textContent = displayName(record.path);
    this.message.textContent = 'Decoding…';
    this.mip.replaceChildren();
    this.mipLabel.hidden = this.faceLabel.hidden = true;
    this.channels.value = 'rgba';
    this.face.value = '0';
    if (!this.dialog.open) this.dialog.showModal();
    this.draw();
    try {
      const levels = await levelsOf(record, decoder);
      if (token !== this.token) return;
      this.levels = levels;
      this.facts.textContent = displayName(describe(record, levels));
      this.mip.replaceChildren(
        ...Array.from({ length: levels.mips }, (_, i) =>
          el('option', { value: i }, `${i}: ${mipSize(levels.width, i)} × ${mipSize(levels.height, i)}`),
        ),
      );
      this.mipLabel.hidden = levels.mips < 2;
      this.faceLabel.hidden = levels.faces < 2;
      this.message.textContent = '';
      this.showLevel();
    } catch (err) {
      if (token === this.token) this.message.textContent = err.message;
    }
  }

  /** Decodes the chosen level and face (once each) and puts it, channel mode applied, on the source canvas. */
  showLevel({ keepZoom = false } = {}) {
    if (!this.levels) return;
    const mip = Number(this.mip.value || 0),
      face = Number(this.face.value || 0);
    const key = `${mip}/${face}`;
    let level = this.cache.get(key);
    try {
      if (!level) this.cache.set(key, (level = this.levels.pixels(mip, face)));
    } catch (err) {
      this.message.textContent = err.message;
      return;
    }
    const { width, height, rgba } = level;
    const previous = this.source.width;
    this.source.width = width;
    this.source.height = height;
    this.source.getContext('2d').putImageData(new ImageData(applyChannels(rgba, this.channels.value), width, height), 0, 0);
    // Another mip keeps what is on screen where it was (the same texture area at the same place),
    // unless the view was fitted: then it stays fitted.
    if (keepZoom && previous && !this.fitted) this.view.scale *= previous / width;
    else this.fit();
    this.draw();
  }

  stageSize() {
    return { w: this.canvas.clientWidth, h: this.canvas.clientHeight };
  }

  fit() {
    const { w, h } = this.stageSize();
    const { width, height } = this.source;
    this.view.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, Math.min(w / width, h / height)));
    this.center();
    this.fitted = true;
  }

  actualSize() {
    this.view.scale = 1;
    this.center();
    this.fitted = false;
  }

  center() {
    const { w, h } = this.stageSize();
    this.view.x = (w - this.source.width * this.view.scale) / 2;
    this.view.y = (h - this.source.height * this.view.scale) / 2;
    this.draw();
  }

  /** Zooms by `factor`, keeping the texel under (px, py) (the middle by default) where it is. */
  zoomBy(factor, px = this.stageSize().w / 2, py = this.stageSize().h / 2) {
    const v = this.view;
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, v.scale * factor));
    v.x = px - ((px - v.x) * scale) / v.scale;
    v.y = py - ((py - v.y) * scale) / v.scale;
    v.scale = scale;
    this.fitted = false;
    this.draw();
  }

  onWheel(e) {
    e.preventDefault();
    const r = this.canvas.getBoundingClientRect();
    this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
  }

  onPointerDown(e) {
    if (e.button !== 0) return;
    this.canvas.setPointerCapture(e.pointerId);
    let x = e.clientX,
      y = e.clientY;
    const move = (m) => {
      this.view.x += m.clientX - x;
      this.view.y += m.clientY - y;
      x = m.clientX;
      y = m.clientY;
      this.fitted = false;
      this.draw();
    };
    const up = () => {
      this.canvas.removeEventListener('pointermove', move);
      this.canvas.removeEventListener('pointerup', up);
      this.canvas.removeEventListener('pointercancel', up);
    };
    this.canvas.addEventListener('pointermove', move);
    this.canvas.addEventListener('pointerup', up);
    this.canvas.addEventListener('pointercancel', up);
  }

  onKey(e) {
    if (e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      '+': () => this.zoomBy(2),
      '=': () => this.zoomBy(2),
      '-': () => this.zoomBy(0.5),
      0: () => this.fit(),
      1: () => this.actualSize(),
    };
    const action = keys[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  }

  draw() {
    const { w, h } = this.stageSize();
    const dpr = Math.min(devicePixelRatio || 1, 2);
    const cw = Math.max(1, Math.round(w * dpr)),
      ch = Math.max(1, Math.round(h * dpr));
    if (this.canvas.width !== cw || this.canvas.height !== ch) {
      this.canvas.width = cw;
      this.canvas.height = ch;
    }
    const { ctx, view } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, cw, ch);
    this.zoomLabel.textContent = `${+(view.scale * 100).toPrecision(3)}%`;
    if (!this.levels) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const iw = this.source.width * view.scale,
      ih = this.source.height * view.scale;
    if (this.channels.value === 'rgba') {
      ctx.fillStyle = this.checker;
      ctx.fillRect(view.x, view.y, iw, ih);
    }
    // Magnified texels stay square blocks; minified ones are filtered.
    ctx.imageSmoothingEnabled = view.scale < 1;
    ctx.drawImage(this.source, view.x, view.y, iw, ih);
    // The texture's edge, where its own pixels are as dark as the stage.
    ctx.strokeStyle = '#3d4350';
    ctx.lineWidth = 1;
    ctx.strokeRect(view.x - 0.5, view.y - 0.5, iw + 1, ih + 1);
  }
}

/** "T_Body.dds · 512 × 512 · DXT5 · 10 mips · cube · GUID …": the facts line. */
function describe(record, levels) {
  const parts = [
    record.path,
    `${levels.width} × ${levels.height}`,
    levels.format.toUpperCase(),
    `${levels.mips} mip${levels.mips === 1 ? '' : 's'}`,
  ];
  if (levels.faces > 1) parts.push('cube map');
  if (record.guid) parts.push(`GUID ${record.guid}`);
  return parts.join(' · ');
}

let viewer = null;

/** Opens the texture viewer on a texture record. `decoder` reads TGA, BMP and DDS files. */
export function openTextureViewer(record, { decoder } = {}) {
  viewer ??= new TextureViewer();
  return viewer.open(record, decoder);
}

/**
 * A small button that opens `record` in the texture viewer (material panel, Files panel). It holds
 * the record weakly: Chromium may keep a removed panel row alive (a closed panel's last layout),
 * and the row must not keep a cleared drop's pixels; the page holds the record while it is shown.
 */
export function textureButton(record, decoder) {
  const shown = new WeakRef(record);
  return el(
    'button',
    {
      type: 'button',
      class: 'texture-button',
      title: `View ${displayName(record.name)}`,
      'aria-label': `View texture ${displayName(record.name)}`,
      onclick: () => shown.deref() && openTextureViewer(shown.deref(), { decoder }),
    },
    'view',
  );
}
