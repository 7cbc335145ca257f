import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import * as THREE from 'three';
import { App } from '../../web/src/app/app.js';
import { Character } from '../../web/src/three/character.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { MAX_ACTOR_PROPS, plainName } from '../../web/src/families/zeroad.js';
import { describeRecord } from '../../web/src/core/report.js';
import { fileKey, parseXml, readActor } from '../../web/src/families/zeroad-actor.js';
import { decode, decoder, fixture, HAVE_SAMPLES, sample, SAMPLES, fakeViewer } from './helpers.js';
import { readPmd, readPssa, skinnedVertex, toThree } from './reference/zeroad.js';

const pmd = (bytes, name) => decode('decodePmd', bytes, name);
const psa = (bytes, name) => decode('decodePssa', bytes, name);

/** Poses a character at `t` seconds into its clip `name`, as the viewer's mixer does. */
function pose(character, name, t) {
  const clip = character.clips.find((c) => c.name === name);
  character.mixer.stopAllAction();
  character.mixer.clipAction(clip.build()).play();
  character.mixer.setTime(t);
  character.root.updateMatrixWorld(true);
  return character.meshes[0];
}

const lines = (report, kind) => report.records.filter((r) => !kind || r.kind === kind).map((r) => describeRecord(r));
const appWith = async () => new App(fakeViewer(), await decoder());
const entries = (files) =>
  Object.entries(files).map(([name, data]) => entryFromBytes(name, typeof data === 'string' ? new TextEncoder().encode(data) : data));

describe('0 A.D. fixtures through the WASM module', () => {
  it('decodes arm.pmd and plays arm_wave.psa on it: the tip centre reaches (2, 1, 0) on frame 18', async () => {
    const m = await pmd(fixture('arm.pmd'), 'arm.pmd');
    expect(m.counts).toMatchObject({ version: 4, vertices: 112, faces: 100, uvSets: 1, bones: 3, props: 2 });
    expect(m.attachments.map((a) => [a.name, a.bone])).toEqual([
      ['prop_hand', 2],
      ['prop_head', 0],
    ]);
    expect(Array.from(m.attachments[0].translation)).toEqual([1, 0, -0.25]);
    const c = new Character(m);
    const r = c.addAnimation(await psa(fixture('arm_wave.psa'), 'arm_wave.psa'));
    expect(r).toMatchObject({ matched: 3, byIndex: true });
    const mesh = pose(c, 'arm_wave', 18 * 0.0333);
    const tip = [...Array(112).keys()].filter((i) => mesh.geometry.attributes.position.getX(i) === 3);
    const centre = new THREE.Vector3();
    for (const i of tip) centre.add(mesh.getVertexPosition(i, new THREE.Vector3()));
    centre.divideScalar(tip.length);
    expect(centre.distanceTo(new THREE.Vector3(2, 1, 0))).toBeLessThan(1e-4);
    // The hand prop follows bone 2: (1, 0, −0.25) from it, turned 90° about +Z.
    const hand = new THREE.Vector3().setFromMatrixPosition(c.attachments[0].node.matrixWorld);
    expect(hand.distanceTo(new THREE.Vector3(2, 1, -0.25))).toBeLessThan(1e-4);
  });

  it('refuses a PSSA with another bone count, naming both counts', async () => {
    const c = new Character(await pmd(fixture('arm.pmd'), 'arm.pmd'));
    const r = c.addAnimation(await psa(fixture('arm_bad.psa'), 'arm_bad.psa'));
    expect(r.error).toBe('animation arm_bad.psa: 4 bones, arm.pmd has 3');
    expect(c.clips).toEqual([]);
  });

  it('opens archive names (X.dae.cached.pmd) under their plain names, clips named by file', async () => {
    expect(plainName('art/meshes/arm.dae.cached.pmd')).toBe('arm.pmd');
    expect(plainName('arm_wave.dae.0123456789abcdef.psa')).toBe('arm_wave.psa');
    expect(plainName('skins/arm.png.cached.dds')).toBe('arm.png');
    const app = await appWith();
    const report = await app.loadFiles(
      entries({ 'arm.dae.cached.pmd': fixture('arm.pmd'), 'arm_wave.dae.cached.psa': fixture('arm_wave.psa') }),
    );
    expect(app.characters.map((c) => c.name)).toEqual(['arm.dae.cached.pmd']);
    expect(app.allClips.map((c) => c.clip.name)).toEqual(['arm_wave']);
    expect(lines(report)).toContain('arm_wave.dae.cached.psa → arm.dae.cached.pmd (3/3 bones, by index)');
  });
});

