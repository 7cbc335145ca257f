// Record…: the current clip (or a turntable, for models without clips) to GIF, APNG, WebM and a
// PNG sprite sheet, through the dialog as a user does it, for a sample of every family. The files
// are read back with the browser's own decoders (ImageDecoder) and mediabunny's WebM reader.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Input, BufferSource, ALL_FORMATS } from 'mediabunny';
import { chooseFiles, FAMILY_SAMPLES, fileBrowser, filePayload, FIXTURES, openPage, SAMPLES, clickMenuItem } from './browser.js';

const browser = fileBrowser();

const FAMILIES = {
  ...FAMILY_SAMPLES,
  // Every real UE1 sample's frames are one pose repeated (mar_rifle's 30 are byte-identical): the
  // project's own waving flag (wasm/src/writers) shows that recordings follow vertex animation.
  ue1: ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'].map((f) => `${FIXTURES}${f}`),
  // Skate 3 arenas have no clips: the turntable is what Record offers.
};

/**
 * One viewer page for the file (a fresh page costs about 3 CPU-seconds), cleared before each
 * family's files (Clear, as a person does; memory.test.js tests it).
 */
let shared;
afterAll(async () => {
  await shared?.close();
});

async function openFamily(family) {
  // A small view: the frame test records at the view's size, and SwiftShader draws every pixel on the CPU.
  // No demo: the chosen files replace it at once, and it would be decoded and played for nothing.
  if (!shared) {
    shared = await openPage(browser, '/?demo=0', { viewport: { width: 900, height: 600 } });
    // The Record fields its dialog does not fill again when opened (every test names its format),
    // as a fresh page has them.
    shared.fresh = await shared.evaluate(() => [
      document.getElementById('record-seconds').value,
      document.getElementById('record-transparent').checked,
    ]);
  } else
    await shared.evaluate(([seconds, transparent]) => {
      document.getElementById('clear-button').click();
      // Back as on a fresh page: the transparent GIF test leaves its box ticked, the turntable its seconds.
      document.getElementById('record-seconds').value = seconds;
      document.getElementById('record-transparent').checked = transparent;
    }, shared.fresh);
  const page = shared;
  page.errors = [];
  await chooseFiles(
    page,
    FAMILIES[family].map((f) => filePayload(f.startsWith('/') ? f : `${SAMPLES}${f}`)),
  );
  return page;
}

/** Records through the dialog with `fields` (by id suffix) and returns the downloaded file's bytes and name. */
async function record(page, fields) {
  await clickMenuItem(page, 'record-button');
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'boolean') await page.setChecked(`#record-${name}`, value);
    else if (name === 'format' || name === 'subject') await page.selectOption(`#record-${name}`, value);
    else await page.fill(`#record-${name}`, String(value));
  }
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), page.click('#record-start')]);
  const bytes = readFileSync(await download.path());
  await page.waitForFunction(() => /^Saved /.test(document.getElementById('record-result').textContent));
  const result = await page.textContent('#record-result');
  await page.click('#record-close');
  return { bytes, name: download.suggestedFilename(), result };
}

/** Frame count and, for the frames asked, RGBA pixels, decoded by the browser's ImageDecoder. */
async function decodeImage(page, bytes, type, frames = []) {
  const read = await page.evaluate(
    async ({ base64, type: mime, wanted }) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const decoder = new ImageDecoder({ data, type: mime });
      await decoder.tracks.ready;
      await decoder.completed;
      const track = decoder.tracks.selectedTrack;
      const out = { frameCount: track.frameCount, frames: {} };
      for (const k of wanted) {
        const { image } = await decoder.decode({ frameIndex: k });
        const canvas = new OffscreenCanvas(image.displayWidth, image.displayHeight);
        const ctx = canvas.getContext('2d');
        ctx.drawImage(image, 0, 0);
        out.width = image.displayWidth;
        out.height = image.displayHeight;
        // As base64: a frame as a JSON array of numbers would be ten times larger to send.
        const rgba = ctx.getImageData(0, 0, image.displayWidth, image.displayHeight).data;
        let text = '';
        for (let i = 0; i < rgba.length; i += 0x8000) text += String.fromCharCode(...rgba.subarray(i, i + 0x8000));
        out.frames[k] = btoa(text);
        image.close();
      }
      decoder.close();
      return out;
    },
    { base64: bytes.toString('base64'), type, wanted: frames },
  );
  for (const k of Object.keys(read.frames)) read.frames[k] = Buffer.from(read.frames[k], 'base64');
  return read;
}

