// Unreal export folders (written by the project's own fixture writer, wasm/tools/write_material_fixtures):
// each sidecar kind puts the expected textures on the expected slots in the scene and in the GLB.
import { describe, expect, it } from 'vitest';
import { readFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { FIXTURES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const tree = (name) => `${FIXTURES}unreal_export/${name}/Game/Characters/Hero/`;

function sceneOf(name) {
  const r = cli('scene', `${FIXTURES}unreal_export/${name}`, '--json');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

const EXPECTED = {
  ueviewer_mat: { rules: ['UE Viewer .mat', 'UE Viewer .mat'], textures: 'Textures/' },
  ueviewer_props: { rules: ['props.txt parent chain', 'props.txt'], textures: 'Textures/Texture2D/' },
  fmodel_json: { rules: ['FModel .json parent chain', 'FModel .json'], textures: 'Textures/' },
};

describe('Unreal export folders in the scene', () => {
  it.each(Object.entries(EXPECTED))(
    '%s: each material gets its maps by role, with the rule that chose them',
    (name, { rules, textures }) => {
      const json = sceneOf(name);
      const [body, head] = json.characters[0].materials;
      const t = (f) => `${tree(name)}${textures}${f}`;
      expect(body).toMatchObject({ name: 'MI_Hero_Body', texture: t('T_Hero_Body_BC.png'), rule: rules[0] });
      expect(body.maps).toMatchObject({
        normal: t('T_Hero_Body_N.png'),
        arm: t('T_Hero_Body_ARM.tga'),
        specular: null,
        emissive: null,
        opacity: null,
      });
      expect(head).toMatchObject({ name: 'MI_Hero_Head', texture: t('T_Head_D.tga'), rule: rules[1] });
      expect(head.maps).toMatchObject({ normal: t('T_Head_N.tga'), arm: null });
      // The parent's default base colour is overridden by the child, so it is left unused; nothing refused.
      expect(json.refused).toEqual([]);
      expect(json.unused.every((f) => /T_Default_BC\.png$|SK_Hero\.json$/.test(f))).toBe(true);
    },
  );

  it('falls back to the suffix convention when no sidecar is there', () => {
    const [body] = sceneOf('suffix_only').characters[0].materials;
    expect(body).toMatchObject({ texture: `${tree('suffix_only')}Textures/T_Hero_Body_BC.png`, rule: 'suffix convention' });
    expect(body.maps.normal).toBe(`${tree('suffix_only')}Textures/T_Hero_Body_N.png`);
  });
});

describe('Unreal export folders in the GLB', () => {
  it('carries base colour, normal and packed occlusion-roughness-metalness textures, and validates', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rigscope-ue-')), 'hero.glb');
    const r = cli('convert', `${FIXTURES}unreal_export/ueviewer_props`, '-o', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const bytes = readFileSync(out);
    const report = await validateBytes(new Uint8Array(bytes));
    expect(report.issues.numErrors).toBe(0);
    const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
    const byName = Object.fromEntries(json.materials.map((m) => [m.name, m]));
    const image = (index) => json.images[json.textures[index].source];
    const body = byName.MI_Hero_Body;
    expect(image(body.pbrMetallicRoughness.baseColorTexture.index).name).toBe('T_Hero_Body_BC.png');
    expect(image(body.normalTexture.index).name).toBe('T_Hero_Body_N.png');
    expect(image(body.occlusionTexture.index).name).toBe('T_Hero_Body_ARM.tga');
    expect(body.pbrMetallicRoughness.metallicRoughnessTexture.index).toBe(body.occlusionTexture.index);
    expect(image(byName.MI_Hero_Head.normalTexture.index).name).toBe('T_Head_N.tga');
    expect(json.images.every((i) => i.mimeType === 'image/png')).toBe(true);
  });
});
