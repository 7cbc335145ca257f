// The viewer on export trees with levels of detail (build/fixtures/lod_export, from the project's
// own writer): one character showing LOD0, named after its body; the Scene panel's level control
// swaps every part to that level (the clip goes on) or shows all levels; the materials panel names
// the rule that put a texture named after a model plus `_` on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, launch, openPage } from './browser.js';

const BODIES = `${FIXTURES}lod_export/ueviewer/Characters/Male/Bodies`;
let browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function openFolder(page, dir) {
  const before = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, before, { timeout: 120000 });
}

/** Each character's name, clip and its meshes' vertex counts, as drawn. */
const drawn = (page) =>
  page.evaluate(() =>
    window.__rigscope.app.characters.map((c) => ({
      name: c.name,
      clip: window.__rigscope.app.current?.character === c ? window.__rigscope.app.current.clip.name : null,
      meshes: c.meshes.map((m) => [m.name, m.geometry.attributes.position.count]),
    })),
  );

describe('levels of detail in the viewer', () => {
  it('shows LOD0 of each part, and the level control swaps every part to the level chosen', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 1280, height: 800 } });
    await openFolder(page, BODIES);
    let [c] = await drawn(page);
    expect(c.name).toBe('SK_MaleBase_01_Body.psk');
    expect(c.clip).toBe('Idle');
    expect(c.meshes.map(([, n]) => n)).toEqual([34, 26, 14, 22]); // arms, body, head, legs at LOD0
    expect(await page.isVisible('#lod')).toBe(true);
    expect(await page.$$eval('#lod option', (o) => o.map((x) => [x.value, x.textContent]))).toEqual([
      ['0', 'LOD 0 (finest)'],
      ['1', 'LOD 1'],
      ['2', 'LOD 2'],
      ['3', 'LOD 3'],
      ['all', 'All levels'],
    ]);
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-desktop.png') });

    await page.selectOption('#lod', '2');
    await page.waitForFunction(() => window.__rigscope.app.lod === 2 && !document.getElementById('lod').disabled);
    [c] = await drawn(page);
    expect(c).toMatchObject({ name: 'SK_MaleBase_01_Body.psk', clip: 'Idle' });
    expect(c.meshes.map(([, n]) => n)).toEqual([10, 8, 14, 6]); // the head has one level
    expect(await page.inputValue('#lod')).toBe('2');

    await page.selectOption('#lod', 'all');
    await page.waitForFunction(() => window.__rigscope.app.lod === 'all' && !document.getElementById('lod').disabled);
    [c] = await drawn(page);
    expect(c.meshes).toHaveLength(13);
    expect(c.meshes.map(([name]) => name)).toContain('SK_MaleBase_01_Body LOD3');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('hides the level control when no part has levels; the phone layout shows it in the Scene panel', async () => {
    const page = await openPage(browser, '/?demo=0', { viewport: { width: 390, height: 844 } });
    await page.setInputFiles('#file-input', [`${FIXTURES}two_bone.psk`]);
    await page.waitForFunction(() => (window.__rigscope.app.loads ?? 0) > 0);
    expect(await page.isVisible('#lod')).toBe(false);
    await openFolder(page, BODIES);
    expect(await page.isVisible('#lod-row')).toBe(true);
    await page.locator('#lod-row').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(tmpdir(), 'rigscope-lod-phone.png') });
    await page.close();
  });
});

describe('a texture named after its model plus _ in the viewer', () => {
  it('puts horse_celt_stripe_a.dds on horse.pmd and the materials panel names the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-e2e-prefix-'));
    copyFileSync(`${FIXTURES}arm.pmd`, join(dir, 'horse.pmd'));
    copyFileSync(`${FIXTURES}image_dxt1_mips.dds`, join(dir, 'horse_celt_stripe_a.dds'));
    copyFileSync(`${FIXTURES}image_rgb24.tga`, join(dir, 'banner.tga'));
    const page = await openPage(browser, '/?demo=0');
    await openFolder(page, dir);
    await page.click('summary:has-text("Materials")');
    await expect.poll(() => page.textContent('#materials')).toContain('name prefix');
    expect(await page.textContent('#materials')).toContain('horse_celt_stripe_a.dds');
    await page.close();
  });
});
