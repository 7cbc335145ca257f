// Unreal material sidecars (UE Viewer .mat and .props.txt, FModel .json) read from generated texts in
// the exporters' layouts, materials resolved to their textures by role, and the export trees that
// write_material_fixtures makes.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  addMaterialSidecar,
  isMaterialSidecar,
  readMaterialSidecar,
  referenceName,
  resolveUnrealMaterial,
  roleOfParameter,
  roleOfTextureName,
} from '../../web/src/families/unreal-materials.js';
import { FIXTURES, bytes, decode } from './helpers.js';

const TEX = '/Game/Characters/Hero/Textures';
const MAT = '/Game/Characters/Hero/Materials';

/** A texture library as the scene has one: bare names, any case, each with its file path. */
function library(...names) {
  const byName = new Map(names.map((n) => [n.toLowerCase(), { name: n, path: `Game/Characters/Hero/Textures/${n}.png` }]));
  const calls = [];
  const find = (name) => {
    calls.push(name);
    return byName.get(name.toLowerCase()) ?? null;
  };
  return Object.assign(find, { calls });
}

/** UE Viewer's property dump (CTypeInfo::SaveProps): UE4 layout, ParameterInfo names the parameter. */
function ue4Props({ parent = null, params = [], blend = null }) {
  const lines = ['ScalarParameterValues[0] = {}', `TextureParameterValues[${params.length}] =`, '{'];
  params.forEach(([name, texture], i) =>
    lines.push(
      `    TextureParameterValues[${i}] =`,
      '    {',
      '        ParameterName = None',
      `        ParameterValue = Texture2D'${TEX}/${texture}.${texture}'`,
      `        ParameterInfo = { Name=${name} }`,
      '    }',
    ),
  );
  lines.push('}', 'VectorParameterValues[0] = {}');
  lines.push(`Parent = ${parent ? `MaterialInstanceConstant'${MAT}/${parent}.${parent}'` : 'None'}`);
  lines.push(
    'BasePropertyOverrides =',
    '{',
    `    bOverride_BlendMode = ${blend ? 'true' : 'false'}`,
    `    BlendMode = ${blend ?? 'BLEND_Opaque (0)'}`,
    '    bOverride_TwoSided = false',
    '    TwoSided = false',
    '}',
  );
  return lines.join('\r\n');
}

/** FModel's JSON of a package: an array of exports, the material instance among them. */
function fmodelJson({ name, parent = null, params = [], blend = null, extra = [] }) {
  const props = {
    TextureParameterValues: params.map(([p, texture]) => ({
      ParameterInfo: { Name: p, Association: 'GlobalParameter', Index: -1 },
      ParameterValue: { ObjectName: `Texture2D'${texture}'`, ObjectPath: `${TEX}/${texture}.0` },
      ExpressionGUID: '00000000000000000000000000000000',
    })),
  };
  if (parent) props.Parent = { ObjectName: `MaterialInstanceConstant'${parent}'`, ObjectPath: `${MAT}/${parent}.0` };
  if (blend) props.BasePropertyOverrides = { bOverride_BlendMode: true, BlendMode: `EBlendMode::${blend}` };
  return JSON.stringify(
    [...extra, { Type: 'MaterialInstanceConstant', Name: name, Class: "UScriptClass'MaterialInstanceConstant'", Properties: props }],
    null,
    2,
  );
}

const sidecarsOf = (...files) => files.reduce((map, [path, text]) => addMaterialSidecar(map, readMaterialSidecar(path, text)), new Map());
const names = (resolved) =>
  resolved && {
    texture: resolved.texture.name,
    rule: resolved.rule,
    blend: resolved.blend,
    maps: Object.fromEntries(Object.entries(resolved.maps).map(([k, v]) => [k, v?.name ?? null])),
  };
const noMaps = { normal: null, arm: null, mra: null, specular: null, emissive: null, opacity: null, mask: null };