describe('0 A.D. actor XML', () => {
  it('parses elements, attributes and entities without a DOM', () => {
    const x = parseXml('<?xml version="1.0"?><!-- c --><a k="1 &amp; 2"><b/>t&lt;x<c q=\'y\'>z</c></a>');
    expect(x.tag).toBe('a');
    expect(x.attrs.k).toBe('1 & 2');
    expect(x.children.map((c) => c.tag)).toEqual(['b', 'c']);
    expect(x.text).toBe('t<xz');
    expect(() => parseXml('<a><b></a>')).toThrow(/XML/);
  });

  it('reads mesh, textures, props and named animations, first variant per group, later groups overriding', () => {
    const a = readActor(`<?xml version="1.0" encoding="utf-8"?>
      <actor version="1">
        <castshadow/>
        <group>
          <variant frequency="0" name="never"><mesh>skeletal/never.dae</mesh></variant>
          <variant frequency="1" name="Base">
            <animations>
              <animation name="Idle" file="biped/idle.psa" speed="100"/>
              <animation name="Walk" file="biped/walk.dae" speed="30"/>
            </animations>
            <mesh>skeletal/arm.dae</mesh>
            <props><prop actor="props/helmet.xml" attachpoint="head"/><prop actor="props/old.xml" attachpoint="back"/></props>
            <textures><texture file="skins/arm.png" name="baseTex"/><texture file="skins/arm_norm.png" name="normTex"/></textures>
          </variant>
        </group>
        <group>
          <variant name="Sword">
            <props><prop actor="props/sword.xml" attachpoint="weapon_R"/><prop actor="" attachpoint="back"/></props>
            <textures><texture file="skins/arm_red.png" name="baseTex"/></textures>
          </variant>
        </group>
        <material>player_trans.xml</material>
      </actor>`);
    expect(a.mesh).toBe('skeletal/arm.dae');
    expect(a.material).toBe('player_trans.xml');
    expect(a.textures).toEqual([
      { name: 'normTex', file: 'skins/arm_norm.png' },
      { name: 'baseTex', file: 'skins/arm_red.png' },
    ]);
    expect(a.props).toEqual([
      { attachpoint: 'head', actor: 'props/helmet.xml' },
      { attachpoint: 'weapon_R', actor: 'props/sword.xml' },
    ]);
    expect(a.animations.map((x) => [x.name, x.file, x.speed])).toEqual([
      ['idle', 'biped/idle.psa', 100],
      ['walk', 'biped/walk.dae', 30],
    ]);
    expect(a.missing).toEqual([]);
  });

  it('understands <qualitylevels> (inline and by file) and shared variant files', () => {
    const files = {
      'high.xml': '<actor version="1"><group><variant file="biped/base.xml"><mesh>high.dae</mesh></variant></group></actor>',
      'base.xml': '<variant><animations><animation name="Death" file="death.psa" speed="50"/></animations><mesh>base.dae</mesh></variant>',
    };
    const load = (p) => files[p.split('/').pop()] ?? null;
    const inline = readActor(
      `<qualitylevels>
      <actor quality="low"><group><variant><mesh>low.dae</mesh></variant></group></actor>
      <actor quality="150"><group><variant><mesh>medium.dae</mesh></variant></group></actor>
    </qualitylevels>`,
      load,
    );
    expect(inline.mesh).toBe('medium.dae');
    const byFile = readActor(
      '<qualitylevels><actor quality="low"><group><variant><mesh>low.dae</mesh></variant></group></actor><actor file="units/high.xml"/></qualitylevels>',
      load,
    );
    // The variant file is merged first, then the variant's own elements.
    expect(byFile.mesh).toBe('high.dae');
    expect(byFile.animations).toEqual([{ name: 'death', file: 'death.psa', speed: 50, id: '' }]);
    const missing = readActor('<actor version="1"><group><variant file="biped/nowhere.xml"/></group></actor>', load);
    expect(missing.missing).toEqual(['variant biped/nowhere.xml']);
    expect(readActor('<skeletons><standard_skeleton/></skeletons>')).toBeNull();
  });

  it('matches actor paths to dropped files by plain name', () => {
    expect(fileKey('skeletal/Arm.dae')).toBe('arm');
    expect(fileKey('arm.dae.cached.pmd')).toBe('arm');
    expect(fileKey('biped/walk.psa')).toBe('walk');
    expect(fileKey('props/helmet.xml')).toBe('helmet');
  });

  it('assembles an actor with a nested prop actor, named animations at their speed, and lists what is missing', async () => {
    const app = await appWith();
    const report = await app.loadFiles(
      entries({
        'units/arm_unit.xml': `<qualitylevels><actor quality="low"><group><variant><mesh>nothing.dae</mesh></variant></group></actor>
        <actor><group><variant>
          <mesh>skeletal/arm.dae</mesh>
          <animations><animation name="Wave" file="biped/arm_wave.dae" speed="50"/><animation name="Run" file="biped/arm_run.dae"/></animations>
          <props><prop actor="props/cap.xml" attachpoint="hand"/><prop actor="props/lost.xml" attachpoint="head"/></props>
          <textures><texture file="skins/arm.png" name="baseTex"/></textures>
        </variant></group><material>player_trans.xml</material></actor></qualitylevels>`,
        'props/cap.xml':
          '<actor version="1"><group><variant><mesh>props/old_v1.dae</mesh><props><prop actor="props/pin.xml" attachpoint="root"/></props></variant></group></actor>',
        'props/pin.xml': '<actor version="1"><group><variant><mesh>props/arm.pmd</mesh></variant></group></actor>',
        'arm.dae.cached.pmd': fixture('arm.pmd'),
        'arm_wave.dae.cached.psa': fixture('arm_wave.psa'),
        'old_v1.pmd': fixture('old_v1.pmd'),
      }),
    );
    const [unit] = app.characters;
    const [cap] = unit.props;
    const [pin] = cap.props;
    expect(app.characters.map((c) => c.name)).toEqual(['arm_unit.xml']);
    expect([cap.name, pin.name]).toEqual(['cap.xml', 'pin.xml']);
    expect(unit.clips.map((c) => [c.name, c.speed])).toEqual([['wave', 0.5]]);
    expect(unit.materials[0].userData.playerColor).toBeDefined();
    // cap hangs on prop_hand (bone 2), pin on cap's implied root prop.
    expect(cap.root.parent).toBe(unit.attachments.find((a) => a.name === 'prop_hand').node);
    expect(pin.root.parent).toBe(cap.attachments.find((a) => a.name === 'root').node);
    expect(lines(report, 'missing')).toEqual(
      expect.arrayContaining([
        'arm_unit.xml: missing texture skins/arm.png',
        'arm_unit.xml: missing animation run (biped/arm_run.dae)',
        'arm_unit.xml: missing prop actor props/lost.xml',
      ]),
    );
    // Played at the actor's speed, the cap follows the waving hand.
    app.select(unit, unit.clips[0]);
    expect(app.current.action.timeScale).toBe(0.5);
    app.setTime(18 * 0.0333);
    unit.root.updateMatrixWorld(true);
    expect(new THREE.Vector3().setFromMatrixPosition(cap.root.matrixWorld).distanceTo(new THREE.Vector3(2, 1, -0.25))).toBeLessThan(1e-4);
  });
});

