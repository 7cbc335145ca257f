// The page under hostile files: every failure is reported by name, what is loaded stays, and the
// page keeps rendering and responding.
import { describe, expect, inject, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { chooseFiles, fileBrowser, filePayload, FIXTURES, longestTaskDuring, openPage, pixels } from './browser.js';

const browser = fileBrowser();

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
    payload('cut.psk', cut('two_bone.psk')),
    payload('cut.psa', cut('two_bone.psa')),
    payload('cut.pmd', cut('arm.pmd')),
    payload('cut_wave.psa', cut('arm_wave.psa')),
    payload('absurd.psk', absurd),
    payload('junk.psk', junk),
    payload('x360.psg', psg),
    payload('cut.pcx', fixture('flag.pcx').subarray(0, 60)),
    payload('empty.psk', Buffer.alloc(0)),
  ];
}

describe('hostile files in the page', () => {
  it('reports each bad file by name and keeps the loaded model playing', async () => {
    const page = await openPage(browser, '/?demo=0');
    await chooseFiles(page, [filePayload(`${FIXTURES}two_bone.psk`), filePayload(`${FIXTURES}two_bone.psa`)]);
    const size = (s) => s.characters[0].bounds.max.map((v, k) => v - s.characters[0].bounds.min[k]);
    await page.evaluate(() => {
      window.__rigscope.pause();
      window.__rigscope.app.setTime(0.15);
    });
    const before = size(await page.evaluate(() => window.rigscope.snapshot()));
    await chooseFiles(page, hostileSet());
    const errors = await page.locator('#messages').textContent();
    for (const name of ['cut.psa', 'cut.pmd', 'cut_wave.psa', 'absurd.psk', 'x360.psg']) expect(errors).toContain(name);
    // A PSK cut after its points, wedges and faces still opens, with the cut named in a warning.
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('#side details')) d.open = true;
    });
    expect(await page.locator('#info').innerText()).toMatch(/cut\.psk[\s\S]*⚠[^\n]*(truncat|cut|end of file)/i);
    expect(errors).toMatch(/absurd\.psk: PSK absurd\.psk: .*byte \d+/);
    expect(errors).toMatch(/x360\.psg: .*(X360|not supported)/i);
    // Files that are not models at all (junk, empty) are listed as unused, not as errors.
    // (a PCX cut inside its 128-byte header is no longer recognisably a PCX).
    const unused = await page.locator('#outliner').textContent();
    expect(unused).toMatch(/empty\.psk: not used — the file is empty/);
    expect(unused).toMatch(/junk\.psk: not used — not a format Rigscope reads/);
    expect(unused).toMatch(/cut\.pcx: not used — not a format Rigscope reads/);
    const after = await page.evaluate(() => window.rigscope.snapshot());
    expect(after.characters.map((c) => c.name)).toEqual(['two_bone.psk', 'cut.psk']);
    expect(after.characters[0].clip).toBe('Bend');
    // The loaded model is as it was: same pose, same size.
    await page.evaluate(() => {
      window.__rigscope.pause();
      window.__rigscope.app.setTime(0.15);
    });
    const now = size(await page.evaluate(() => window.rigscope.snapshot()));
    for (let k = 0; k < 3; k++) expect(now[k]).toBeCloseTo(before[k], 4);
    // Still responsive: the timeline answers.
    await page.click('#step-forward');
    expect(await page.locator('#frame-label').innerText()).toMatch(/^frame \d+ \/ \d+$/);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

// What the page says: the viewer's message report (#messages; the embed page's #errors), as text.
const messages = (page) => page.evaluate(() => (document.getElementById('messages') ?? document.getElementById('errors')).textContent);
const waitForMessage = (page, text) =>
  page.waitForFunction((t) => (document.getElementById('messages') ?? document.getElementById('errors')).textContent.includes(t), text, {
    timeout: 60000,
  });

// Opens files with the file button; resolves once the status line says they were read.
async function openFiles(page, files) {
  await page.evaluate(() => {
    document.getElementById('status').textContent = '';
  });
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(() => / read/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
}

// Large inputs go to the page as files on disk: a buffer handed to setInputFiles is rebuilt by
// script inside the page, which would block the very thread the heartbeat watches.
function onDisk(name, bytes) {
  const path = join(mkdtempSync(join(tmpdir(), 'rigscope-hostile-')), name);
  writeFileSync(path, bytes);
  return path;
}

const characterNames = (page) => page.evaluate(() => window.__rigscope.app.characters.map((c) => c.name));

// A zip whose central directory says what the test wants: `members` are { name, data (raw
// deflate), size (declared inflated size) }.
function zipOf(members) {
  const local = [],
    central = [];
  let at = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(8, 8);
    head.writeUInt32LE(m.data.length, 18);
    head.writeUInt32LE(m.size, 22);
    head.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(m.data.length, 20);
    dir.writeUInt32LE(m.size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(at, 42);
    local.push(head, name, m.data);
    central.push(dir, name);
    at += 30 + name.length + m.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(at, 16);
  return Buffer.concat([...local, directory, end]);
}

// Peak resident memory of this browser's renderer processes (Linux /proc), in bytes.
async function rendererPeakBytes() {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  let peak = 0;
  for (const p of processInfo.filter((x) => x.type === 'renderer')) {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'));
    if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
  }
  return peak;
}

describe('hostile links and drops', () => {
  it('says file=http://[ is not a URL and keeps working', async () => {
    const page = await openPage(browser, `/?file=${encodeURIComponent('http://[')}`);
    expect(await messages(page)).toContain('file=http://[ is not a valid URL; it was not opened');
    await openFiles(page, [payload('two_bone.psk', fixture('two_bone.psk'))]);
    expect(await characterNames(page)).toEqual(['two_bone.psk']);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('ignores camera=1e308,… with a message and frames the model as usual', async () => {
    const page = await openPage(browser, '/?camera=1e308,0,0,0,0,0');
    expect(await messages(page)).toContain('camera=1e308,0,0,0,0,0 has a coordinate beyond ±1,000,000; the default view is used');
    expect((await pixels(page)).count).toBeGreaterThan(500);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  // Heartbeat tests measure the page against wall-clock time: a busy machine (SwiftShader on two
  // cores) can stall any page once, so a stall must repeat to fail.
  it('refuses a TGA declaring 16384² in the worker: one message, the page never stalls, the model stays', { retry: 2 }, async () => {
    const page = await openPage(browser, '/?demo=0');
    await openFiles(page, [payload('two_bone.psk', fixture('two_bone.psk'))]);
    await page.evaluate(() => window.__rigscope.pause()); // the heartbeat then measures work, not drawing
    const huge = Buffer.alloc(18 + 64);
    huge[2] = 2; // uncompressed true-colour
    huge.writeUInt16LE(16384, 12);
    huge.writeUInt16LE(16384, 14);
    huge[16] = 24;
    const blocked = await longestTaskDuring(page, () => openFiles(page, [onDisk('huge.tga', huge)]));
    expect(await messages(page)).toContain('TGA huge.tga: width 16384 × height 16384 at byte 12 is 268 Mpx, over the 64 Mpx limit');
    expect(blocked).toBeLessThan(200);
    expect(await characterNames(page)).toEqual(['two_bone.psk']);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('refuses zip bombs by their directory and while inflating, with bounded memory', { retry: 2 }, async () => {
    const page = await openPage(browser, '/');
    await page.evaluate(() => window.__rigscope.pause());
    // 2.5 GiB declared: 160 entries of 16 MiB of zeros, each 16 KiB deflated.
    const zeros16 = deflateRawSync(Buffer.alloc(16 * 2 ** 20), { level: 9 });
    const bomb = zipOf(Array.from({ length: 160 }, (_, i) => ({ name: `zeros${i}.psk`, data: zeros16, size: 16 * 2 ** 20 })));
    // A liar: 8 entries declaring 1 KiB each, each inflating to 256 MiB.
    const zeros256 = deflateRawSync(Buffer.alloc(256 * 2 ** 20), { level: 9 });
    const liar = zipOf(Array.from({ length: 8 }, (_, i) => ({ name: `small${i}.psk`, data: zeros256, size: 1024 })));
    // A refused zip refuses its drop: no report comes, the message does.
    const drop = async (name, bytes) => {
      await page.setInputFiles('#file-input', [onDisk(name, bytes)]);
      await waitForMessage(page, name);
    };
    const blocked = await longestTaskDuring(page, async () => {
      await drop('bomb.zip', bomb);
      await drop('liar.zip', liar);
    });
    const errors = await messages(page);
    expect(errors).toContain('bomb.zip: its entries declare 2.5 GiB when inflated, over the 2 GiB limit per drop');
    expect(errors).toContain('liar.zip: small0.psk inflates past the 1 KiB its directory declares; refused (a zip bomb?)');
    expect(blocked).toBeLessThan(200);
    expect(await characterNames(page)).toEqual(['rigscope-demo.psk']);
    // Inflated, either would have needed 2 GiB or more.
    expect(await rendererPeakBytes()).toBeLessThan(2 ** 30);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows a right-to-left override in a file name as a visible mark', async () => {
    const page = await openPage(browser, '/?demo=0');
    const absurd = Buffer.from(fixture('two_bone.psk'));
    absurd.writeInt32LE(0x7fffffff, 32 + 28); // PNTS0000 DataCount: refused
    await openFiles(page, [payload('evil\u202Ekcp.exe.psk', fixture('two_bone.psk')), payload('bad\u202Egnp.psk', absurd)]);
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('details')) d.open = true;
    });
    expect(await page.locator('#info').innerText()).toContain('evil⟪U+202E⟫kcp.exe.psk');
    expect(await messages(page)).toContain('bad⟪U+202E⟫gnp.psk');
    expect(await page.evaluate(() => document.body.innerText.includes('\u202E'))).toBe(false);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("blames a fetch the page's security policy blocks on the policy, not on CORS", async () => {
    const page = await openPage(browser, '/?demo=0');
    const url = `${inject('foreignUrl')}/fixtures/two_bone.psk`;
    await page.evaluate((u) => {
      // A host that allows only its own origin (connect-src 'self').
      document.head.append(
        Object.assign(document.createElement('meta'), { httpEquiv: 'Content-Security-Policy', content: "connect-src 'self'" }),
      );
      const dialog = document.getElementById('url-dialog');
      dialog.showModal();
      document.getElementById('url-text').value = u;
      dialog.close('open');
    }, url);
    await waitForMessage(page, 'Could not fetch');
    const errors = await messages(page);
    expect(errors).toContain(`Could not fetch ${url}: blocked by this page's security policy (Content-Security-Policy connect-src)`);
    expect(errors).not.toMatch(/CORS/);
    expect(await characterNames(page)).toEqual([]);
    await page.close();
  });

  it('uploads DXT textures of every shape (odd sizes, 1 × 1, cube maps) without a GL error', async () => {
    const page = await openPage(browser, '/?demo=0');
    const gl = [];
    page.on('console', (m) => {
      if (/GL_INVALID|GL_OUT_OF/.test(m.text())) gl.push(m.text());
    });
    await openFiles(page, [payload('texture_shapes.psg', fixture('texture_shapes.psg'))]);
    // Draw a few frames so every texture is uploaded.
    await page.evaluate(
      () =>
        new Promise((done) => {
          let n = 0;
          const frame = () => {
            window.__rigscope.viewer.render();
            if (++n < 3) requestAnimationFrame(frame);
            else done();
          };
          requestAnimationFrame(frame);
        }),
    );
    const maps = await page.evaluate(() =>
      window.__rigscope.app.characters.flatMap((c) => c.materials.map((m) => m.map?.image?.width ?? 0)),
    );
    expect(maps).toHaveLength(19);
    expect(maps.every((w) => w > 0)).toBe(true);
    expect(gl).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