describe('sidecar names', () => {
  it('tells the three sidecar kinds by file name', () => {
    expect(isMaterialSidecar('Game/Materials/MI_Hero_Body.mat')).toBe('mat');
    expect(isMaterialSidecar('a\\MI_Hero_Body.PROPS.TXT')).toBe('props');
    expect(isMaterialSidecar('MI_Hero_Body.json')).toBe('json');
    expect(isMaterialSidecar('readme.txt')).toBe(null);
    expect(isMaterialSidecar('.mat')).toBe(null);
    expect(isMaterialSidecar(undefined)).toBe(null);
  });

  it('reduces references to the bare object name', () => {
    expect(referenceName(`Texture2D'${TEX}/T_Hero_Body_BC.T_Hero_Body_BC'`)).toBe('T_Hero_Body_BC');
    expect(referenceName("/Script/Engine.Texture2D'/Game/T/T_A.T_A'")).toBe('T_A');
    expect(referenceName(`${TEX}/T_Hero_Body_N.0`)).toBe('T_Hero_Body_N');
    expect(referenceName("Texture2D'HeroTextures.Body.T_Body_D'")).toBe('T_Body_D');
    expect(referenceName('T_Head_D.tga')).toBe('T_Head_D');
    expect(referenceName('None')).toBe(null);
    expect(referenceName('  ')).toBe(null);
  });
});

describe('roles', () => {
  it("reads the role from the game's parameter names", () => {
    const table = {
      Diffuse: 'base',
      BaseColor: 'base',
      'Base Color': 'base',
      Albedo: 'base',
      Tex_Color: 'base',
      Normal: 'normal',
      NRM: 'normal',
      NormalMap: 'normal',
      ARM: 'arm',
      ORM: 'arm',
      ORM_Texture: 'arm',
      MRA: 'mra',
      Specular: 'specular',
      SpecPower: null,
      Emissive: 'emissive',
      EmissiveColor: 'emissive',
      Opacity: 'opacity',
      OpacityMask: 'mask',
      Mask: 'mask',
      'Other[3]': null,
      Arm_BaseColor: 'base',
      DetailNormal: null,
      Cube: null,
      __proto__: null,
      constructor: null,
    };
    for (const [name, role] of Object.entries(table)) expect([name, roleOfParameter(name)]).toEqual([name, role]);
  });

  it('reads the role from the texture name suffix, case-insensitively', () => {
    const table = {
      T_Hero_D: 'base',
      T_Hero_bc: 'base',
      T_Hero_C: 'base',
      T_Hero_Albedo: 'base',
      T_Hero_Diffuse: 'base',
      T_Hero_Base: 'base',
      T_Hero_N: 'normal',
      T_Hero_NRM: 'normal',
      T_Hero_Normal: 'normal',
      T_Hero_ARM: 'arm',
      T_Hero_orm: 'arm',
      T_Hero_MRA: 'mra',
      T_Hero_S: 'specular',
      T_Hero_Spec: 'specular',
      T_Hero_M: 'mask',
      T_Hero_Mask: 'mask',
      T_Hero_E: 'emissive',
      T_Hero_Emissive: 'emissive',
      T_Hero_O: 'opacity',
      T_Hero_Opacity: 'opacity',
      T_Hero: null,
      Hero: null,
      T_Hero_X: null,
    };
    for (const [name, role] of Object.entries(table)) expect([name, roleOfTextureName(name)]).toEqual([name, role]);
  });
});

describe('UE Viewer .mat', () => {
  const mat =
    'Diffuse=T_Hero_Body_BC\r\nNormal=T_Hero_Body_N\r\nSpecPower=T_Hero_Body_S\r\nMask=T_Hero_Body_M\r\nOther[0]=T_Hero_Body_ARM\r\n';

  it('reads every key', () => {
    expect(readMaterialSidecar('Game/Characters/Hero/Materials/MI_Hero_Body.mat', mat)).toEqual({
      kind: 'mat',
      material: 'MI_Hero_Body',
      parent: null,
      blend: null,
      params: [
        { name: 'Diffuse', texture: 'T_Hero_Body_BC' },
        { name: 'Normal', texture: 'T_Hero_Body_N' },
        { name: 'SpecPower', texture: 'T_Hero_Body_S' },
        { name: 'Mask', texture: 'T_Hero_Body_M' },
        { name: 'Other[0]', texture: 'T_Hero_Body_ARM' },
      ],
    });
  });

  it('resolves its slots; Other[N] by suffix; SpecPower and the channel-packed Mask are not surface maps', () => {
    const find = library('T_Hero_Body_BC', 'T_Hero_Body_N', 'T_Hero_Body_S', 'T_Hero_Body_M', 'T_Hero_Body_ARM');
    const sidecars = sidecarsOf(['MI_Hero_Body.mat', mat]);
    expect(names(resolveUnrealMaterial('mi_hero_body', sidecars, find))).toEqual({
      texture: 'T_Hero_Body_BC',
      rule: 'UE Viewer .mat',
      blend: null,
      maps: { ...noMaps, normal: 'T_Hero_Body_N', arm: 'T_Hero_Body_ARM' },
    });
  });

  it('is not a material when no line is a key and a name', () => {
    expect(readMaterialSidecar('X.mat', 'MATLAB 5.0 MAT-file\u0000\u0001\u0002')).toBe(null);
    expect(readMaterialSidecar('X.mat', 'Diffuse=None\n')).toBe(null);
  });
});