const SAMPLE_MODELS = {
  'rich-man.pmd': { version: 1, vertices: 2628, faces: 3888, uvSets: 1, bones: 25, props: 0, influences: 2628, height: 4.9 },
  'skeleton.pmd': { version: 2, vertices: 378, faces: 630, uvSets: 1, bones: 29, props: 0, influences: 378, height: 4.1 },
  'synthetic/cube_nobones.pmd': { version: 4, vertices: 8, faces: 12, uvSets: 1, bones: 0, props: 0 },
  'synthetic/cube_4bones.pmd': { version: 4, vertices: 8, faces: 12, uvSets: 1, bones: 4, props: 0, influences: 8 },
  'synthetic/cube_5bones.pmd': { version: 4, vertices: 8, faces: 12, uvSets: 1, bones: 5, props: 0, influences: 12 },
  'synthetic/cube_2bones_2props.pmd': { version: 4, vertices: 8, faces: 12, uvSets: 1, bones: 2, props: 2 },
  'synthetic/test_minimal.pmd': { version: 4, vertices: 3, faces: 1, uvSets: 1, bones: 2, props: 0 },
};
const SAMPLE_ANIMS = {
  'rich-man_idle.psa': { bones: 29, frames: 141, frameLengthMs: 33, name: 'God Knows' },
  'skeleton_idle.psa': { bones: 29, frames: 141, frameLengthMs: 33, name: 'God Knows' },
  'synthetic/cube_4bones_anim.psa': { bones: 4, frames: 10, frameLengthMs: 33.3, name: 'test_anim' },
  'synthetic/cube_5bones_anim.psa': { bones: 5, frames: 10, frameLengthMs: 33.3, name: 'test_anim' },
  'synthetic/test_minimal.psa': { bones: 1, frames: 1, frameLengthMs: 33.3, name: 'test_anim' },
};

