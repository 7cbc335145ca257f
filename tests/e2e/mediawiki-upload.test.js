// The MediaWiki extension's upload checks and file page text, through the API only (no browser, no
// posters): files a browser could take for HTML are refused, refusals show file text literally,
// file pages name facts in words and cap long lists, and the texture and script types this
// extension types are not marked "may contain malicious code". One wiki for the whole file, with
// `rigscope inspect` checking uploads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { SAMPLES } from './browser.js';
import { hasMediaWiki, openTestWiki } from './mediawiki/wiki.js';
import { packScene } from '../../web/src/core/pack.js';

const ready = hasMediaWiki() && existsSync(SAMPLES);
if (!ready)
  console.warn("mediawiki-upload.test.js: skipped (needs Debian's mediawiki and php, see scripts/setup.sh, and ../shared/samples)");

const BUNDLE_SIGNATURE = Buffer.from([0x89, 0x52, 0x53, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A UE1 data file (`_d.3d`) that starts with `text` and is padded until 48 + 16 × NumPolys adds up. */
function paddedDataFile(text) {
  const head = Buffer.from(text, 'latin1');
  const numPolys = head.readUInt16LE(0);
  const file = Buffer.alloc(48 + 16 * numPolys);
  head.copy(file);
  return file;
}

/** A bundle whose header holds `header` as JSON (the container is not checked past its header). */
function bundleWithHeader(header) {
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(12);
  head.write('RSPK', 0, 'latin1');
  head.writeUInt32LE(Array.isArray(header.files) ? header.files.length : 0, 4);
  head.writeUInt32LE(json.length, 8);
  return Buffer.concat([BUNDLE_SIGNATURE, deflateRawSync(Buffer.concat([head, json]))]);
}

/**
 * An ActorX animation (`.psa`) of one bone and `count` one-frame sequences: ANIMHEAD, BONENAMES,
 * ANIMINFO and ANIMKEYS chunks.
 */
function manyClipsPsa(count) {
  const chunk = (id, size, records, fill) => {
    const b = Buffer.alloc(32 + size * records);
    b.write(id, 0, 'latin1');
    b.writeInt32LE(1999801, 20);
    b.writeInt32LE(size, 24);
    b.writeInt32LE(records, 28);
    for (let i = 0; i < records; i++) fill?.(b, 32 + i * size, i);
    return b;
  };
  return Buffer.concat([
    chunk('ANIMHEAD', 0, 0),
    chunk('BONENAMES', 120, 1, (b, at) => {
      b.write('Root', at, 'latin1');
      b.writeFloatLE(1, at + 64 + 12 + 12); // rotation w
    }),
    chunk('ANIMINFO', 168, count, (b, at, i) => {
      b.write(`Clip${String(i).padStart(3, '0')}`, at, 'latin1');
      b.write('None', at + 64, 'latin1');
      b.writeInt32LE(1, at + 128); // TotalBones
      b.writeFloatLE(1, at + 148); // TrackTime
      b.writeFloatLE(30, at + 152); // AnimRate
      b.writeInt32LE(i, at + 160); // FirstRawFrame
      b.writeInt32LE(1, at + 164); // NumRawFrames
    }),
    chunk('ANIMKEYS', 32, count, (b, at) => b.writeFloatLE(1, at + 24)), // rotation w
  ]);
}

describe.skipIf(!ready)('MediaWiki extension: uploads and file page text', () => {
  let wiki, dir;
  /** Writes `bytes` to a file of the test's folder and uploads it as `name`: the API's answer. */
  const upload = (name, bytes) => {
    const path = `${dir}/${name.replace(/[^\w.-]/g, '_')}`;
    writeFileSync(path, bytes);
    return wiki.api.upload(path, name);
  };

  beforeAll(async () => {
    wiki = await openTestWiki('upload', { settings: "$wgFileExtensions[] = 'dds';" });
    dir = wiki.dir;
  }, 120000);

  afterAll(() => wiki?.remove());

  describe('files a browser could take for HTML are refused', () => {
    it('a .uc whose text is HTML', async () => {
      const r = await upload('Evil.uc', '<p><svg onload=alert(1)>\n');
      expect(r.error?.code, JSON.stringify(r)).toBe('verification-error');
      expect(r.error.info).toMatch(/UnrealScript Evil\.uc: starts with an HTML "p" tag, which a browser takes for HTML .*\(at byte 0\)$/);
      // After white space, as browsers skip it before they sniff.
      const w = await upload('Spaced.uc', ' \r\n\t<P >hello');
      expect(w.error?.code, JSON.stringify(w)).toBe('verification-error');
      expect(w.error.info).toMatch(/UnrealScript Spaced\.uc: starts with an HTML "P" tag, .*\(at byte 4\)$/);
    });

    it('a UE1 _d.3d padded until its size adds up, with HTML inside', async () => {
      const r = await upload('Evil_d.3d', paddedDataFile('<p><svg onload=alert(1)>'));
      expect(r.error?.code, JSON.stringify(r)).toBe('verification-error');
      expect(r.error.info).toMatch(/UE1 Evil_d\.3d: .*HTML.*\(at byte 0\)$/);
      const c = await upload('Comment_d.3d', paddedDataFile('<!-- --><img src=x onerror=alert(1)>'));
      expect(c.error?.code, JSON.stringify(c)).toBe('verification-error');
      expect(c.error.info).toMatch(/UE1 Comment_d\.3d: starts with an HTML comment, .*\(at byte 0\)$/);
    });

    it("a .uc with script further in, as MediaWiki's own check finds it", async () => {
      const r = await upload(
        'Later.uc',
        `class Later extends Actor;\n${'// padding\n'.repeat(200)}var string S; // <script>alert(1)</script>\n`,
      );
      expect(r.error?.code, JSON.stringify(r)).toBe('verification-error');
    });

    it('no real sample of any family is refused by these checks', () => {
      // Every model, script and texture under ../shared/samples, through the upload checks in the
      // wiki's PHP (UploadBase::detectScript included), without uploading them.
      const { checked, refused } = JSON.parse(wiki.php([new URL('./mediawiki/check-samples.php', import.meta.url).pathname, SAMPLES]));
      expect(checked).toBeGreaterThan(100);
      expect(refused).toEqual([]);
    });

    it('the real UE1 script and mesh are still accepted', async () => {
      for (const f of ['mar_rifle_d.3d', 'mar_rifle_a.3d', 'mar_rifle.uc']) {
        const r = await wiki.api.upload(`${SAMPLES}vertex3d/assimp-mar_rifle/${f}`, f);
        expect(r.upload?.result, `${f}: ${JSON.stringify(r.error)}`).toBe('Success');
      }
    });
  });

  describe('refusals show what the file says as plain text, not wikitext', () => {
    const MARKUP = "'''bold''' [[Main Page|link]] {{SITENAME}} <b>tag</b>";
    /** Uploads with the API's error format `errorformat`: the first error. */
    async function refusal(name, bytes, errorformat) {
      const path = `${dir}/${name}`;
      writeFileSync(path, bytes);
      const token = await wiki.api.token();
      const r = await wiki.api.request(
        { action: 'upload', errorformat, errorlang: 'en' },
        { filename: name, ignorewarnings: '1', token, file: { blob: new Blob([bytes]), name } },
      );
      expect(r.errors?.[0]?.code, JSON.stringify(r)).toBe('verification-error');
      return r.errors[0];
    }
    const literally = (text) => {
      expect(text).toContain("'''bold'''");
      expect(text).toContain('[[Main Page|link]]');
      expect(text).toContain('{{SITENAME}}');
      expect(text).not.toContain('Rigscope test wiki');
    };

    it("a bundle's header (a file's name in it)", async () => {
      const bundle = bundleWithHeader({ v: 1, state: {}, files: [{ name: `${MARKUP}.psk`, size: 'big' }] });
      const html = (await refusal('Markup.rigscope', bundle, 'html')).html;
      // As the reader sees it: quotes come escaped.
      literally(html.replace(/&#0?39;/g, "'").replace(/&quot;/g, '"'));
      // Escaped as text: no element, no link.
      expect(html).toContain('&lt;b&gt;tag&lt;/b&gt;');
      expect(html).not.toMatch(/<b>|<a /);
      literally((await refusal('Markup2.rigscope', bundle, 'wikitext')).text);
    });

    it("a chunk id from a file's header", async () => {
      // ACTRHEAD then 12 bytes of the id, TypeFlag, DataSize -1.
      const psk = Buffer.alloc(64);
      psk.write('ACTRHEAD[[x]]{{', 0, 'latin1');
      psk.writeInt32LE(-1, 24);
      const html = (await refusal('Markup.psk', psk, 'html')).html;
      expect(html).toContain('chunk ACTRHEAD[[x]]{{ declares DataSize -1');
    });
  });

  describe('texture and script pages carry no "may contain malicious code" warning', () => {
    /** A 4×4 DirectDraw Surface: "DDS ", its 124-byte header (32-bit RGBA), then the pixels. */
    function dds() {
      const file = Buffer.alloc(128 + 4 * 4 * 4, 0x80);
      file.write('DDS ', 0, 'latin1');
      const u32 = (v, at) => file.writeUInt32LE(v, at);
      u32(124, 4); // dwSize
      u32(0x100f, 8); // CAPS | HEIGHT | WIDTH | PITCH | PIXELFORMAT
      u32(4, 12); // height
      u32(4, 16); // width
      u32(16, 20); // pitch
      for (let at = 24; at < 76; at += 4) u32(0, at); // depth, mipmaps, reserved
      u32(32, 76); // pixel format: size
      u32(0x41, 80); // RGB | ALPHAPIXELS
      u32(0, 84);
      u32(32, 88); // bits
      u32(0xff0000, 92);
      u32(0xff00, 96);
      u32(0xff, 100);
      u32(0xff000000, 104);
      u32(0x1000, 108); // caps: texture
      for (let at = 112; at < 128; at += 4) u32(0, at);
      return file;
    }
    const pcx = `${SAMPLES}vertex3d/trashbag/Models/salad.pcx`;

    it('.pcx and .dds are bitmaps, .uc is text: no warning on their pages', async () => {
      expect((await wiki.api.upload(pcx, 'Salad.pcx')).upload?.result).toBe('Success');
      const d = await upload('Skin.dds', dds());
      expect(d.upload?.result, JSON.stringify(d)).toBe('Success');
      const r = await wiki.api.upload(`${SAMPLES}vertex3d/assimp-mar_rifle/mar_rifle.uc`, 'Rifle_script.uc');
      expect(r.upload?.result, JSON.stringify(r)).toBe('Success');
      const info = await wiki.api.request({
        action: 'query',
        titles: 'File:Salad.pcx|File:Skin.dds',
        prop: 'imageinfo',
        iiprop: 'mime|mediatype',
      });
      const byTitle = Object.fromEntries(info.query.pages.map((p) => [p.title, p.imageinfo[0]]));
      expect(byTitle['File:Salad.pcx']).toMatchObject({ mime: 'image/vnd.zbrush.pcx', mediatype: 'BITMAP' });
      expect(byTitle['File:Skin.dds']).toMatchObject({ mime: 'image/x-dds', mediatype: 'BITMAP' });
      for (const title of ['File:Salad.pcx', 'File:Skin.dds', 'File:Rifle_script.uc']) {
        const html = await (await fetch(`${wiki.url}/index.php?title=${encodeURIComponent(title)}`)).text();
        expect(html, title).toContain('fullMedia');
        expect(html, title).not.toContain('mediaWarning');
        expect(html, title).not.toContain('dangerousLink');
      }
    });

    it('a .pcx or .dds that is not one is refused', async () => {
      for (const [name, bytes] of [
        ['Page.pcx', '<p><svg onload=alert(1)>'],
        ['Page.dds', '<p><svg onload=alert(1)>'],
        ['Padded.pcx', Buffer.concat([Buffer.from('\n<p><svg onload=alert(1)>'), Buffer.alloc(200)])],
        ['Short.dds', Buffer.from('DDS |\0\0\0')],
      ]) {
        const r = await upload(name, bytes);
        expect(r.error?.code, `${name}: ${JSON.stringify(r)}`).toBeTruthy();
      }
      const r = await upload('Notdds.dds', Buffer.concat([Buffer.from('DDS \x10\0\0\0'), Buffer.alloc(200)]));
      expect(r.error?.info, JSON.stringify(r)).toMatch(/DDS Notdds\.dds: .*\(at byte 4\)$/);
    });
  });

  describe('file pages: facts in words, long lists capped', () => {
    /** A file page's HTML, and its table of facts. */
    async function page(title) {
      const html = await (await fetch(`${wiki.url}/index.php?title=${encodeURIComponent(title)}`)).text();
      const table = html.match(/<table class="wikitable rigscope-facts">[\s\S]*?<\/table>/)?.[0];
      expect(table, `${title} has a table of facts`).toBeTruthy();
      const description = html.match(/<meta property="og:description" content="([^"]*)"/)?.[1];
      return { html, table, description };
    }
    const RAW =
      /renderVertices|frameLengthMs|typeFlag|uvSets|NumPolys|NumVertices|NumFrames|FrameSize|payloadSize|faceChunk|wedgeIndexMasked|scaleKeys|influences/;

    it('counts and fields in words a reader knows, each family', async () => {
      for (const [f, name] of [
        ['psk/skSpiderLargeMesh.psk', 'Spider.psk'],
        ['psk/skSpiderLargeAnims.psa', 'SpiderAnims.psa'],
        ['zeroad/skeleton.pmd', 'Skeleton.pmd'],
        ['zeroad/skeleton_idle.psa', 'Skeleton_idle.psa'],
        ['psg/synthetic/skinned_quad_f32.psg', 'Quad.psg'],
        // A UE1 half alone: its facts are its header's.
        ['vertex3d/assimp-mar_rifle/mar_rifle_d.3d', 'Lone_d.3d'],
      ]) {
        const r = await wiki.api.upload(`${SAMPLES}${f}`, name);
        expect(r.upload?.result, `${name}: ${JSON.stringify(r.error)}`).toBe('Success');
      }
      const spider = await page('File:Spider.psk');
      expect(spider.table).toContain('492 triangles, 307 vertices, 71 bones, 266 positions, 408 bone weights, 3 materials, 1 UV map');
      expect(spider.table).toMatch(/Normals made from.*smoothing groups/s);
      expect(spider.table).not.toMatch(RAW);
      expect(spider.description).toMatch(/^Unreal ActorX mesh \(PSK\), 492 triangles, 307 vertices, 71 bones/);
      const anims = await page('File:SpiderAnims.psa');
      expect(anims.table).toContain('71 bones, 12 clips, 368 frames, 26,128 animation keys');
      expect(anims.table).not.toMatch(RAW);
      const pmd = await page('File:Skeleton.pmd');
      expect(pmd.table).toMatch(/Format version<\/th><td>2</);
      expect(pmd.table).not.toMatch(RAW);
      const idle = await page('File:Skeleton_idle.psa');
      expect(idle.table).toContain('33 ms per frame');
      expect(idle.table).not.toMatch(RAW);
      const psg = await page('File:Quad.psg');
      expect(psg.table).toContain('2 triangles, 4 vertices, 3 bones');
      expect(psg.table).not.toMatch(/subreferences|islands|indices|layout/);
      const lone = await page('File:Lone_d.3d');
      expect(lone.table).toContain('572 triangles, 421 vertices');
      expect(lone.table).toContain('Unreal Engine 1 data file (_d.3d)');
      expect(lone.table).not.toMatch(RAW);
      expect(lone.description).toContain('572 triangles, 421 vertices');
      expect(lone.description).not.toMatch(RAW);
    });

    it('a file of 150 clips lists 100 of them and says how many more', async () => {
      const r = await upload('Many.psa', manyClipsPsa(150));
      expect(r.upload?.result, JSON.stringify(r.error)).toBe('Success');
      const { table } = await page('File:Many.psa');
      expect(table).toContain('Clip099');
      expect(table).not.toContain('Clip100');
      expect(table).toContain('and 50 more');
      expect(table).toContain('Clips (150)');
    });

    it('a bundle of 150 files lists 100 of them and says how many more', async () => {
      const files = Array.from({ length: 150 }, (_, i) => ({
        name: `script${String(i).padStart(3, '0')}.uc`,
        bytes: Buffer.from(`class S${i} extends Actor;\n`),
      }));
      const r = await upload('Scripts.rigscope', Buffer.concat([BUNDLE_SIGNATURE, packScene({ files, state: {} })]));
      expect(r.upload?.result, JSON.stringify(r.error)).toBe('Success');
      const { table } = await page('File:Scripts.rigscope');
      expect(table).toContain('script099.uc');
      expect(table).not.toContain('script100.uc');
      expect(table).toContain('and 50 more');
    });
  });
});
