// The page under hostile files: every failure is reported by name, what is loaded stays, and the
// page keeps rendering and responding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { FIXTURES, chooseFiles, launch, openPage, pixels } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

const fixture = (n) => readFileSync(`${FIXTURES}${n}`);
const payload = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(buffer) });

function hostileSet() {
  const cut = (n) => fixture(n).subarray(0, Math.floor(fixture(n).length * 0.6));
  const absurd = Buffer.from(fixture('two_bone.psk'));
  absurd.writeInt32LE(0x7fffffff, 32 + 28); // PNTS0000 DataCount
  const junk = Buffer.alloc(4096);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 2654435761) >>> 24;
  const psg = Buffer.from(fixture('skinned_box.psg'));
  psg.write('xb2\0', 4, 'latin1'); // an X360 arena
  return [
    payload('cut.psk', cut('two_bone.psk')), payload('cut.psa', cut('two_bone.psa')), payload('cut.pmd', cut('arm.pmd')),
    payload('cut_wave.psa', cut('arm_wave.psa')), payload('absurd.psk', absurd), payload('junk.psk', junk),
    payload('x360.psg', psg), payload('cut.pcx', fixture('flag.pcx').subarray(0, 60)), payload('empty.psk', Buffer.alloc(0)),
  ];
}

describe('hostile files in the page', () => {
  it('reports each bad file by name and keeps the loaded model playing', async () => {
    const page = await openPage(browser, '/');
    await page.evaluate(() => { window.__rigscope.pause(); window.__rigscope.app.setTime(0.5); });
    const before = await pixels(page);
    
    await chooseFiles(page, hostileSet());
    const errors = await page.locator('#errors').innerText();
    for (const name of ['cut.psa', 'cut.pmd', 'cut_wave.psa', 'absurd.psk', 'junk.psk', 'x360.psg', 'cut.pcx', 'empty.psk']) expect(errors).toContain(name);
    // A PSK cut after its points, wedges and faces still opens, with the cut named in a warning.
    await page.evaluate(() => { for (const d of document.querySelectorAll('#side details')) d.open = true; });
    expect(await page.locator('#info').innerText()).toMatch(/cut\.psk[\s\S]*⚠[^\n]*(truncat|cut|end of file)/i);
    expect(errors).toMatch(/absurd\.psk: PSK absurd\.psk: .*byte \d+/);
    expect(errors).toMatch(/x360\.psg: .*(X360|not supported)/i);
    expect(await page.evaluate(() => window.__rigscope.app.characters[0].name)).toBe('rigscope-demo.psk');
    expect(await page.evaluate(() => window.__rigscope.app.characters.map((c) => c.name))).toEqual(['rigscope-demo.psk', 'cut.psk']);
    await page.evaluate(() => {
      const { app } = window.__rigscope;
      for (const c of app.characters.slice(1)) c.root.visible = false; // compare the demo alone
      const idle = app.allClips.find((c) => c.character === app.characters[0] && c.clip.name === 'Idle');
      app.select(idle.character, idle.clip);
      window.__rigscope.pause();
      app.setTime(0.5);
    });
    const after = await pixels(page);
    expect(Math.abs(after.count - before.count)).toBeLessThan(before.count * 0.05);
    // Still responsive: the timeline answers.
    await page.click('#step-forward');
    expect(await page.locator('#frame-label').innerText()).toMatch(/^frame \d+ \/ \d+$/);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