describe.skipIf(!HAVE_SAMPLES)('0 A.D. samples', () => {
  it('every file in samples/zeroad is covered here', () => {
    const listed = [...Object.keys(SAMPLE_MODELS), ...Object.keys(SAMPLE_ANIMS), 'synthetic/cube_5bones.xml'];
    const present = [
      ...readdirSync(`${SAMPLES}zeroad`).filter((f) => f.includes('.')),
      ...readdirSync(`${SAMPLES}zeroad/synthetic`).map((f) => `synthetic/${f}`),
    ];
    expect(present.sort()).toEqual(listed.sort());
  });

  it.each(Object.entries(SAMPLE_MODELS))('decodes %s with its documented facts', async (file, facts) => {
    const m = await pmd(sample(`zeroad/${file}`), file.split('/').pop());
    const { height, ...counts } = facts;
    expect(m.counts).toMatchObject(counts);
    expect(readPmd(sample(`zeroad/${file}`)).end).toBe(sample(`zeroad/${file}`).length);
    const c = new Character(m);
    expect(c.bones.length).toBeGreaterThanOrEqual(facts.bones);
    expect(c.meshes[0].isSkinnedMesh === true).toBe(facts.bones > 0);
    if (height) {
      // Pre-skinned v1/v2 figures stand on y = 0.
      const box = new THREE.Box3().setFromBufferAttribute(c.meshes[0].geometry.attributes.position);
      expect(box.min.y).toBeCloseTo(0, 1);
      expect(box.max.y).toBeCloseTo(height, 1);
    }
    for (const p of m.meshes[0].positions) expect(Number.isFinite(p)).toBe(true);
  });

  it.each(Object.entries(SAMPLE_ANIMS))('decodes %s with its documented facts', async (file, facts) => {
    const a = await psa(sample(`zeroad/${file}`), file.split('/').pop());
    expect(a.counts.bones).toBe(facts.bones);
    expect(a.counts.frames).toBe(facts.frames);
    expect(a.counts.frameLengthMs).toBeCloseTo(facts.frameLengthMs, 1);
    expect(a.info.name).toBe(facts.name);
    expect(a.clips[0].duration).toBeCloseTo((facts.frames * facts.frameLengthMs) / 1000, 3);
    if (facts.frameLengthMs !== 33) expect(a.warnings.join()).toMatch(/read as seconds/);
  });

  it('plays the synthetic cubes with their animations', async () => {
    for (const n of [4, 5]) {
      const c = new Character(await pmd(sample(`zeroad/synthetic/cube_${n}bones.pmd`), `cube_${n}bones.pmd`));
      const r = c.addAnimation(await psa(sample(`zeroad/synthetic/cube_${n}bones_anim.psa`), `cube_${n}bones_anim.psa`));
      expect(r.error).toBeUndefined();
      const mesh = pose(c, 'test_anim', 0.15);
      for (let v = 0; v < 8; v++) expect(Number.isFinite(mesh.getVertexPosition(v, new THREE.Vector3()).length())).toBe(true);
    }
  });

  it.each([
    ['rich-man.pmd', 'rich-man_idle.psa', '29 bones, rich-man.pmd has 25'],
    ['synthetic/test_minimal.pmd', 'synthetic/test_minimal.psa', '1 bones, test_minimal.pmd has 2'],
  ])('refuses %s + %s, and the model stays loaded', async (model, anim, message) => {
    const app = await appWith();
    const report = await app.loadFiles([model, anim].map((f) => entryFromBytes(f.split('/').pop(), sample(`zeroad/${f}`))));
    const name = (p) => p.split('/').pop();
    expect(report.records.filter((r) => r.kind === 'unbound')).toEqual([
      { kind: 'unbound', files: [name(anim)], best: name(model), reason: message },
    ]);
    expect(app.characters).toHaveLength(1);
    expect(app.characters[0].clips).toEqual([]);
  });

  it('skins skeleton.pmd with skeleton_idle.psa exactly as an independent reading of the bytes does', async () => {
    const refModel = readPmd(sample('zeroad/skeleton.pmd'));
    const refAnim = readPssa(sample('zeroad/skeleton_idle.psa'));
    const c = new Character(await pmd(sample('zeroad/skeleton.pmd'), 'skeleton.pmd'));
    expect(c.addAnimation(await psa(sample('zeroad/skeleton_idle.psa'), 'skeleton_idle.psa')).error).toBeUndefined();
    for (const frame of [0, 70]) {
      const mesh = pose(c, 'God Knows', (frame * refAnim.frameLength) / 1000);
      let worst = 0;
      for (let v = 0; v < refModel.vertices.length; v++) {
        worst = Math.max(worst, mesh.getVertexPosition(v, new THREE.Vector3()).distanceTo(skinnedVertex(refModel, refAnim, frame, v)));
      }
      expect(worst).toBeLessThan(1e-3);
    }
    // Upright and not mirrored: frame 0 stands about 4 units tall on y = 0; the reference's
    // left-handed game space and three's right-handed space differ by the z mirror alone.
    const mesh = pose(c, 'God Knows', 0);
    const box = new THREE.Box3();
    for (let v = 0; v < refModel.vertices.length; v++) box.expandByPoint(mesh.getVertexPosition(v, new THREE.Vector3()));
    expect(box.min.y).toBeGreaterThan(-0.2);
    expect(box.max.y).toBeGreaterThan(3.8);
    const bone0 = toThree(new THREE.Vector3(...refAnim.keys[0][0].t));
    expect(new THREE.Vector3().setFromMatrixPosition(c.bones[0].matrixWorld).distanceTo(bone0)).toBeLessThan(1e-5);
  });

  it('notes a skeleton XML that is not an actor, without failing', async () => {
    const app = await appWith();
    const report = await app.loadFiles([entryFromBytes('cube_5bones.xml', sample('zeroad/synthetic/cube_5bones.xml'))]);
    expect(lines(report)).toEqual(['cube_5bones.xml: not used — not an actor (only actor XML is read)']);
  });
});

