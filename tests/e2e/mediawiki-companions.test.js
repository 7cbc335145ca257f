// The MediaWiki extension finds a model's companions by what the files import and bind, not by
// name alone (issue 39, items 9, 12, 13): a UE1 mesh plays with the class script that imports it
// whatever the script is called, and with the textures that script names; an animation plays on
// the one mesh of the wiki whose bones it binds. A file page with nothing to play shows its facts
// alone, and no model page offers a PNG preview's size or "other resolutions".
// One wiki, uploads through the API, `rigscope inspect` on (no poster command: no browser); the
// file pages' HTML is read as served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SAMPLES } from './browser.js';
import { EXTENSION_DIR, MEDIAWIKI, hasMediaWiki, openTestWiki, unescape } from './mediawiki/wiki.js';
import { execFileSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const ready = hasMediaWiki() && existsSync(SAMPLES) && existsSync(`${root}build/wasm/decoders.wasm`);
if (!ready)
  console.warn(
    "mediawiki-companions.test.js: skipped (needs Debian's mediawiki and php, see scripts/setup.sh, ../shared/samples and the built decoders)",
  );

const trashbag = `${SAMPLES}vertex3d/trashbag/`;
const rifle = `${SAMPLES}vertex3d/assimp-mar_rifle/`;
// A class script shaped as UMS Marines II's UMSSpaceMarine.uc (its own lines, not the mod's): it
// imports the mesh UMSMarine, gives it sequences and scale, and names its skin.
const UMS_SCRIPT = [
  'class UMSSpaceMarine expands ScriptedPawn;',
  '#exec MESH IMPORT MESH=UMSMarine ANIVFILE=MODELS\\UMSMarine_a.3d DATAFILE=MODELS\\UMSMarine_d.3d X=0 Y=0 Z=0',
  '#exec MESH ORIGIN MESH=UMSMarine X=0 Y=0 Z=0',
  '#exec MESH SEQUENCE MESH=UMSMarine SEQ=All STARTFRAME=0 NUMFRAMES=30',
  '#exec MESH SEQUENCE MESH=UMSMarine SEQ=Breath STARTFRAME=0 NUMFRAMES=10',
  '#exec MESH SEQUENCE MESH=UMSMarine SEQ=Fire STARTFRAME=10 NUMFRAMES=20',
  '#exec MESHMAP NEW MESHMAP=UMSMarine MESH=UMSMarine',
  '#exec MESHMAP SCALE MESHMAP=UMSMarine X=0.1 Y=0.1 Z=0.2',
  '#exec TEXTURE IMPORT NAME=JMarine7 FILE=MODELS\\JMarine7.pcx GROUP=Skins',
  '#exec MESHMAP SETTEXTURE MESHMAP=UMSMarine NUM=1 TEXTURE=JMarine7',
  '',
].join('\n');
const BURGER_TEXTURES = ['burgerbun', 'salad', 'patty', 'tomatoslice', 'onionslice', 'cheeseslice', 'burgerbunbottom'];

/** The links of a facts table's row, by its heading ("Plays with"): the names shown. */
function factsRow(html, heading) {
  const table = /<table[^>]*class="[^"]*rigscope-facts[^"]*"[^>]*>([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const row = new RegExp(`<th[^>]*>${heading}</th>\\s*<td>([\\s\\S]*?)</td>`).exec(table)?.[1];
  if (row === undefined) return null;
  const links = [...row.matchAll(/<a [^>]*>([^<]*)<\/a>/g)].map((m) => unescape(m[1]));
  return links.length ? links : [unescape(row.replace(/<[^>]+>/g, ''))];
}

/**
 * The files a page's players carry, as PlayerMarkup writes them (the attribute that carries them
 * may change: any attribute of a placeholder's opening tag is searched for file names).
 * @returns {string[]} one string per placeholder: its opening tag, attributes unescaped
 */
const placeholders = (html) =>
  [...html.matchAll(/<(?:span|div)\b[^>]*class="[^"]*\brigscope-thumb\b[^"]*"[^>]*>/g)].map((m) => unescape(m[0]));

describe.skipIf(!ready)('MediaWiki extension: companions by what files import and bind', () => {
  let wiki, dir;
  const uploads = {};
  const upload = async (path, name) => {
    uploads[name] = await wiki.api.upload(path, name);
    expect(uploads[name].upload?.result, `${name}: ${JSON.stringify(uploads[name].error)}`).toBe('Success');
  };
  /** A page's HTML as a reader gets it. */
  const page = async (title) => {
    const r = await fetch(`${wiki.url}/index.php?title=${encodeURIComponent(title)}`);
    expect(r.status, title).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    wiki = await openTestWiki('companions');
    dir = wiki.dir;
    // A page shows the hamburger before its script and textures are on the wiki: their upload must
    // render it again.
    await upload(`${trashbag}Models/Hamburger01_d.3d`, 'Hamburger01_d.3d');
    await upload(`${trashbag}Models/Hamburger01_a.3d`, 'Hamburger01_a.3d');
    await wiki.api.edit('Burger', '[[File:Hamburger01_d.3d|320px]]');
    await page('Burger');
    // Trashbag's Hamburger.uc imports the mesh Hamburger01 and names seven textures, as UMS Marines
    // II's UMSSpaceMarine.uc imports UMSMarine and names JMarine7.pcx.
    await upload(`${trashbag}Classes/Hamburger.uc`, 'Hamburger.uc');
    for (const t of BURGER_TEXTURES) await upload(`${trashbag}Models/${t}.pcx`, `${t}.pcx`);
    // UMS Marines II's layout, on the real UE1 sample: the class UMSSpaceMarine imports the mesh
    // UMSMarine and names its skin JMarine7.pcx; each file uploaded under its own name.
    writeFileSync(`${dir}/UMSSpaceMarine.uc`, UMS_SCRIPT);
    await upload(`${dir}/UMSSpaceMarine.uc`, 'UMSSpaceMarine.uc');
    await upload(`${rifle}mar_rifle_d.3d`, 'UMSMarine_d.3d');
    await upload(`${rifle}mar_rifle_a.3d`, 'UMSMarine_a.3d');
    await upload(`${trashbag}Models/scroll1.pcx`, 'JMarine7.pcx');
    // A PSK and its PSA under names that do not match; an animation whose mesh is not here.
    await upload(`${SAMPLES}psk/skSpiderLargeMesh.psk`, 'XMesh.psk');
    await upload(`${SAMPLES}psk/skSpiderLargeAnims.psa`, 'XAnims.psa');
    await upload(`${SAMPLES}psk/grunt_hh_grabplayer_crouch_SEQ0.psa`, 'Crouch.psa');
    // 0 A.D. animations bind by bone count: the one 29-bone model of the wiki.
    await upload(`${SAMPLES}zeroad/skeleton.pmd`, 'Skeleton.pmd');
    await upload(`${SAMPLES}zeroad/skeleton_idle.psa`, 'Walking_idle.psa');
    // The jobs the uploads queued (pages using a file whose companions changed are rendered again).
    await wiki.runJobs();
  }, 240000);

  afterAll(() => wiki?.remove());

  it('update.php made the index table, and each upload wrote what it imports and binds', () => {
    const rows = JSON.parse(
      wiki.php([
        `${MEDIAWIKI}/maintenance/sql.php`,
        '--json',
        '--query',
        "SELECT ri_file, ri_kind, ri_key FROM rigscope_import WHERE ri_kind IN ('script-mesh', 'mesh-bones', 'anim-bones')",
      ]),
    );
    const keys = (file, kind) => rows.filter((r) => r.ri_file === file && r.ri_kind === kind).map((r) => r.ri_key);
    expect(keys('Hamburger.uc', 'script-mesh')).toEqual(['hamburger01']);
    expect(keys('UMSSpaceMarine.uc', 'script-mesh')).toEqual(['umsmarine']);
    // The mesh and its animation share one bone-set key; the lone animation has another.
    const [spider] = keys('XMesh.psk', 'mesh-bones');
    expect(spider).toMatch(/^name:[0-9a-f]+$/);
    expect(keys('XAnims.psa', 'anim-bones')).toEqual([spider]);
    expect(keys('Crouch.psa', 'anim-bones')).toHaveLength(1);
    expect(keys('Crouch.psa', 'anim-bones')).not.toEqual([spider]);
    expect(keys('Walking_idle.psa', 'anim-bones')).toEqual(['index:29']);
    expect(keys('Skeleton.pmd', 'mesh-bones')).toEqual(['index:29']);
  });

  it('reads what a class script imports and names as the viewer does (data files, skins; commented lines name no skin)', () => {
    const text = [
      '#exec MESH IMPORT MESH=UMSMarine ANIVFILE=MODELS\\UMSMarine_a.3d DATAFILE="MODELS\\UMSMarine_d.3d"',
      '#exec TEXTURE IMPORT NAME=JMarine7 FILE=MODELS\\JMarine7.PCX GROUP=Skins',
      '//#exec TEXTURE IMPORT NAME=Old FILE=MODELS\\Old.pcx',
      "MultiSkins(1)=Texture'UMSMarines.Skins.JMarine8'",
      'Skin=PGAssets.Skins.SandwichTex2',
    ].join('\n');
    const out = execFileSync(
      'php',
      [
        '-r',
        'require $argv[1]; echo json_encode( MediaWiki\\Extension\\Rigscope\\ImportIndex::readScript( $argv[2] ) );',
        `${EXTENSION_DIR}/src/ImportIndex.php`,
        text,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ meshes: ['umsmarine'], skins: ['jmarine7', 'jmarine8', 'sandwichtex2'], psks: [], packages: [] });
  });

  it('a .psk plays with the UE2-era script that imports it (MODELIMPORT), the package it loads and the page showing it is rendered again', async () => {
    // C4.u's own lines (its class source), shortened: the script places C4.psk and skins it from a
    // texture package it loads.
    const script = [
      'class C4Weapon expands TournamentWeapon;',
      '#exec MESH MODELIMPORT MESH=C4 MODELFILE=Models\\C4.psk LODSTYLE=10',
      '#exec MESH ORIGIN MESH=C4 X=0 Y=0 Z=0 PITCH=64',
      '#exec OBJ LOAD FILE=..\\Textures\\JetpackTex.utx PACKAGE=JetpackTex',
      '#exec MESHMAP SETTEXTURE MESHMAP=C4 NUM=0 TEXTURE=JetpackTex.JetMetal',
      '',
    ].join('\n');
    const psk = `${SAMPLES}upackage/sources/C4.psk`;
    await upload(psk, 'C4.psk');
    await wiki.api.edit('Charge', '[[File:C4.psk|200px]]');
    expect(placeholders(await page('Charge')).join('')).not.toMatch(/C4Weapon\.uc/);
    writeFileSync(`${dir}/C4Weapon.uc`, script);
    await upload(`${dir}/C4Weapon.uc`, 'C4Weapon.uc');
    await upload(`${SAMPLES}upackage/JetpackTex.utx`, 'JetpackTex.utx');
    await wiki.runJobs();
    const out = execFileSync(
      'php',
      [
        '-r',
        'require $argv[1]; echo json_encode( MediaWiki\\Extension\\Rigscope\\ImportIndex::readScript( $argv[2] ) );',
        `${EXTENSION_DIR}/src/ImportIndex.php`,
        script,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ meshes: [], skins: ['jetmetal'], psks: ['c4.psk'], packages: ['jetpacktex'] });
    expect(factsRow(await page('File:C4.psk'), 'Plays with')).toEqual(expect.arrayContaining(['C4Weapon.uc', 'JetpackTex.utx']));
    // The page that showed the mesh before its script arrived carries the script and the package now.
    // The uploads' deferred updates queue the page's refresh: jobs run until it is done (bounded).
    let [tag] = placeholders(await page('Charge'));
    for (let i = 0; i < 10 && !/JetpackTex\.utx/.test(tag); i++) {
      await wiki.runJobs();
      [tag] = placeholders(await page('Charge'));
    }
    expect(tag).toMatch(/C4\.psk/);
    expect(tag).toMatch(/C4Weapon\.uc/);
    expect(tag).toMatch(/JetpackTex\.utx/);
  });

  it("a UE1 mesh plays with the script that imports it, whatever its name, the script's sequences and the textures it names", async () => {
    const html = await page('File:Hamburger01_d.3d');
    const plays = factsRow(html, 'Plays with');
    expect(plays).toEqual(
      expect.arrayContaining(['Hamburger01_a.3d', 'Hamburger.uc', ...BURGER_TEXTURES.map((t) => `${t[0].toUpperCase()}${t.slice(1)}.pcx`)]),
    );
    // The script's sequences, read with it on the server.
    expect(html).toMatch(/class="rigscope-clip-name">hamburger</);
    // The placeholder carries the script and the textures to the player and the poster.
    const [player] = placeholders(html);
    expect(player).toContain('Hamburger.uc');
    expect(player).toContain('Burgerbun.pcx');
  });

  it("UMS Marines II's layout: File:UMSMarine_d.3d plays with UMSSpaceMarine.uc and its skin, and lists the script's sequences", async () => {
    const html = await page('File:UMSMarine_d.3d');
    expect(factsRow(html, 'Plays with')).toEqual(['UMSMarine_a.3d', 'UMSSpaceMarine.uc', 'JMarine7.pcx']);
    const clips = [...html.matchAll(/class="rigscope-clip-name">([^<]*)</g)].map((m) => m[1]);
    expect(clips).toEqual(['All', 'Breath', 'Fire']);
    const [player] = placeholders(html);
    expect(player).toContain('UMSSpaceMarine.uc');
    expect(player).toContain('JMarine7.pcx');
    // The other half's page too.
    expect(factsRow(await page('File:UMSMarine_a.3d'), 'Plays with')).toEqual(['UMSMarine_d.3d', 'UMSSpaceMarine.uc', 'JMarine7.pcx']);
  });

  it('a page that showed the mesh before its script and textures came is rendered again with them', async () => {
    const [player] = placeholders(await page('Burger'));
    expect(player).toContain('Hamburger.uc');
    expect(player).toContain('Patty.pcx');
    // The companions are files the page uses: a new version of one renders it again.
    const used = await wiki.api.request({ action: 'query', titles: 'File:Hamburger.uc|File:Patty.pcx', prop: 'fileusage' });
    for (const p of used.query.pages)
      expect(
        p.fileusage?.map((u) => u.title),
        p.title,
      ).toContain('Burger');
  });

  it('a PSA named differently from its PSK plays on it, and the mesh plays its animations', async () => {
    const anims = await page('File:XAnims.psa');
    expect(factsRow(anims, 'Plays with')).toEqual(['XMesh.psk']);
    expect(factsRow(anims, 'Bound to')?.[0]).toMatch(/XMesh\.psk \(71 of 71 bones matched\)/);
    expect(anims).toContain('"wgRigscopeOpen":true');
    expect(factsRow(await page('File:XMesh.psk'), 'Plays with')).toEqual(['XAnims.psa']);
    // 0 A.D.: by bone count.
    expect(factsRow(await page('File:Walking_idle.psa'), 'Plays with')).toEqual(['Skeleton.pmd']);
  });

  it('an animation with no mesh on the wiki shows its facts alone, in words, with no player and no PNG preview line', async () => {
    const html = await page('File:Crouch.psa');
    expect(html).toContain('grunt_hh_grabplayer_crouch');
    expect(html).toMatch(/No model on this wiki has the 89 bones this animation moves/);
    expect(html).not.toContain('"wgRigscopeOpen":true');
    expect(html).not.toMatch(/not played on any model|no a model/);
    expect(html).not.toMatch(/Size of this PNG preview|No higher resolution available|Other resolution/);
    expect(factsRow(html, 'Plays with')).toBeNull();
  });

  it('no model page offers a PNG preview size or other resolutions', async () => {
    for (const title of ['File:XMesh.psk', 'File:Hamburger01_d.3d', 'File:XAnims.psa', 'File:Skeleton.pmd']) {
      const html = await page(title);
      expect(html, title).not.toMatch(/Other resolutions?:|2,560|Size of this PNG preview|No higher resolution available/);
      // The player, at the stored size.
      expect(placeholders(html).length, title).toBeGreaterThan(0);
    }
    // A reader who asks for pictures of 320 x 240 (smaller than the player) on a wiki without
    // posters: there is no PNG to offer either.
    const token = await wiki.api.token();
    const set = await wiki.api.request({ action: 'options' }, { change: 'imagesize=0', token });
    expect(set.options).toBe('success');
    const cookie = [...wiki.api.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const small = await (await fetch(`${wiki.url}/index.php?title=File:XMesh.psk`, { headers: { cookie } })).text();
    expect(small).toContain('rigscope-facts');
    expect(small).not.toMatch(/Size of this PNG preview|Other resolutions?:|No higher resolution available/);
  });

  it('keeps the index right when files change: a level of detail, a second mesh with the same bones, its deletion, a script uploaded again', async () => {
    // A level of detail of the mesh has its bones too: still one mesh, played on its finest level.
    await upload(`${SAMPLES}psk/skSpiderLargeMesh.psk`, 'XMesh_LOD1.psk');
    expect(factsRow(await page('File:XAnims.psa'), 'Plays with')).toEqual(['XMesh.psk']);
    // Two meshes with the animation's bones: which one it plays on is not known.
    await upload(`${SAMPLES}psk/skSpiderLargeMesh.psk`, 'OtherSpider.psk');
    let anims = await page('File:XAnims.psa');
    expect(factsRow(anims, 'Plays with')).toBeNull();
    expect(anims).toMatch(/Several models on this wiki have the 71 bones this animation moves/);
    const token = await wiki.api.token();
    const del = await wiki.api.request({ action: 'delete' }, { title: 'File:OtherSpider.psk', reason: 'test', token });
    expect(del.delete?.title).toBe('File:OtherSpider.psk');
    anims = await page('File:XAnims.psa');
    expect(factsRow(anims, 'Plays with')).toEqual(['XMesh.psk']);
    // The same animation again under the mesh's name: the mesh plays it once (found by name).
    await upload(`${SAMPLES}psk/skSpiderLargeAnims.psa`, 'XMesh.psa');
    expect(factsRow(await page('File:XMesh.psk'), 'Plays with')).toEqual(['XMesh.psa']);

    // The hamburger's script uploaded again, importing another mesh: the hamburger loses it.
    const script = readFileSync(`${trashbag}Classes/Hamburger.uc`, 'utf8').replace(/Hamburger01/g, 'Cheeseburger');
    writeFileSync(`${dir}/Hamburger.uc`, script);
    await upload(`${dir}/Hamburger.uc`, 'Hamburger.uc');
    const burger = await page('File:Hamburger01_d.3d');
    expect(factsRow(burger, 'Plays with')).toEqual(['Hamburger01_a.3d']);
  });
});