describe('UE Viewer .props.txt', () => {
  const child = ue4Props({ parent: 'MI_Hero_Base', params: [['BaseColor', 'T_Hero_Body_BC']] });
  const parent = ue4Props({
    parent: 'M_Character',
    params: [
      ['BaseColor', 'T_Default_BC'],
      ['NRM', 'T_Hero_Body_N'],
      ['ORM', 'T_Hero_Body_ARM'],
    ],
  });

  it('reads the parameters and the parent', () => {
    expect(readMaterialSidecar('MI_Hero_Base.props.txt', parent)).toEqual({
      kind: 'props',
      material: 'MI_Hero_Base',
      parent: 'M_Character',
      blend: null,
      params: [
        { name: 'BaseColor', texture: 'T_Default_BC' },
        { name: 'NRM', texture: 'T_Hero_Body_N' },
        { name: 'ORM', texture: 'T_Hero_Body_ARM' },
      ],
    });
  });

  it('follows the parent chain, the child overriding its parent; a missing parent ends the chain', () => {
    const find = library('T_Hero_Body_BC', 'T_Default_BC', 'T_Hero_Body_N', 'T_Hero_Body_ARM');
    const sidecars = sidecarsOf(['Materials/MI_Hero_Body.props.txt', child], ['Materials/MI_Hero_Base.props.txt', parent]);
    expect(names(resolveUnrealMaterial('MI_Hero_Body', sidecars, find))).toEqual({
      texture: 'T_Hero_Body_BC',
      rule: 'props.txt parent chain',
      blend: null,
      maps: { ...noMaps, normal: 'T_Hero_Body_N', arm: 'T_Hero_Body_ARM' },
    });
    // The parent alone: its own default colour, and "props.txt" since M_Character was not exported.
    expect(names(resolveUnrealMaterial('MI_Hero_Base', sidecars, find))).toMatchObject({ texture: 'T_Default_BC', rule: 'props.txt' });
  });

  it("never shows the parent's value of a parameter the child overrides, even when the child's texture is missing", () => {
    const sidecars = sidecarsOf(['MI_Hero_Body.props.txt', child], ['MI_Hero_Base.props.txt', parent]);
    expect(resolveUnrealMaterial('MI_Hero_Body', sidecars, library('T_Default_BC', 'T_Hero_Body_N'))).toBe(null);
    // The name convention still applies to what is there.
    expect(names(resolveUnrealMaterial('MI_Hero_Body', sidecars, library('T_Default_BC', 'T_Hero_Body_D', 'T_Hero_Body_N')))).toMatchObject(
      {
        texture: 'T_Hero_Body_D',
        rule: 'suffix convention',
        maps: { normal: 'T_Hero_Body_N', arm: null },
      },
    );
  });

  it("reads the UE3 layout: ParameterName, value first, items on one line, a base material's ReferencedTextures", () => {
    const ue3 = [
      'TextureParameterValues[2] =',
      '{',
      '    TextureParameterValues[0] =',
      '    {',
      "        ParameterValue = Texture2D'CH_Hero.Tex.T_Head_D'",
      '        ParameterName = Diffuse',
      '    }',
      "    TextureParameterValues[1] = { ParameterName=Normal, ParameterValue=Texture2D'T_Head_N' }",
      '}',
      'ReferencedTextures[2] =',
      '{',
      "    ReferencedTextures[0] = Texture2D'CH_Hero.T_Head_E'",
      "    ReferencedTextures[1] = Texture2D'CH_Hero.T_Head_Mask'",
      '}',
      'BlendMode = BLEND_Masked (1)',
      "Parent = Material3'CH_Hero.M_Head'",
    ].join('\n');
    expect(readMaterialSidecar('MI_Hero_Head.props.txt', ue3)).toEqual({
      kind: 'props',
      material: 'MI_Hero_Head',
      parent: 'M_Head',
      blend: 'masked',
      params: [
        { name: 'Diffuse', texture: 'T_Head_D' },
        { name: 'Normal', texture: 'T_Head_N' },
        { name: 'Other[0]', texture: 'T_Head_E' },
        { name: 'Other[1]', texture: 'T_Head_Mask' },
      ],
    });
    const find = library('T_Head_D', 'T_Head_N', 'T_Head_E', 'T_Head_Mask');
    expect(names(resolveUnrealMaterial('MI_Hero_Head', sidecarsOf(['MI_Hero_Head.props.txt', ue3]), find))).toEqual({
      texture: 'T_Head_D',
      rule: 'props.txt',
      blend: 'masked',
      maps: { ...noMaps, normal: 'T_Head_N', emissive: 'T_Head_E', mask: 'T_Head_Mask' },
    });
  });

  it('leads over the .mat of the same material, which stays as the last resort', () => {
    const props = ue4Props({ params: [['NRM', 'T_Hero_Body_N']] });
    const find = library('T_Hero_Body_BC', 'T_Hero_Body_N', 'T_Old_N');
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const files = [
        ['MI_Hero_Body.props.txt', props],
        ['MI_Hero_Body.mat', 'Diffuse=T_Hero_Body_BC\nNormal=T_Old_N\n'],
      ];
      const sidecars = sidecarsOf(...order.map((i) => files[i]));
      expect(sidecars.get('mi_hero_body').kind).toBe('props');
      expect(names(resolveUnrealMaterial('MI_Hero_Body', sidecars, find))).toEqual({
        texture: 'T_Hero_Body_BC',
        rule: 'UE Viewer .mat',
        blend: null,
        maps: { ...noMaps, normal: 'T_Hero_Body_N' },
      });
    }
  });
});