/** Video packets (frames) and size of a WebM, read by mediabunny. */
async function readWebm(bytes) {
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  const track = await input.getPrimaryVideoTrack();
  const stats = await track.computePacketStats();
  return { format: (await input.getFormat()).name, frames: stats.packetCount, width: track.displayWidth, height: track.displayHeight };
}

/** What the recording should hold: the current clip's frames at `rate`, or a turn's. */
const clipOf = (page) =>
  page.evaluate(() => {
    const cur = window.__rigscope.app.current;
    return (
      cur && { name: cur.clip.name, frameCount: cur.clip.frameCount, fps: cur.clip.fps, loop: cur.clip.loop, speed: cur.clip.speed ?? 1 }
    );
  });
const expectedFrames = (clip, rate, seconds = 4) =>
  clip
    ? clip.loop
      ? Math.round((clip.frameCount / clip.fps / clip.speed) * rate)
      : Math.round(((clip.frameCount - 1) / clip.fps / clip.speed) * rate) + 1
    : Math.round(seconds * rate);

/** The playback state Record must leave as it found it. */
const playback = (page) =>
  page.evaluate(() => {
    const app = window.__rigscope.app;
    return { clip: app.current?.clip.name ?? null, time: app.time, playing: app.playing };
  });

describe.each(Object.keys(FAMILIES))('recording a %s sample', (family) => {
  let page, clip;
  beforeAll(async () => {
    page = await openFamily(family);
    clip = await clipOf(page);
    await page.evaluate(() => {
      window.__rigscope.pause();
      window.__rigscope.setTime(0.1);
    });
  });

  it('GIF, APNG and WebM hold exactly the frames of the clip (or turn) at the chosen rate, and playback is left alone', async () => {
    if (family === 'psg') expect(clip).toBe(null);
    else expect(clip.frameCount).toBeGreaterThan(2);
    const rate = 8;
    const want = expectedFrames(clip, rate);
    const before = await playback(page);
    const size = { width: 160, height: 120, rate };

    const gif = await record(page, { ...size, format: 'gif' });
    expect(gif.name).toMatch(/\.gif$/);
    expect(gif.result).toContain(`${want} frames`);
    const gifRead = await decodeImage(page, gif.bytes, 'image/gif', [0]);
    expect([gifRead.frameCount, gifRead.width, gifRead.height]).toEqual([want, 160, 120]);

    const apng = await record(page, { ...size, format: 'apng' });
    const apngRead = await decodeImage(page, apng.bytes, 'image/png', [0]);
    expect([apngRead.frameCount, apngRead.width, apngRead.height]).toEqual([want, 160, 120]);

    const webm = await record(page, { ...size, format: 'webm' });
    expect(webm.name).toMatch(/\.webm$/);
    expect(await readWebm(webm.bytes)).toEqual({ format: 'WebM', frames: want, width: 160, height: 120 });

    const sheet = await record(page, { ...size, format: 'sheet' });
    const sheetRead = await decodeImage(page, sheet.bytes, 'image/png', [0]);
    const columns = Math.ceil(Math.sqrt(want));
    expect([sheetRead.frameCount, sheetRead.width, sheetRead.height]).toEqual([1, columns * 160, Math.ceil(want / columns) * 120]);
    // The sheet's first cell is the APNG's first frame (both lossless).
    const cell = Buffer.concat(
      Array.from({ length: 120 }, (_, y) => sheetRead.frames[0].subarray(y * columns * 160 * 4, (y * columns * 160 + 160) * 4)),
    );
    expect(cell.equals(apngRead.frames[0])).toBe(true);

    expect(await playback(page)).toEqual(before);
  }, 300000);

  it('frame k of the GIF is the view at frame k', async () => {
    // Recorded at the view's own size, so the screen's picture compares pixel for pixel.
    const view = await page.evaluate(() => {
      const c = window.__rigscope.viewer.renderer.domElement;
      return { width: c.width, height: c.height };
    });
    const rate = 5;
    const want = expectedFrames(clip, rate, 1);
    const gif = await record(page, { ...view, rate, format: 'gif', ...(clip ? {} : { subject: 'turntable', seconds: 1 }) });
    const checked = [...new Set([0, Math.floor(want / 2), want - 1])];
    // The frames a quarter, half and three quarters in, for the check that the frames differ:
    // decoded with the checked ones in one pass (each is a view-sized picture to decode and send).
    const quarters = [...new Set([1, 2, 3].map((q) => Math.floor((q * want) / 4)))];
    const read = await decodeImage(page, gif.bytes, 'image/gif', [...new Set([...checked, ...quarters])]);
    expect(read.frameCount).toBe(want);
    for (const k of checked) {
      const screenBase64 = await page.evaluate(
        ({ t, turn }) => {
          const { app, viewer } = window.__rigscope;
          const eye = [viewer.camera.position.clone(), viewer.camera.quaternion.clone()];
          if (app.current) app.setTime(t);
          if (turn) viewer._turnCamera(turn);
          viewer.render();
          const gl = viewer.renderer.getContext();
          const { drawingBufferWidth: w, drawingBufferHeight: h } = gl;
          const px = new Uint8Array(w * h * 4);
          gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
          viewer.camera.position.copy(eye[0]);
          viewer.camera.quaternion.copy(eye[1]);
          viewer.requestRender();
          // Rows from the top, as the GIF's, sent as base64.
          let text = '';
          for (let y = h - 1; y >= 0; y--) text += String.fromCharCode(...px.subarray(y * w * 4, (y + 1) * w * 4));
          return btoa(text);
        },
        { t: k / rate, turn: clip ? 0 : (2 * Math.PI * k) / want },
      );
      const screen = Buffer.from(screenBase64, 'base64');
      const gifPx = read.frames[k];
      let sum = 0,
        far = 0;
      for (let i = 0; i < screen.length; i += 4)
        for (let c = 0; c < 3; c++) {
          const d = Math.abs(screen[i + c] - gifPx[i + c]);
          sum += d;
          if (d > 48) far++;
        }
      const pixelsCount = screen.length / 4;
      // A GIF has 256 colours a frame: small differences everywhere, large ones almost nowhere.
      expect(sum / (pixelsCount * 3)).toBeLessThan(4);
      expect(far / pixelsCount).toBeLessThan(0.01);
    }
    // The frames differ: the clip (or the turn) moves between the first frame and another.
    if (want > 1) {
      const moved = (a, b) => {
        let n = 0;
        for (let i = 0; i < a.length; i += 4)
          if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 48) n++;
        return n;
      };
      const most = Math.max(...[0, ...quarters].map((k) => moved(read.frames[0], read.frames[k])));
      expect(most).toBeGreaterThan(20);
    }
  }, 300000);

  it('a transparent GIF has transparent corners around an opaque model', async () => {
    const gif = await record(page, { width: 160, height: 120, rate: 4, format: 'gif', transparent: true });
    const read = await decodeImage(page, gif.bytes, 'image/gif', [0]);
    const alpha = (x, y) => read.frames[0][(y * 160 + x) * 4 + 3];
    expect([alpha(0, 0), alpha(159, 0), alpha(0, 119), alpha(159, 119)]).toEqual([0, 0, 0, 0]);
    const opaque = read.frames[0].filter((v, i) => i % 4 === 3 && v === 255).length;
    expect(opaque).toBeGreaterThan(50);
  }, 120000);
});