describe('0 A.D. actors that prop themselves', () => {
  const actor = (props) =>
    `<actor version="1"><group><variant><mesh>arm.dae</mesh><props>${props.map(([a, p]) => `<prop actor="${a}" attachpoint="${p}"/>`).join('')}</props></variant></group></actor>`;
  it('cuts a cycle once and caps the props of one actor tree', async () => {
    const app = await appWith();
    const report = await app.loadFiles(
      entries({
        'self.xml': actor([
          ['self.xml', 'hand'],
          ['self.xml', 'head'],
          ['self.xml', 'hand'],
        ]),
        'arm.pmd': fixture('arm.pmd'),
      }),
    );
    expect(app.characters).toHaveLength(1);
    expect(app.characters[0].props).toEqual([]);
    expect(lines(report, 'refused')).toEqual(['self.xml: props itself through self.xml: the cycle is cut']);
    // Eight actors, each propping the next at three points: 3^7 = 2187 props without the cap.
    const chain = {};
    for (let i = 0; i < 8; i++)
      chain[`a${i}.xml`] = actor(
        i < 7
          ? [
              [`a${i + 1}.xml`, 'hand'],
              [`a${i + 1}.xml`, 'head'],
              [`a${i + 1}.xml`, 'prop_hand'],
            ]
          : [],
      );
    const app2 = await appWith();
    const report2 = await app2.loadFiles(entries({ ...chain, 'arm.pmd': fixture('arm.pmd') }));
    const count = (c) => 1 + c.props.reduce((n, p) => n + count(p), 0);
    expect(count(app2.characters[0])).toBe(MAX_ACTOR_PROPS + 1);
    expect(lines(report2, 'refused')).toEqual([expect.stringMatching(/^a0\.xml: more than 256 prop actors: the rest are not shown$/)]);
  });
});