describe('FModel .json', () => {
  const child = fmodelJson({
    name: 'MI_Hero_Body',
    parent: 'MI_Hero_Base',
    params: [['Base Color', 'T_Hero_Body_BC']],
    blend: 'BLEND_Masked',
    extra: [{ Type: 'SkeletalMesh', Name: 'SK_Hero', Properties: { Materials: [] } }],
  });
  const parent = fmodelJson({
    name: 'MI_Hero_Base',
    params: [
      ['Base Color', 'T_Default_BC'],
      ['Normal', 'T_Hero_Body_N'],
      ['MRA', 'T_Hero_Body_Packed'],
      ['OpacityMask', 'T_Hero_Body_Cut'],
    ],
  });

  it('picks the material instance among the exports', () => {
    expect(readMaterialSidecar('Materials/MI_Hero_Body.json', child)).toEqual({
      kind: 'json',
      material: 'MI_Hero_Body',
      parent: 'MI_Hero_Base',
      blend: 'masked',
      params: [{ name: 'Base Color', texture: 'T_Hero_Body_BC' }],
    });
  });

  it('follows the parent chain; MRA keeps its own slot', () => {
    const find = library('T_Hero_Body_BC', 'T_Default_BC', 'T_Hero_Body_N', 'T_Hero_Body_Packed', 'T_Hero_Body_Cut');
    const sidecars = sidecarsOf(['MI_Hero_Body.json', child], ['MI_Hero_Base.json', parent]);
    expect(names(resolveUnrealMaterial('MI_Hero_Body', sidecars, find))).toEqual({
      texture: 'T_Hero_Body_BC',
      rule: 'FModel .json parent chain',
      blend: 'masked',
      maps: { ...noMaps, normal: 'T_Hero_Body_N', mra: 'T_Hero_Body_Packed', mask: 'T_Hero_Body_Cut' },
    });
  });

  it('reads the older ObjectName spelling and soft references', () => {
    const json = JSON.stringify([
      {
        Type: 'MaterialInstanceConstant',
        Name: 'MI_A',
        Properties: {
          TextureParameterValues: [
            { ParameterName: 'Diffuse', ParameterValue: { ObjectName: 'T_A_D:Texture2D', ObjectPath: '/Game/T_A_D.0' } },
            { ParameterInfo: { Name: 'Normal' }, ParameterValue: { AssetPathName: '/Game/T/T_A_N.T_A_N', SubPathString: '' } },
          ],
        },
      },
    ]);
    expect(readMaterialSidecar('MI_A.json', json).params).toEqual([
      { name: 'Diffuse', texture: 'T_A_D' },
      { name: 'Normal', texture: 'T_A_N' },
    ]);
  });

  it("reads CUE4Parse's material export (Textures by parameter)", () => {
    const json = JSON.stringify({
      Textures: { Diffuse: `${TEX}/T_Head_D.T_Head_D`, Normal: `${TEX}/T_Head_N.T_Head_N` },
      Parameters: { Scalars: { Roughness: 0.5 } },
    });
    expect(readMaterialSidecar('MI_Hero_Head.json', json)).toEqual({
      kind: 'json',
      material: 'MI_Hero_Head',
      parent: null,
      blend: null,
      params: [
        { name: 'Diffuse', texture: 'T_Head_D' },
        { name: 'Normal', texture: 'T_Head_N' },
      ],
    });
  });

  it('is not a material when no export is one', () => {
    expect(readMaterialSidecar('SK_Hero.json', JSON.stringify([{ Type: 'SkeletalMesh', Name: 'SK_Hero' }]))).toBe(null);
    expect(readMaterialSidecar('package.json', '{ "name": "rigscope", "version": "1.0.0" }')).toBe(null);
    expect(readMaterialSidecar('x.json', '[1, "a", null, {"Type": 5}]')).toBe(null);
  });

  it('never lets JSON keys reach a prototype', () => {
    const json =
      '[{"Type":"MaterialInstanceConstant","Name":"MI_P","__proto__":{"polluted":1},"Properties":{"__proto__":{"polluted":2},' +
      '"TextureParameterValues":[{"ParameterInfo":{"Name":"__proto__"},"ParameterValue":"T_P_D"},{"ParameterInfo":{"Name":"constructor"},"ParameterValue":"T_P_N"}]}}]';
    const record = readMaterialSidecar('MI_P.json', json);
    expect(record.params).toEqual([
      { name: '__proto__', texture: 'T_P_D' },
      { name: 'constructor', texture: 'T_P_N' },
    ]);
    const data = readMaterialSidecar('MI_Q.json', '{"Textures":{"__proto__":"T_Q_D","toString":"T_Q_N"}}');
    expect(data.params).toEqual([
      { name: '__proto__', texture: 'T_Q_D' },
      { name: 'toString', texture: 'T_Q_N' },
    ]);
    expect({}.polluted).toBe(undefined);
    const resolved = resolveUnrealMaterial('MI_P', sidecarsOf(['MI_P.json', json]), library('T_P_D', 'T_P_N'));
    expect(names(resolved)).toMatchObject({ texture: 'T_P_D', maps: { normal: 'T_P_N' } });
  });
});

