import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import {
  chooseFiles,
  fileBrowser,
  filePayload,
  FIXTURES,
  frameAt,
  maskDifference,
  openPage,
  pixels,
  SAMPLES,
  clickMenuItem,
} from './browser.js';

const browser = fileBrowser();

const still = (page, t = 0) =>
  page.evaluate((time) => {
    window.__rigscope.pause();
    window.__rigscope.app.setTime(time);
  }, t);

describe('viewer page', () => {
  it('opens with the animated demo character', async () => {
    const page = await openPage(browser, '/');
    const names = await page.evaluate(() => window.__rigscope.clipNames());
    expect(names).toEqual(expect.arrayContaining(['Idle', 'Walk']));
    const p = await pixels(page);
    expect(p.count).toBeGreaterThan(p.total * 0.02);
    // The walk moves the limbs: two times of the clip give different pictures.
    await page.evaluate(() => {
      const { app } = window.__rigscope;
      const walk = app.allClips.find((c) => c.clip.name === 'Walk');
      app.select(walk.character, walk.clip);
      window.__rigscope.pause();
      app.setTime(0);
    });
    const a = await frameAt(page);
    await page.evaluate(() => window.__rigscope.app.setTime(window.__rigscope.app.current.clip.duration * 0.5));
    const b = await frameAt(page);
    expect(maskDifference(a, b)).toBeGreaterThan(100);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows an error for a truncated file and keeps what is loaded', async () => {
    const page = await openPage(browser, '/');
    await still(page);
    const before = await pixels(page);
    await chooseFiles(page, [filePayload(`${FIXTURES}truncated.psk`)]);
    const text = await page.locator('#messages').innerText();
    expect(text).toMatch(/truncated\.psk/);
    expect(text).toMatch(/byte \d+/);
    await still(page);
    const after = await pixels(page);
    expect(after.count).toBeGreaterThan(before.count * 0.98);
    expect(after.count).toBeLessThan(before.count * 1.02);
    expect(await page.evaluate(() => window.__rigscope.app.characters.length)).toBe(1);
    // Still usable: step a frame.
    await page.click('#step-forward');
    await page.close();
  });

  it('renders file names as text, never as HTML', async () => {
    const page = await openPage(browser, '/?demo=0');
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    await chooseFiles(page, [filePayload(`${FIXTURES}hostile_names.psk`), filePayload(`${FIXTURES}hostile_names.psa`)]);
    // Long side-panel lists are filled in slices after the load (web/src/app/panels/slices.js).
    await page.waitForFunction(() => !document.querySelector('#side [aria-busy]'), null, { timeout: 60000 });
    await page.check('#show-bone-names');
    await page.check('#show-attachments');
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('#side details')) d.open = true;
    });
    // The names arrive as text: bones in the tree and the 3D labels, material, sequence. (Panel rows
    // off screen are not laid out, so they have no innerText: their text nodes are read.)
    expect(await page.locator('#bone-tree').textContent()).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('#bone-tree').textContent()).toContain('"><script>alert(2)</script>');
    expect(await page.locator('#clip-list').textContent()).toContain('<iframe src=javascript:alert(4)>');
    expect(await page.locator('#materials').textContent()).toContain('<svg onload=alert(3)>&amp;');
    // A 3D label is shown from the frame after it is measured, and only where it has room
    // (three/labels.js): a shown one carries its bone's name as text.
    await page.waitForFunction(() => [...document.querySelectorAll('.label3d.bone')].some((l) => l.innerText.includes('<')), null, {
      timeout: 30000,
    });
    // Nothing became markup, nothing ran.
    const injected = await page.evaluate(
      () =>
        document.querySelectorAll(
          '#side img, #side script, #side svg, #side iframe, #stage img, #stage script, #stage iframe, #messages img',
        ).length,
    );
    expect(injected).toBe(0);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});

describe('security', () => {
  it('sends a strict Content-Security-Policy from both pages and runs no inline script', async () => {
    for (const path of ['/', '/embed.html']) {
      const page = await openPage(browser, path);
      const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]').content);
      expect(policy).toMatch(/script-src 'self' 'wasm-unsafe-eval'/);
      expect(policy).not.toMatch(/'unsafe-eval'|script-src[^;]*'unsafe-inline'/);
      expect(await page.evaluate(() => [...document.scripts].filter((s) => !s.src).length)).toBe(0);
      expect(page.errors).toEqual([]);
      await page.close();
    }
  });

  it('never sends dropped files anywhere', async () => {
    const page = await openPage(browser, '/?demo=0');
    const requests = [];
    page.on('request', (r) => requests.push({ url: r.url(), method: r.method(), body: r.postData() }));
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`), filePayload(`${FIXTURES}two_bone.psa`)]);
    await clickMenuItem(page, 'export-button');
    // The export is over (everything it would send has been sent) once the status says so.
    await page.waitForFunction(() => /Exported/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
    const origin = new URL(page.url()).origin;
    expect(
      requests.filter(
        (r) => r.method !== 'GET' || r.body || !(r.url.startsWith(origin) || r.url.startsWith('blob:') || r.url.startsWith('data:')),
      ),
    ).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!existsSync(SAMPLES))('real Unreal files', () => {
  it('shows the spider and plays its sequences', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}psk/skSpiderLargeMesh.psk`), filePayload(`${SAMPLES}psk/skSpiderLargeAnims.psa`)]);
    const names = await page.evaluate(() => window.__rigscope.clipNames());
    expect(names).toHaveLength(12);
    expect(await page.locator('#clip-list li[role=option]').count()).toBe(12);
    await page.locator('#clip-list li', { hasText: 'webattack' }).click();
    await page.evaluate(() => {
      window.__rigscope.pause();
      window.__rigscope.app.setTime(0);
    });
    const a = await frameAt(page);
    expect(a.count).toBeGreaterThan(1000);
    await page.evaluate(() => window.__rigscope.app.setTime(1.2));
    const b = await frameAt(page);
    expect(maskDifference(a, b)).toBeGreaterThan(100);
    expect(await page.locator('#frame-label').innerText()).toBe('frame 36 / 71');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
