// UE1 packages on the wiki (issue 40, item 7): `.u` and `.utx` uploads are checked by content (a
// Git LFS pointer, a damaged header, another format under the name are refused, naming field and
// byte); a package's file page lists its meshes and textures and the packages it takes textures
// from; `[[File:Pkg.u|mesh=Name]]` and the tag's `mesh=` show one mesh, checked against the
// package; a texture package has its list and no empty player; posters of two meshes of one package
// are drawn in one run, each of its own mesh.
// One wiki, uploads through the API, `rigscope inspect` and posters on; pages read as served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import UPNG from 'upng-js';
import { SAMPLES } from './browser.js';
import { hasMediaWiki, openTestWiki, unescape } from './mediawiki/wiki.js';

const root = new URL('../..', import.meta.url).pathname;
const PACKAGES = `${SAMPLES}upackage/`;
const ready = hasMediaWiki() && existsSync(PACKAGES) && existsSync(`${root}build/wasm/decoders.wasm`);
if (!ready)
  console.warn("mediawiki-packages.test.js: skipped (needs Debian's mediawiki and php, ../shared/samples and the built decoders)");

/** A facts table row's cell (by its heading), as text, and its list items and links. */
function factsRow(html, heading) {
  const table = /<table[^>]*class="[^"]*rigscope-facts[^"]*"[^>]*>([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const cell = new RegExp(`<th[^>]*>${heading}</th>\\s*<td>([\\s\\S]*?)</td>`).exec(table)?.[1];
  if (cell === undefined) return null;
  const text = (s) => unescape(s.replace(/<[^>]+>/g, '')).trim();
  return {
    text: text(cell),
    items: [...cell.matchAll(/<li\b[^>]*>([\s\S]*?)<\/li>/g)].map((m) => text(m[1])),
    links: [...cell.matchAll(/<a [^>]*>([^<]*)<\/a>/g)].map((m) => unescape(m[1])),
  };
}

/** The views the page's placeholders carry (the extension's data-mw-rigscope JSON). */
const views = (html) => [...html.matchAll(/data-mw-rigscope="([^"]*)"/g)].map((m) => JSON.parse(unescape(m[1])));

/** A UE1 package header (36 bytes, tag and version) with table counts and offsets, then `pad` zero bytes. */
function packageHeader({ version = 69, names = [1, 36], exports = [0, 36], imports = [0, 36], pad = 64 } = {}) {
  const b = Buffer.alloc(36 + pad);
  b.writeUInt32LE(0x9e2a83c1, 0);
  b.writeUInt16LE(version, 4);
  [names, exports, imports].forEach(([count, offset], i) => {
    b.writeUInt32LE(count, 12 + 8 * i);
    b.writeUInt32LE(offset, 16 + 8 * i);
  });
  return b;
}

/** Git LFS's pointer text for a file of `size` bytes. */
const lfsPointer = (size) => Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${'4d7a'.repeat(16)}\nsize ${size}\n`);

describe.skipIf(!ready)('MediaWiki extension: UE1 packages', () => {
  let wiki, dir;
  /** Uploads a file of the samples (or bytes written to the test's folder) as `name`: the API's answer. */
  const upload = (from, name) => {
    let path = from;
    if (typeof from !== 'string') {
      path = join(dir, name.replace(/[^\w.-]/g, '_'));
      writeFileSync(path, from);
    }
    return wiki.api.upload(path, name);
  };
  const uploaded = async (from, name) => {
    const r = await upload(from, name);
    expect(r.upload?.result, `${name}: ${JSON.stringify(r.error)}`).toBe('Success');
  };
  /** The refusal's sentence, after the wiki's "cannot be uploaded as a model (texture)" lead-in. */
  const refused = async (bytes, name) => {
    const r = await upload(bytes, name);
    expect(r.error?.code, JSON.stringify(r)).toBe('verification-error');
    expect(r.error.info).toMatch(/^This file cannot be uploaded as a (model|texture): /);
    return r.error.info.replace(/^This file cannot be uploaded as a (model|texture): /, '');
  };
  /** A page's HTML as a reader gets it. */
  const page = async (title) => {
    const r = await fetch(`${wiki.url}/index.php?title=${encodeURIComponent(title)}`);
    expect(r.status, title).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    wiki = await openTestWiki('packages', { posters: true });
    dir = wiki.dir;
    // Deus Ex's Endemia.u: 53 meshes of 8-byte vertices, 161 textures; its slots name Effects.
    await uploaded(`${PACKAGES}Endemia.u`, 'Endemia.u');
    await uploaded(`${PACKAGES}JetpackTex.utx`, 'JetpackTex.utx');
  }, 180000);

  afterAll(() => wiki?.remove());

  describe('uploads are checked by content', () => {
    it('refuses a Git LFS pointer under any model or texture name, naming the size it stands for', async () => {
      expect(await refused(lfsPointer(4114609), 'Siege.u')).toMatch(
        /^UE1 package Siege\.u: a Git LFS pointer, not the file: the repository keeps this file elsewhere \(4,114,609 bytes\); upload the file itself \(git lfs pull fetches it\) \(at byte 0\)$/,
      );
      expect(await refused(lfsPointer(23392), 'Pointer.psk')).toMatch(
        /^PSK Pointer\.psk: a Git LFS pointer, not the file: .*\(23,392 bytes\).*\(at byte 0\)$/,
      );
      expect(await refused(lfsPointer(300000), 'Skin.pcx')).toMatch(/^PCX Skin\.pcx: a Git LFS pointer, not the file: .*\(at byte 0\)$/);
    });

    it('refuses a damaged header, naming the field and its byte', async () => {
      expect(await refused(packageHeader({ version: 5 }), 'Old.u')).toMatch(
        /^UE1 package Old\.u: FileVersion is 5 \(UE1 packages are versions 61 to 127\) \(at byte 4\)$/,
      );
      expect(await refused(packageHeader({ names: [5000, 36] }), 'Names.utx')).toMatch(
        /^UE1 package Names\.utx: NameCount 5000 cannot fit in the 64 bytes after NameOffset 36 \(at byte 12\)$/,
      );
      expect(await refused(packageHeader({ exports: [1, 999999] }), 'Far.u')).toMatch(
        /^UE1 package Far\.u: ExportOffset 999999 is past the end of the file \(100 bytes\) \(at byte 24\)$/,
      );
    });

    it('refuses another format under a package name, and a package the decoders cannot read', async () => {
      expect(await refused(readFileSync(`${PACKAGES}sources/C4.psk`), 'C4.u')).toMatch(
        /^UE1 package C4\.u: tag is not C1 83 2A 9E, the tag of an Unreal package \(found "ACTR"\) \(it is a psk file\) \(at byte 0\)$/,
      );
      // A header that passes, tables that do not: `rigscope inspect` names what it could not read.
      const info = await refused(packageHeader({ names: [1, 36], pad: 64 }).fill(0xff, 36), 'Broken.u');
      expect(info).toMatch(/Broken\.u/);
      expect(info).toMatch(/byte \d+/);
    });
  });

  // The meshes' posters are drawn before any file page of the package is read: each file page
  // view asks for the whole package's poster (53 meshes, 161 textures) for its OpenGraph image,
  // which no check here needs and the job runner would draw beside the meshes'.
  describe('mesh= shows one mesh of a package', () => {
    it('in a thumbnail and the tag, by name in any case or by its path; an unknown name says which there are', async () => {
      await wiki.api.edit(
        'Bar',
        [
          '[[File:Endemia.u|mesh=CoffeeCup|200px]]',
          '[[File:Endemia.u|mesh=barrel2|clip=Still|200px]]',
          '[[File:Endemia.u|mesh=Endemia.Ashtray|200px]]',
          '[[File:Endemia.u|mesh=Nope|200px]]',
          '[[File:Endemia.u|mesh=CoffeeCup|clip=Run|200px]]',
          '{{#rigscope:Endemia.u|mesh=WhiskyBottle|width=300}}',
        ].join('\n'),
      );
      const html = await page('Bar');
      const shown = views(html).map((v) => [v.mesh ?? null, v.clip ?? null]);
      expect(shown).toEqual([
        ['CoffeeCup', null],
        ['Barrel2', 'Still'],
        ['Ashtray', null],
        [null, null],
        // A clip the mesh does not have: the mesh is shown, from its first frame.
        ['CoffeeCup', null],
        ['WhiskyBottle', null],
      ]);
      const text = unescape(html.replace(/<[^>]+>/g, ' '));
      expect(text).toMatch(/No mesh named “Nope” in this package\. Its 53 meshes include: WhiskyBottle, CoffeeCup, Ashtray, /);
      expect(text).toMatch(/No clip named “Run”\. Its 2 clips include: All, Still\./);
    });

    it('on a file that is not a package, mesh= is a problem said on its card', async () => {
      await uploaded(`${PACKAGES}sources/C4.psk`, 'C4Source.psk');
      await wiki.api.edit('NotPackage', '[[File:C4Source.psk|mesh=C4|200px]]');
      const text = unescape((await page('NotPackage')).replace(/<[^>]+>/g, ' '));
      expect(text).toMatch(/mesh=C4 names a mesh of an Unreal package \(\.u\); this file is not one\./);
    });

    it("draws each mesh's poster in one run, and each shows its own mesh", { timeout: 400000 }, async () => {
      await wiki.api.edit('Posters', '[[File:Endemia.u|mesh=CoffeeCup|200px]] [[File:Endemia.u|mesh=Barrel2|200px]]');
      await page('Posters');
      await wiki.runJobs();
      const thumbs = readdirSync(join(dir, 'images/thumb'), { recursive: true })
        .map(String)
        .filter((f) => /Endemia\.u\/.*mesh-(CoffeeCup|Barrel2)-\d+px-.*\.png$/.test(f));
      expect(thumbs.map((f) => /mesh-(\w+)-/.exec(f)[1]).sort()).toEqual(['Barrel2', 'CoffeeCup']);
      const log = readFileSync(join(dir, 'rigscope.log'), 'utf8');
      // The views queued meanwhile (this page's and Bar's: four meshes) are batched, meshes mixed:
      // every poster asked is drawn, several in one run.
      const runs = [...log.matchAll(/drew (\d+) of (\d+) poster\(s\) of Endemia\.u in one run/g)].map((m) => [+m[1], +m[2]]);
      for (const [drawn, asked] of runs) expect(drawn).toBe(asked);
      expect(Math.max(...runs.map(([drawn]) => drawn))).toBeGreaterThanOrEqual(2);
      // Each poster is of its own mesh: a cup and a barrel cover different pixels.
      const covered = thumbs.map((f) => {
        const png = UPNG.decode(readFileSync(join(dir, 'images/thumb', f)));
        const rgba = new Uint32Array(UPNG.toRGBA8(png)[0]);
        return rgba.filter((p) => p !== rgba[0]).length;
      });
      expect(Math.min(...covered)).toBeGreaterThan(500);
      expect(covered[0]).not.toBe(covered[1]);
      // The page now shows them, each in its placeholder.
      const html = await page('Posters');
      expect(views(html).map((v) => v.mesh)).toEqual(['CoffeeCup', 'Barrel2']);
      expect(html).toMatch(/mesh-CoffeeCup-\d+px-Endemia\.u\.png/);
    });
  });

  describe("a package's file page", () => {
    it('lists its meshes with their counts, its textures, and the package it takes textures from', async () => {
      const html = await page('File:Endemia.u');
      expect(factsRow(html, 'Format').text).toBe('Unreal Engine 1 package (.u, .utx)');
      expect(factsRow(html, 'Holds').text).toBe('53 meshes, 161 textures');
      const meshes = factsRow(html, 'Meshes');
      expect(meshes.items).toHaveLength(53);
      // Deus Ex's packed 8-byte vertices, as §14 of the spec counts them: one frame, All and Still.
      expect(meshes.items.find((i) => i.startsWith('Barrel2 '))).toMatch(
        /^Barrel2 LodMesh, \d+ vertices, \d+ triangles, 1 frame, 2 clips$/,
      );
      const textures = factsRow(html, 'Textures');
      // 100 listed, the rest counted.
      expect(textures.items).toHaveLength(101);
      expect(textures.items.at(-1)).toBe('and 61 more');
      expect(textures.items[0]).toMatch(/^\S+ (\(group \S+\) )?\S+, \d+ × \d+$/);
      expect(factsRow(html, 'Textures from').items).toEqual(['Effects (not on this wiki: upload Effects.utx or Effects.u)']);
      // Its missing package is said in that row, not again as a warning.
      expect(factsRow(html, 'Warnings')?.text ?? '').not.toMatch(/Effects/);
      // The file page's player shows the package (every mesh, laid out, as the viewer does).
      const [view] = views(html);
      expect(view.src.map((s) => s.split('/').pop())).toEqual(['Endemia.u']);
      expect(view.mesh).toBeUndefined();
    });

    it('a texture package lists its textures, grouped, and shows no empty player', async () => {
      const html = await page('File:JetpackTex.utx');
      expect(factsRow(html, 'Holds').text).toBe('8 textures');
      expect(factsRow(html, 'Meshes')).toBeNull();
      expect(factsRow(html, 'Textures').items).toContain('JetMetal P8, 256 × 256');
      expect(views(html)).toEqual([]);
    });

    it('finds the package a mesh takes textures from by its name, and plays them together', async () => {
      // A stand-in for Deus Ex's Effects.utx (the sample texture package under that name): found by
      // the name the slots give, linked from the row, and handed to the player.
      await uploaded(`${PACKAGES}JetpackTex.utx`, 'Effects.utx');
      await wiki.api.request({ action: 'purge', titles: 'File:Endemia.u' }, {});
      const html = await page('File:Endemia.u');
      expect(factsRow(html, 'Textures from').links).toEqual(['Effects.utx']);
      expect(views(html)[0].src.map((s) => s.split('/').pop())).toEqual(['Endemia.u', 'Effects.utx']);
    });
  });
});