describe('hostile and broken sidecars', () => {
  it('returns null or fewer parameters on garbage, without throwing', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const noise = Array.from({ length: 20000 }, () => String.fromCharCode(Math.floor(random() * 128))).join('');
    for (const path of ['x.mat', 'x.props.txt', 'x.json']) {
      expect(() => readMaterialSidecar(path, noise)).not.toThrow();
      expect(readMaterialSidecar(path, '')).toBe(null);
      expect(readMaterialSidecar(path, null)).toBe(null);
    }
    expect(readMaterialSidecar('x.json', '['.repeat(200000))).toBe(null);
    expect(readMaterialSidecar('x.json', `${'['.repeat(100000)}${']'.repeat(100000)}`)).toBe(null);
    const nested = `${'Block =\n{\n'.repeat(100000)}Parent = Material3'M_X'\n${'}\n'.repeat(100000)}`;
    expect(readMaterialSidecar('x.props.txt', nested)).toBe(null);
    const unbalanced = `${'}\n'.repeat(1000)}Parent = Material3'M_X'\n`;
    expect(readMaterialSidecar('x.props.txt', unbalanced)).toMatchObject({ parent: 'M_X' });
  });

  it('keeps at most 256 parameters of a material', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `Other[${i}]=T_${i}_D`).join('\n');
    expect(readMaterialSidecar('x.mat', lines).params).toHaveLength(256);
  });

  it('stops at parent cycles and after 16 materials', () => {
    const cycle = sidecarsOf(
      ['A.props.txt', ue4Props({ parent: 'B', params: [['NRM', 'T_A_N']] })],
      ['B.props.txt', ue4Props({ parent: 'A', params: [['Diffuse', 'T_B_D']] })],
    );
    expect(names(resolveUnrealMaterial('A', cycle, library('T_A_N', 'T_B_D')))).toMatchObject({
      texture: 'T_B_D',
      rule: 'props.txt parent chain',
      maps: { normal: 'T_A_N' },
    });
    const self = sidecarsOf(['C.props.txt', ue4Props({ parent: 'C', params: [['Diffuse', 'T_C_D']] })]);
    expect(names(resolveUnrealMaterial('C', self, library('T_C_D')))).toMatchObject({ texture: 'T_C_D', rule: 'props.txt' });

    const files = Array.from({ length: 40 }, (_, i) => [
      `L${i}.props.txt`,
      ue4Props({
        parent: `L${i + 1}`,
        params: i === 15 ? [['Normal', 'T_L15_N']] : [[`Color${i}`, i === 16 ? 'T_L16_D' : `T_Missing_${i}`]],
      }),
    ]);
    const long = sidecarsOf(...files);
    const find = library('T_L15_N', 'T_L16_D', 'T_L0_D');
    // L0…L15 are followed (16 materials); L16's colour is out of reach, so the name convention decides.
    expect(names(resolveUnrealMaterial('L0', long, find))).toMatchObject({
      texture: 'T_L0_D',
      rule: 'suffix convention',
      maps: { normal: 'T_L15_N' },
    });
    expect(names(resolveUnrealMaterial('L1', long, find))).toMatchObject({ texture: 'T_L16_D', rule: 'props.txt parent chain' });
  });
});

