import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { chooseFiles, filePayload, FIXTURES, launch, openPage, SAMPLES } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

/** Paused at `t` seconds of the current clip: foreground mask (every 4th pixel) and colour counts. */
const shot = (page, t) => page.evaluate((time) => {
  const rs = window.__rigscope;
  rs.viewer.grid.visible = false;
  rs.viewer.setAttachmentsVisible(false);
  rs.pause();
  rs.app.setTime(time);
  const r = rs.viewer.countForegroundPixels();
  const bg = rs.viewer.background.clone().convertLinearToSRGB();
  const ref = [bg.r * 255, bg.g * 255, bg.b * 255];
  const mask = [];
  let red = 0, blue = 0;
  for (let y = 0; y < r.h; y += 4) for (let x = 0; x < r.w; x += 4) {
    const o = (y * r.w + x) * 4;
    const [R, G, B] = [r.pixels[o], r.pixels[o + 1], r.pixels[o + 2]];
    mask.push(Math.abs(R - ref[0]) + Math.abs(G - ref[1]) + Math.abs(B - ref[2]) > 24 ? 1 : 0);
    if (R > 110 && G < 70 && B < 70) red++;
    if (B > 90 && B > R + 40 && B > G + 20) blue++;
  }
  return { count: r.count, mask, red, blue };
}, t);
const differing = (a, b) => a.mask.filter((v, i) => v !== b.mask[i]).length;

/** A PNG of w × h RGBA pixels from `pixel(x, y)` (rows top first), written with zlib and a CRC table. */
function png(w, h, pixel) {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 255] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'ascii');
    data.copy(out, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const raw = Buffer.alloc(h * (1 + w * 4));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(pixel(x, y), y * (1 + w * 4) + 1 + x * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 6;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
const text = (name, s) => ({ name, mimeType: 'text/xml', buffer: Buffer.from(s) });

async function expectMoves(page, later, min = 40) {
  const a = await shot(page, 0);
  const b = await shot(page, later);
  expect(a.count).toBeGreaterThan(500);
  expect(differing(a, b)).toBeGreaterThan(min);
}

describe('0 A.D. models in the viewer', () => {
  it('plays arm.pmd with arm_wave.psa', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}arm.pmd`), filePayload(`${FIXTURES}arm_wave.psa`)]);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['arm_wave']);
    await expectMoves(page, 18 * 0.0333);
    // The info panel lists the prop points and the bones they follow.
    expect(await page.locator('#info').innerText()).toMatch(/prop_hand — bone_2[\s\S]*prop_head — bone_0/);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows the bone-count mismatch in the page and keeps the model', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}arm.pmd`), filePayload(`${FIXTURES}arm_bad.psa`)]);
    expect(await page.locator('#errors').innerText()).toContain('animation arm_bad.psa has 4 bones, model arm.pmd has 3');
    expect(await page.evaluate(() => window.__rigscope.app.characters.length)).toBe(1);
    expect((await shot(page, 0)).count).toBeGreaterThan(500);
    await page.close();
  });

  it('opens an actor as one textured, player-coloured, animated model with a prop on its hand', async () => {
    const page = await openPage(browser, '/?demo=0');
    // Left half red and opaque; right half grey with alpha 0: the player_trans mask, tinted blue.
    const texture = png(64, 64, (x) => (x < 32 ? [200, 20, 20, 255] : [200, 200, 200, 0]));
    await chooseFiles(page, [
      text('arm_unit.xml', `<?xml version="1.0" encoding="utf-8"?>
        <qualitylevels><actor><group><variant>
          <mesh>skeletal/arm.dae</mesh>
          <textures><texture file="skins/arm.png" name="baseTex"/></textures>
          <animations><animation name="Wave" file="biped/arm_wave.dae" speed="100"/></animations>
          <props><prop actor="props/cap.xml" attachpoint="hand"/></props>
        </variant></group><material>player_trans.xml</material></actor></qualitylevels>`),
      text('cap.xml', '<actor version="1"><group><variant><mesh>props/old_v1.dae</mesh></variant></group></actor>'),
      filePayload(`${FIXTURES}arm.pmd`, 'arm.dae.cached.pmd'), filePayload(`${FIXTURES}arm_wave.psa`, 'arm_wave.dae.cached.psa'),
      filePayload(`${FIXTURES}old_v1.pmd`), { name: 'arm.png', mimeType: 'image/png', buffer: texture },
    ]);
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      const [unit, cap] = app.characters;
      return {
        names: app.characters.map((c) => c.name), clips: window.__rigscope.clipNames(), textured: !!unit.materials[0].map,
        capOnHand: cap.root.parent === unit.attachments.find((a) => a.name === 'prop_hand').node,
        colourShown: !document.getElementById('player-color-row').hidden, missing: app.reports[0].missing,
      };
    });
    expect(state).toEqual({ names: ['arm_unit.xml', 'cap.xml'], clips: ['wave'], textured: true, capOnHand: true, colourShown: true, missing: [] });
    await page.evaluate(() => window.__rigscope.viewer.frameAll());
    const a = await shot(page, 0);
    expect(a.red).toBeGreaterThan(20);
    expect(a.blue).toBeGreaterThan(20);
    await expectMoves(page, 18 * 0.0333);
    // Another player colour: green instead of blue.
    await page.locator('#player-color').evaluate((input) => { input.value = '#20c020'; input.dispatchEvent(new Event('input')); });
    expect((await shot(page, 0)).blue).toBeLessThan(a.blue / 4);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!existsSync(`${SAMPLES}zeroad`))('real 0 A.D. files in the viewer', () => {
  it('plays skeleton.pmd with skeleton_idle.psa and shows its flat skeleton as joints', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}zeroad/skeleton.pmd`), filePayload(`${SAMPLES}zeroad/skeleton_idle.psa`)]);
    expect(await page.evaluate(() => window.__rigscope.clipNames())).toEqual(['skeleton_idle']);
    await expectMoves(page, 2.0, 5); // an idle: breathing and a small sway
    await page.check('#show-skeleton');
    const joints = await page.evaluate(() => window.__rigscope.viewer.skeletonHelpers.filter((h) => h.isPoints && h.visible).map((h) => h.geometry.attributes.position.count));
    expect(joints).toEqual([29]);
    await page.close();
  });

  it('refuses rich-man_idle.psa on rich-man.pmd with the engine\'s reason', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}zeroad/rich-man.pmd`), filePayload(`${SAMPLES}zeroad/rich-man_idle.psa`)]);
    expect(await page.locator('#errors').innerText()).toContain('animation rich-man_idle.psa has 29 bones, model rich-man.pmd has 25');
    expect((await shot(page, 0)).count).toBeGreaterThan(500);
    await page.close();
  });
});
