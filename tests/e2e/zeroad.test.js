import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, frameWithColours, maskDifference, openPage, png, SAMPLES } from './browser.js';

const browser = fileBrowser();

/** Paused at `t` seconds: the frame with its red and blue (player colour) pixel counts. */
const shot = (page, t) =>
  frameWithColours(page, t, {
    red: (R, G, B) => R > 110 && G < 70 && B < 70,
    blue: (R, G, B) => B > 90 && B > R + 40 && B > G + 20,
  });
const text = (name, s) => ({ name, mimeType: 'text/xml', buffer: Buffer.from(s) });

async function expectMoves(page, later, min = 40) {
  const a = await shot(page, 0);
  const b = await shot(page, later);
  expect(a.count).toBeGreaterThan(500);
  expect(maskDifference(a, b)).toBeGreaterThan(min);
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
    expect(await page.locator('#messages').innerText()).toContain('arm_bad.psa: not played on any model — 4 bones, arm.pmd has 3');
    expect(await page.evaluate(() => window.__rigscope.app.characters.length)).toBe(1);
    expect((await shot(page, 0)).count).toBeGreaterThan(500);
    await page.close();
  });

  it('opens an actor as one textured, player-coloured, animated model with a prop on its hand', async () => {
    const page = await openPage(browser, '/?demo=0');
    // The player colour is offered only for what has player-coloured materials.
    expect(await page.locator('#player-color-row').isVisible()).toBe(false);
    // Left half red and opaque; right half grey with alpha 0: the player_trans mask, tinted blue.
    const texture = png(64, 64, (x) => (x < 32 ? [200, 20, 20, 255] : [200, 200, 200, 0]));
    await chooseFiles(page, [
      text(
        'arm_unit.xml',
        `<?xml version="1.0" encoding="utf-8"?>
        <qualitylevels><actor><group><variant>
          <mesh>skeletal/arm.dae</mesh>
          <textures><texture file="skins/arm.png" name="baseTex"/></textures>
          <animations><animation name="Wave" file="biped/arm_wave.dae" speed="100"/></animations>
          <props><prop actor="props/cap.xml" attachpoint="hand"/></props>
        </variant></group><material>player_trans.xml</material></actor></qualitylevels>`,
      ),
      text('cap.xml', '<actor version="1"><group><variant><mesh>props/old_v1.dae</mesh></variant></group></actor>'),
      filePayload(`${FIXTURES}arm.pmd`, 'arm.dae.cached.pmd'),
      filePayload(`${FIXTURES}arm_wave.psa`, 'arm_wave.dae.cached.psa'),
      filePayload(`${FIXTURES}old_v1.pmd`),
      { name: 'arm.png', mimeType: 'image/png', buffer: texture },
    ]);
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      const [unit] = app.characters;
      const [cap] = unit.props;
      return {
        names: [unit.name, cap.name],
        clips: window.__rigscope.clipNames(),
        textured: unit.materials[0].map?.name === 'arm.png',
        capOnHand: cap.root.parent === unit.attachments.find((a) => a.name === 'prop_hand').node,
        // Every socket's axes (the unit's and its cap's) in the view's one marker object, drawn:
        // three segments a socket, from the socket's world position.
        markers: (() => {
          const { viewer } = window.__rigscope;
          viewer.render();
          const drawn = viewer.scene.children.filter((o) => o.isLineSegments && o.visible && o.name === 'attachment markers');
          const [markers] = drawn;
          const points = markers.geometry.getAttribute('position');
          const hand = unit.attachments.find((a) => a.name === 'prop_hand').node.getWorldPosition(unit.root.position.clone());
          const sockets = [...unit.tree()].flatMap((c) => c.attachments); // the cap's too
          const starts = [];
          for (let i = 0; i < markers.geometry.drawRange.count; i += 2) starts.push([points.getX(i), points.getY(i), points.getZ(i)]);
          return {
            objects: drawn.length,
            sockets: viewer.markers.sockets.size === sockets.length,
            segments: markers.geometry.drawRange.count / 2 / sockets.length,
            atHand: starts.some((p) => Math.hypot(p[0] - hand.x, p[1] - hand.y, p[2] - hand.z) < 1e-4),
          };
        })(),
        colourShown: document.getElementById('player-color-row').checkVisibility(),
        missing: app.reports[0].records.filter((r) => r.kind === 'missing'),
      };
    });
    expect(state).toEqual({
      names: ['arm_unit.xml', 'cap.xml'],
      clips: ['wave'],
      textured: true,
      capOnHand: true,
      markers: { objects: 1, sockets: true, segments: 3, atHand: true },
      colourShown: true,
      missing: [],
    });
    await page.evaluate(() => window.__rigscope.viewer.frameAll());
    const a = await shot(page, 0);
    expect(a.red).toBeGreaterThan(20);
    expect(a.blue).toBeGreaterThan(20);
    await expectMoves(page, 18 * 0.0333);
    // Another player colour: green instead of blue.
    await page.locator('#player-color').evaluate((input) => {
      input.value = '#20c020';
      input.dispatchEvent(new Event('input'));
    });
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
    const joints = await page.evaluate(() =>
      window.__rigscope.viewer.skeletonHelpers.filter((h) => h.isPoints && h.visible).map((h) => h.geometry.attributes.position.count),
    );
    expect(joints).toEqual([29]);
    await page.close();
  });

  it("refuses rich-man_idle.psa on rich-man.pmd with the engine's reason", async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${SAMPLES}zeroad/rich-man.pmd`), filePayload(`${SAMPLES}zeroad/rich-man_idle.psa`)]);
    expect(await page.locator('#messages').innerText()).toContain(
      'rich-man_idle.psa: not played on any model — 29 bones, rich-man.pmd has 25',
    );
    expect((await shot(page, 0)).count).toBeGreaterThan(500);
    await page.close();
  });
});