describe('recording is frame-exact and can be cancelled', () => {
  let page;
  beforeAll(async () => {
    page = await openFamily('zeroad');
  });

  it('a machine four times slower writes the same file', async () => {
    const fields = { width: 120, height: 90, rate: 10, format: 'apng' };
    const fast = await record(page, fields);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const slow = await record(page, fields);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    expect(slow.bytes.equals(fast.bytes)).toBe(true);
  }, 300000);

  it('Cancel stops a recording under way: no file, playback as it was', async () => {
    await page.evaluate(() => window.__rigscope.app.play());
    let downloads = 0;
    const counted = () => downloads++;
    page.on('download', counted);
    await clickMenuItem(page, 'record-button');
    await page.fill('#record-width', '1280');
    await page.fill('#record-height', '720');
    await page.fill('#record-rate', '60');
    await page.click('#record-start');
    await page.waitForFunction(() => document.getElementById('record-progress').value >= 2, null, { timeout: 60000 });
    await page.click('#record-cancel');
    await page.waitForFunction(() => document.getElementById('record-result').textContent === 'Recording cancelled.');
    expect(await page.isDisabled('#record-start')).toBe(false);
    expect(await page.isHidden('#record-cancel')).toBe(true);
    await page.click('#record-close');
    page.off('download', counted);
    expect(downloads).toBe(0);
    expect((await playback(page)).playing).toBe(true);
  });

  it('a size or rate out of bounds is refused with a sentence, and nothing is recorded', async () => {
    await clickMenuItem(page, 'record-button');
    await page.fill('#record-rate', '30');
    await page.evaluate(() => {
      // Past the inputs' own bounds (a page script could set them): the recorder still refuses.
      const w = document.getElementById('record-width');
      w.removeAttribute('max');
      w.value = '5000';
    });
    await page.click('#record-start');
    await page.waitForFunction(() => /^Recording failed/.test(document.getElementById('record-result').textContent));
    expect(await page.textContent('#record-result')).toBe('Recording failed: The size must be 16 to 1920 pixels a side');
    await page.click('#record-close');
  });
});
