// A .uc script dropped beside the .psk it imports (#exec MESH MODELIMPORT): the page shows the
// .psk placed, scaled, rotated and textured as the script says, the script paired with it (not
// unused), and a package the script loads that is not dropped named in the report. Files:
// tests/unit/reference/ue1-scripts/Jet.uc with the C4 sample's sources, the flag.pcx fixture and
// JetpackTex.utx (../shared/samples; skipped without them).
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, frameAt, openPage, SAMPLES } from './browser.js';

const browser = fileBrowser();
const PKG = `${SAMPLES}upackage/`;
const JET = new URL('../unit/reference/ue1-scripts/Jet.uc', import.meta.url).pathname;

describe.skipIf(!existsSync(PKG))('a .uc script beside its .psk in the viewer', () => {
  it('Jet.uc places and textures C4.psk; the script is used and JetDecals.utx named as missing', async () => {
    const page = await openPage(browser, '/?demo=0');
    const files = [JET, `${PKG}sources/C4.psk`, `${PKG}sources/C4.psa`, `${FIXTURES}flag.pcx`, `${PKG}JetpackTex.utx`];
    await chooseFiles(
      page,
      files.map((f) => filePayload(f)),
    );
    const state = await page.evaluate(() => {
      const { app } = window.__rigscope;
      const c = app.characters.find((x) => x.meshes.some((m) => m.isSkinnedMesh));
      // The skinned positions as drawn, in the character's own frame (the layout's offset aside).
      const mesh = c.meshes[0];
      const v = mesh.position.clone();
      const lo = [Infinity, Infinity, Infinity],
        hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < mesh.geometry.attributes.position.count; i++) {
        mesh.getVertexPosition(i, v);
        v.toArray().forEach((x, k) => ((lo[k] = Math.min(lo[k], x)), (hi[k] = Math.max(hi[k], x))));
      }
      return {
        lines: window.__rigscope.reportLines(),
        maps: c.materials.map((m) => m.map?.name ?? null),
        clips: c.clips.map((k) => k.name),
        lo,
        hi,
      };
    });
    const text = state.lines.join('\n');
    expect(state.lines).toContain('C4.psk ↔ Jet.uc (script)');
    expect(text).not.toMatch(/Jet\.uc.*unused|unused.*Jet\.uc/i);
    expect(text).toMatch(/JetDecals\.utx/);
    // Four slots textured: the loose import and three textures of JetpackTex; slot 4's package is missing.
    expect(state.maps.slice(0, 4).every((n) => n && n !== 'untextured')).toBe(true);
    expect(state.maps[0]).toBe('flag');
    expect(state.clips).toEqual(['Name']);
    // Placed by ORIGIN (4, −8, 10), YAW 64, PITCH 32, ROLL −16, SCALE (2, 2, 0.5): the box the
    // spec's formula gives (tests/unit/ue1-scripts.test.js checks every vertex).
    const lo = [-76.142, -49.114, -36.938],
      hi = [42.331, 38.508, 50.571];
    for (let k = 0; k < 3; k++) {
      expect(state.lo[k]).toBeCloseTo(lo[k], 1);
      expect(state.hi[k]).toBeCloseTo(hi[k], 1);
    }
    const f = await frameAt(page, 0);
    expect(f.count).toBeGreaterThan(2000);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