describe('suffix convention', () => {
  it('finds textures named after the material', () => {
    const find = library('T_Hero_Body_BC', 'T_Hero_Body_N', 'T_Hero_Body_ARM', 'T_Head_D');
    expect(names(resolveUnrealMaterial('MI_Hero_Body', new Map(), find))).toEqual({
      texture: 'T_Hero_Body_BC',
      rule: 'suffix convention',
      blend: null,
      maps: { ...noMaps, normal: 'T_Hero_Body_N', arm: 'T_Hero_Body_ARM' },
    });
    expect(resolveUnrealMaterial('MI_Hero_Head', new Map(), find)).toBe(null);
    expect(names(resolveUnrealMaterial('M_Crate', new Map(), library('Crate_D')))).toMatchObject({
      texture: 'Crate_D',
      rule: 'suffix convention',
    });
  });

  it('completes a sidecar that names no base colour', () => {
    const sidecars = sidecarsOf(['MI_Hero_Body.props.txt', ue4Props({ params: [['NRM', 'T_Custom_N']] })]);
    expect(names(resolveUnrealMaterial('MI_Hero_Body', sidecars, library('T_Hero_Body_D', 'T_Hero_Body_N', 'T_Custom_N')))).toEqual({
      texture: 'T_Hero_Body_D',
      rule: 'suffix convention',
      blend: null,
      maps: { ...noMaps, normal: 'T_Custom_N' },
    });
  });

  it('asks for a bounded number of names', () => {
    const find = library();
    expect(resolveUnrealMaterial('MI_Nothing', new Map(), find)).toBe(null);
    expect(new Set(find.calls).size).toBe(find.calls.length);
    expect(find.calls.length).toBeLessThan(200);
  });
});

describe('fixture export trees (write_material_fixtures)', () => {
  const root = `${FIXTURES}unreal_export/`;
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(`${dir}${d.name}/`) : [`${dir}${d.name}`]));

  /** Sidecars and textures of one tree, as the scene gathers them from a dropped folder. */
  function scan(tree) {
    const files = walk(`${root}${tree}/`).map((f) => f.slice(root.length));
    const sidecars = new Map();
    for (const f of files) if (isMaterialSidecar(f)) addMaterialSidecar(sidecars, readMaterialSidecar(f, readFileSync(root + f, 'utf8')));
    const textures = new Map(
      files
        .filter((f) => /\.(png|tga)$/.test(f))
        .map((f) => [
          f
            .split('/')
            .pop()
            .replace(/\.\w+$/, '')
            .toLowerCase(),
          { path: f },
        ]),
    );
    const resolve = (material) => {
      const r = resolveUnrealMaterial(material, sidecars, (n) => textures.get(n.toLowerCase()) ?? null);
      return (
        r && {
          texture: r.texture.path,
          rule: r.rule,
          maps: Object.fromEntries(
            Object.entries(r.maps)
              .filter(([, v]) => v)
              .map(([k, v]) => [k, v.path]),
          ),
        }
      );
    };
    return { files, sidecars, resolve };
  }

  it("holds a PSK from the project's writer whose material names are unlike its textures'", async () => {
    for (const tree of ['ueviewer_mat', 'ueviewer_props', 'fmodel_json', 'suffix_only']) {
      const psk = await decode('decodePsk', bytes(`${root}${tree}/Game/Characters/Hero/Meshes/SK_Hero.psk`), 'SK_Hero.psk');
      expect(psk.materials.map((m) => m.name)).toEqual(['MI_Hero_Body', 'MI_Hero_Head']);
      expect(psk.counts).toMatchObject({ points: 8, wedges: 8, faces: 4, materials: 2, bones: 1, influences: 8 });
      const [mesh] = psk.meshes;
      expect(mesh.groups.map((g) => [g.count, g.material])).toEqual([
        [6, 0],
        [6, 1],
      ]);
      // The body's top edge (decoded y = 2) carries v = 1: the image's top row once three flips it.
      for (let i = 0; i < mesh.positions.length / 3; i++) {
        if (mesh.positions[i * 3 + 1] === 2) expect(mesh.uvs[0][i * 2 + 1]).toBeCloseTo(1, 6);
        if (mesh.positions[i * 3 + 1] === 0) expect(mesh.uvs[0][i * 2 + 1]).toBeCloseTo(0, 6);
      }
    }
  });

  const hero = 'Game/Characters/Hero';
  const body = (tex) => ({
    texture: `${tex}/T_Hero_Body_BC.png`,
    maps: { normal: `${tex}/T_Hero_Body_N.png`, arm: `${tex}/T_Hero_Body_ARM.tga` },
  });
  const head = (tex) => ({ texture: `${tex}/T_Head_D.tga`, maps: { normal: `${tex}/T_Head_N.tga` } });

  it('resolves UE Viewer .mat files', () => {
    const { resolve } = scan('ueviewer_mat');
    const tex = `ueviewer_mat/${hero}/Textures`;
    expect(resolve('MI_Hero_Body')).toEqual({ ...body(tex), rule: 'UE Viewer .mat' });
    expect(resolve('MI_Hero_Head')).toEqual({ ...head(tex), rule: 'UE Viewer .mat' });
  });

  it('resolves UE Viewer .props.txt files through the parent chain', () => {
    const { resolve, sidecars } = scan('ueviewer_props');
    const tex = `ueviewer_props/${hero}/Textures/Texture2D`;
    expect([...sidecars.keys()].sort()).toEqual(['mi_hero_base', 'mi_hero_body', 'mi_hero_head']);
    expect(resolve('MI_Hero_Body')).toEqual({ ...body(tex), rule: 'props.txt parent chain' });
    expect(resolve('MI_Hero_Head')).toEqual({ ...head(tex), rule: 'props.txt' });
  });

  it("resolves FModel .json files, skipping the mesh's own JSON", () => {
    const { resolve, sidecars, files } = scan('fmodel_json');
    const tex = `fmodel_json/${hero}/Textures`;
    expect(files).toContain(`fmodel_json/${hero}/Meshes/SK_Hero.json`);
    expect([...sidecars.keys()].sort()).toEqual(['mi_hero_base', 'mi_hero_body', 'mi_hero_head']);
    expect(resolve('MI_Hero_Body')).toEqual({ ...body(tex), rule: 'FModel .json parent chain' });
    expect(resolve('MI_Hero_Head')).toEqual({ ...head(tex), rule: 'FModel .json' });
  });

  it('resolves the body by the suffix convention when there is no sidecar; the head stays untextured', () => {
    const { resolve, sidecars } = scan('suffix_only');
    expect(sidecars.size).toBe(0);
    expect(resolve('MI_Hero_Body')).toEqual({ ...body(`suffix_only/${hero}/Textures`), rule: 'suffix convention' });
    expect(resolve('MI_Hero_Head')).toBe(null);
  });
});
