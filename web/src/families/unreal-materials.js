// Unreal export folders: the material sidecars UE Viewer (umodel) and FModel/CUE4Parse write beside a
// mesh, read into one record shape, and a material resolved to its textures by role.
//
//   UE Viewer `X.mat`        `Key=TextureName` lines; keys are UE Viewer's own slots (Diffuse, Normal,
//                            Specular, SpecPower, Opacity, Emissive, Cube, Mask; CUE4Parse adds Misc
//                            and Other[N]), already merged with the parent material's.
//   UE Viewer `X.props.txt`  the material's properties: `Parent = Class'Path'`, and
//                            `TextureParameterValues[N]` blocks of `ParameterName`, `ParameterInfo =
//                            { Name=… }` and `ParameterValue = Texture2D'Path.Name'`.
//   FModel `X.json`          an array of exports; the material instance's `Properties` hold `Parent`
//                            and `TextureParameterValues[]` ({ ParameterInfo.Name, ParameterValue:
//                            { ObjectName: "Texture2D'Name'", ObjectPath } }). CUE4Parse's material
//                            exporter writes `{ Textures: { Parameter: "/Game/…/T_Name.T_Name" } }`.
//
// Pure JavaScript (no three.js, no DOM). Sidecars are untrusted text: work is bounded by the caps below,
// nothing throws on garbage, and JSON is only read through own, named keys.

const MAX_TEXT = 8 << 20; // characters of one sidecar looked at
const MAX_NODES = 200000; // props.txt property lines
const MAX_DEPTH = 64; // props.txt nesting
const MAX_PARAMS = 256; // texture parameters kept per material
const MAX_EXPORTS = 4096; // FModel exports looked at
const MAX_NAME = 256; // characters in a texture or material name
const MAX_CHAIN = 16; // materials in a parent chain, the material itself included

const SUFFIX_OF_KIND = { props: '.props.txt', mat: '.mat', json: '.json' };
/** Listed once: every file of a drop is asked about (its name is claimed before its content is read). */
const SUFFIXES = Object.entries(SUFFIX_OF_KIND);

/** 'mat' | 'props' | 'json' | null, by file name. */
export function isMaterialSidecar(path) {
  if (typeof path !== 'string') return null;
  const name = path.split(/[\\/]/).pop().toLowerCase();
  for (const [kind, suffix] of SUFFIXES) {
    if (name.length > suffix.length && name.endsWith(suffix)) return kind;
  }
  return null;
}

/**
 * A material sidecar's texture parameters, or null when the text is not a material.
 * @returns {{ kind: 'mat'|'props'|'json', material: string, parent: string|null,
 *   params: { name: string, texture: string }[], blend: 'opaque'|'masked'|'translucent'|null } | null}
 */
export function readMaterialSidecar(path, text) {
  const kind = isMaterialSidecar(path);
  if (!kind || typeof text !== 'string') return null;
  const body = (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text).replace(/^\uFEFF/, '');
  const file = path.split(/[\\/]/).pop();
  const name = file.slice(0, file.length - SUFFIX_OF_KIND[kind].length);
  if (kind === 'mat') return readMat(name, body);
  if (kind === 'props') return readProps(name, body);
  return readJson(name, body);
}

// ---------------------------------------------------------------------------------------------
// Object references: `Texture2D'/Game/Hero/T_Hero_BC.T_Hero_BC'`, `T_Hero_BC`, `tex.T_Hero_BC`,
// `/Game/Hero/T_Hero_BC.0` (FModel's package path and export index) → `T_Hero_BC`.

const IMAGE_EXTENSION = /^(png|tga|dds|bmp|jpe?g|gif|webp|pcx)$/i;

/** The bare object name of a reference, or null (None, empty, or not a name). */
export function referenceName(value) {
  if (typeof value !== 'string') return null;
  let s = value.trim();
  const quoted = /^[\w./]*'(.*)'$/.exec(s);
  if (quoted) s = quoted[1];
  s = s.replace(/^"(.*)"$/, '$1');
  s = s.slice(Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'), s.lastIndexOf(':')) + 1);
  const parts = s.split('.');
  while (parts.length > 1 && (/^\d+$/.test(parts[parts.length - 1]) || IMAGE_EXTENSION.test(parts[parts.length - 1]))) parts.pop();
  s = parts[parts.length - 1].trim();
  if (!s || s.length > MAX_NAME || s.toLowerCase() === 'none') return null;
  return s;
}

// FModel's FPackageIndex: { ObjectName: "Texture2D'T_X'", ObjectPath: "/Game/…/T_X.0" }; older
// CUE4Parse wrote ObjectName as "T_X:Texture2D" (or "Outer:T_X:Texture2D"). Soft references are
// { AssetPathName: "/Game/…/T_X.T_X" }.
function objectName(value) {
  if (typeof value === 'string') return referenceName(value);
  if (!isObject(value)) return null;
  const name = own(value, 'ObjectName');
  if (typeof name === 'string' && !name.includes("'") && name.includes(':')) {
    const parts = name.split(':');
    return referenceName(parts[parts.length - 2]);
  }
  return referenceName(name) ?? referenceName(own(value, 'ObjectPath')) ?? referenceName(own(value, 'AssetPathName'));
}

function blendOf(value) {
  const m = typeof value === 'string' ? /BLEND_(\w+)/.exec(value) : null;
  if (!m) return null;
  const mode = m[1].toLowerCase();
  if (mode === 'opaque') return 'opaque';
  return mode === 'masked' ? 'masked' : 'translucent';
}

function pushParam(params, name, texture) {
  if (params.length >= MAX_PARAMS || typeof name !== 'string') return;
  const n = name.trim();
  if (n && n.length <= MAX_NAME && texture) params.push({ name: n, texture });
}

// ---------------------------------------------------------------------------------------------
// UE Viewer .mat

function readMat(name, text) {
  const params = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z][\w ]*(?:\[\d{1,4}\])?)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) pushParam(params, m[1], referenceName(m[2]));
    if (params.length >= MAX_PARAMS) break;
  }
  return params.length ? { kind: 'mat', material: name, parent: null, params, blend: null } : null;
}

// ---------------------------------------------------------------------------------------------
// UE Viewer .props.txt: `Name = Value` lines, `Name =` followed by a `{ … }` block, and short structs
// on one line as `Name = { A=B, C=D }` (array items of simple types as bare `{ V1, V2 }`).

function readProps(name, text) {
  const root = parseProps(text);
  const top = (key) => root.children.filter((n) => baseKey(n.name) === key);
  const params = [];
  for (const list of top('textureparametervalues')) {
    for (const item of list.children) {
      const field = (key) => item.children.find((c) => c.name.toLowerCase() === key);
      const info = field('parameterinfo')?.children.find((c) => c.name.toLowerCase() === 'name')?.value;
      const paramName = info && info.toLowerCase() !== 'none' ? info : field('parametername')?.value;
      pushParam(params, paramName, referenceName(field('parametervalue')?.value));
    }
  }
  // A base material (not an instance) lists the textures its graph samples, without parameter names.
  let other = 0;
  for (const list of top('referencedtextures')) {
    for (const item of list.children) pushParam(params, `Other[${other++}]`, referenceName(item.value));
  }
  const parent = referenceName(top('parent')[0]?.value);
  let blend = blendOf(top('blendmode')[0]?.value);
  const overrides = top('basepropertyoverrides')[0];
  const overridden = overrides?.children.find((c) => c.name.toLowerCase() === 'boverride_blendmode')?.value === 'true';
  if (overridden) blend = blendOf(overrides.children.find((c) => c.name.toLowerCase() === 'blendmode')?.value) ?? blend;
  if (!params.length && !parent) return null;
  return { kind: 'props', material: name, parent, params, blend };
}

const baseKey = (name) => name.replace(/\[\d*\]$/, '').toLowerCase();

function parseProps(text) {
  const root = { name: '', value: '', children: [] };
  const stack = [root];
  let last = null;
  let skipped = 0; // blocks opened past MAX_DEPTH (their lines go to the deepest kept node)
  let nodes = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '{') {
      if (last && stack.length < MAX_DEPTH) stack.push(last);
      else skipped++;
      last = null;
    } else if (line === '}') {
      if (skipped) skipped--;
      else if (stack.length > 1) stack.pop();
      last = null;
    } else {
      const eq = line.indexOf('=');
      if (eq <= 0) {
        last = null;
        continue;
      }
      const node = { name: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim(), children: [] };
      if (node.value.startsWith('{') && node.value.endsWith('}')) {
        node.children = inlineItems(node.value.slice(1, -1));
        node.value = '';
      }
      stack[stack.length - 1].children.push(node);
      last = node;
      if (++nodes >= MAX_NODES) break;
    }
  }
  return root;
}

// `A=B, C=Texture2D'x.y'` or `V1, V2`: split at commas outside quotes.
function inlineItems(s) {
  const items = [];
  let start = 0,
    quote = '';
  for (let i = 0; i <= s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === ',' || i === s.length) {
      const item = s.slice(start, i).trim();
      const m = /^([A-Za-z_][\w]*(?:\[\d+\])?)\s*=(.*)$/.exec(item);
      if (m) items.push({ name: m[1], value: m[2].trim(), children: [] });
      else if (item) items.push({ name: '', value: item, children: [] });
      start = i + 1;
    }
  }
  return items;
}

// ---------------------------------------------------------------------------------------------
// FModel / CUE4Parse JSON

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (obj, key) => (isObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined);
const MATERIAL_TYPE = /^(Material|\w*MaterialInstance(Constant|Dynamic)?)$/;

function readJson(name, text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return null; // not JSON, or nested deeper than the parser's stack
  }
  const exp = materialExport(doc, name);
  if (exp) return fromExport(exp, name);
  const textures = own(doc, 'Textures');
  if (isObject(textures)) return fromMaterialData(textures, name);
  return null;
}

/** The material export of the file: the one named like the file, else the first instance, else the first material. */
function materialExport(doc, fileName) {
  const list = (Array.isArray(doc) ? doc.slice(0, MAX_EXPORTS) : [doc]).filter(
    (e) => typeof own(e, 'Type') === 'string' && MATERIAL_TYPE.test(e.Type),
  );
  const lower = fileName.toLowerCase();
  return (
    list.find((e) => typeof own(e, 'Name') === 'string' && e.Name.toLowerCase() === lower) ??
    list.find((e) => e.Type !== 'Material') ??
    list[0] ??
    null
  );
}

function fromExport(exp, fileName) {
  const props = isObject(own(exp, 'Properties')) ? exp.Properties : {};
  const params = [];
  const values = own(props, 'TextureParameterValues');
  for (const item of Array.isArray(values) ? values.slice(0, MAX_PARAMS) : []) {
    const info = own(own(item, 'ParameterInfo'), 'Name');
    const paramName = typeof info === 'string' && info.toLowerCase() !== 'none' ? info : own(item, 'ParameterName');
    pushParam(params, paramName, objectName(own(item, 'ParameterValue')));
  }
  let other = 0;
  const referenced = [
    own(props, 'ReferencedTextures'),
    own(own(props, 'CachedExpressionData'), 'ReferencedTextures'),
    own(exp, 'ReferencedTextures'),
  ];
  for (const list of referenced) {
    for (const ref of Array.isArray(list) ? list.slice(0, MAX_PARAMS) : []) pushParam(params, `Other[${other++}]`, objectName(ref));
  }
  const parent = objectName(own(props, 'Parent'));
  let blend = blendOf(own(props, 'BlendMode'));
  const overrides = own(props, 'BasePropertyOverrides');
  if (own(overrides, 'bOverride_BlendMode') === true) blend = blendOf(own(overrides, 'BlendMode')) ?? blend;
  if (!params.length && !parent) return null;
  const name = typeof own(exp, 'Name') === 'string' && referenceName(exp.Name) ? referenceName(exp.Name) : fileName;
  return { kind: 'json', material: name, parent, params, blend };
}

function fromMaterialData(textures, name) {
  const params = [];
  for (const key of Object.keys(textures).slice(0, MAX_PARAMS)) pushParam(params, key, referenceName(textures[key]));
  return params.length ? { kind: 'json', material: name, parent: null, params, blend: null } : null;
}

// ---------------------------------------------------------------------------------------------
// Roles

// Parameter names are the game's own: split into words ("BaseColor_Tex" → base, color, tex) and
// judged by the first rule whose words appear. 'ignore' marks maps that are not a surface slot
// here (specular power, cube maps, detail and wrinkle maps tile or blend differently).
const PARAMETER_RULES = [
  [
    'ignore',
    [
      'power',
      'cube',
      'cubemap',
      'reflection',
      'env',
      'environment',
      'detail',
      'wrinkle',
      'subsurface',
      'sss',
      'lightmap',
      'noise',
      'flow',
      'flowmap',
    ],
  ],
  ['mra', ['mra']],
  ['arm', ['arm', 'orm']],
  ['normal', ['normal', 'normals', 'nrm', 'norm', 'nor', 'nm']],
  ['emissive', ['emissive', 'emission', 'emit', 'glow', 'illum', 'selfillum', 'illumination']],
  ['mask', ['opacitymask', 'alphamask', 'cutout']],
  ['opacity', ['opacity', 'alpha', 'transparency', 'translucency']],
  ['specular', ['specular', 'spec', 'specularity']],
  ['mask', ['mask', 'masks']],
  ['base', ['diffuse', 'diff', 'albedo', 'albed', 'basecolor', 'basecolour', 'color', 'colour', 'base', 'bc', 'col']],
];

function words(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

// "ARM" is also a body part ("Arm_BaseColor"): packed-map words count only beside generic ones.
const PACKED = new Set(['arm', 'orm', 'mra']);
const GENERIC = new Set(['t', 'tex', 'texture', 'map', 'packed', 'sampler']);

function parameterRule(paramName) {
  if (typeof paramName !== 'string') return null;
  const w = new Set(words(paramName));
  const joined = [...w].join('');
  const packedOnly = [...w].every((x) => PACKED.has(x) || GENERIC.has(x));
  if (w.has('opacity') && w.has('mask')) return 'mask'; // Unreal's OpacityMask input: alpha test
  for (const [role, keys] of PARAMETER_RULES) {
    if (keys.some((k) => (w.has(k) && (!PACKED.has(k) || packedOnly)) || joined === k)) return role;
  }
  return null;
}

/**
 * The role of a texture parameter from the game's parameter name, or null when the name does not say
 * (then the texture's own name suffix decides, see roleOfTextureName). MRA (metallic, roughness, AO in
 * R, G, B) is its own role: its channels are not ARM's.
 * @returns {'base'|'normal'|'arm'|'mra'|'specular'|'emissive'|'opacity'|'mask'|null}
 */
export function roleOfParameter(paramName) {
  const r = parameterRule(paramName);
  return r === 'ignore' ? null : r;
}

// Texture name suffixes (after the last underscore), case-insensitive.
const SUFFIX_ROLES = {
  base: ['D', 'BC', 'C', 'Albedo', 'Diffuse', 'Base', 'BaseColor', 'Color', 'Col', 'Diff'],
  normal: ['N', 'NRM', 'Normal', 'NM', 'Norm'],
  arm: ['ARM', 'ORM'],
  mra: ['MRA'],
  specular: ['S', 'Spec', 'Specular'],
  mask: ['M', 'Mask'],
  emissive: ['E', 'Emissive', 'Emit'],
  opacity: ['O', 'Opacity', 'Alpha'],
};
const ROLE_OF_SUFFIX = new Map(Object.entries(SUFFIX_ROLES).flatMap(([role, list]) => list.map((s) => [s.toLowerCase(), role])));

/** The role a texture's name suffix gives it (`T_Hero_BC` → 'base'), or null. */
export function roleOfTextureName(textureName) {
  if (typeof textureName !== 'string') return null;
  const cut = textureName.lastIndexOf('_');
  return cut > 0 ? (ROLE_OF_SUFFIX.get(textureName.slice(cut + 1).toLowerCase()) ?? null) : null;
}

// UE Viewer's .mat keys are its own fixed slots. Its Mask is "multiple mask textures baked into a
// single one" (emissive, specular and cube-map masks by channel), not opacity; SpecPower, Cube and Misc
// are not surface slots here. Other[N] is decided by the texture's name.
const MAT_KEY_ROLES = new Map([
  ['diffuse', 'base'],
  ['normal', 'normal'],
  ['specular', 'specular'],
  ['opacity', 'opacity'],
  ['emissive', 'emissive'],
  ['specpower', 'ignore'],
  ['cube', 'ignore'],
  ['mask', 'ignore'],
  ['misc', 'ignore'],
]);

function roleOf(kind, param) {
  const rule = kind === 'mat' ? (MAT_KEY_ROLES.get(param.name.toLowerCase()) ?? null) : parameterRule(param.name);
  if (rule === 'ignore') return null;
  if (rule) return { role: rule, byName: true };
  const bySuffix = roleOfTextureName(param.texture);
  return bySuffix ? { role: bySuffix, byName: false } : null;
}

// ---------------------------------------------------------------------------------------------
// Resolution

export const MAP_ROLES = ['normal', 'arm', 'mra', 'specular', 'emissive', 'opacity', 'mask'];
const ROLES = ['base', ...MAP_ROLES];

/**
 * Adds a sidecar record to the map `resolveUnrealMaterial` reads (key: lower-case material name).
 * UE Viewer writes both a .mat and a .props.txt for a material: the props.txt (or an FModel .json)
 * leads, as it names every parameter and its parent; the .mat is kept as its last resort.
 * Otherwise the first record of a name stays.
 */
export function addMaterialSidecar(sidecars, record) {
  if (!record) return sidecars;
  const key = record.material.toLowerCase();
  const existing = sidecars.get(key);
  if (!existing) sidecars.set(key, record);
  else if (existing.kind === 'mat' && record.kind !== 'mat') sidecars.set(key, { ...record, mat: existing });
  else if (record.kind === 'mat' && existing.kind !== 'mat' && !existing.mat) sidecars.set(key, { ...existing, mat: record });
  return sidecars;
}

function parentChain(record, sidecars) {
  const chain = [record];
  const seen = new Set([record.material.toLowerCase()]);
  let current = record;
  while (current.parent && chain.length < MAX_CHAIN) {
    const key = current.parent.toLowerCase();
    const next = seen.has(key) ? null : sidecars.get(key);
    if (!next) break;
    seen.add(key);
    chain.push(next);
    current = next;
  }
  return chain;
}

/**
 * Candidate textures per role, best first: the material's own values, then its parent's (a child's
 * parameter overrides the parent's of the same name), then the .mat fallback; at each level a role
 * named by the parameter beats one guessed from the texture's suffix.
 */
function candidates(chain) {
  const byParam = new Map();
  const levels = chain.map((r) => ({ kind: r.kind, params: r.params }));
  if (chain[0].mat) levels.push({ kind: 'mat', params: chain[0].mat.params, fromMat: true });
  const list = [];
  levels.forEach((level, depth) => {
    for (const param of level.params) {
      const key = `${level.kind === 'mat' ? 'mat:' : ''}${param.name.toLowerCase()}`;
      if (byParam.has(key)) continue;
      byParam.set(key, true);
      const r = roleOf(level.kind, param);
      if (r) list.push({ ...r, texture: param.texture, depth, fromMat: !!level.fromMat });
    }
  });
  return list.sort((a, b) => a.depth - b.depth || Number(b.byName) - Number(a.byName));
}

function pickMaps(list, find) {
  const maps = {};
  const from = {};
  for (const role of ROLES) {
    maps[role] = null;
    for (const c of list) {
      if (c.role !== role) continue;
      const hit = find(c.texture);
      if (hit) {
        maps[role] = hit;
        from[role] = c;
        break;
      }
    }
  }
  return { maps, from };
}

const MATERIAL_PREFIX = /^(MI|MIC|MAT|M|T)_/i;
const TEXTURE_PREFIXES = ['T_', 'TX_', 'Tex_', ''];

/** Textures named after the material: `MI_Hero_Body` → `T_Hero_Body_BC`, `T_Hero_Body_N`, … */
function suffixMaps(materialName, find) {
  const stem = materialName.replace(MATERIAL_PREFIX, '');
  const maps = {};
  for (const role of ROLES) {
    maps[role] = null;
    // Maps count only beside a base colour (ROLES starts with it): without one, stop looking.
    if (role !== 'base' && !maps.base) break;
    for (const prefix of TEXTURE_PREFIXES) {
      const suffix = SUFFIX_ROLES[role].find((s) => find(`${prefix}${stem}_${s}`));
      if (suffix) {
        maps[role] = find(`${prefix}${stem}_${suffix}`);
        break;
      }
    }
  }
  return maps;
}

function sidecarRule(record, chainLength) {
  if (record.kind === 'mat') return 'UE Viewer .mat';
  const chain = chainLength > 1 ? ' parent chain' : '';
  return record.kind === 'props' ? `props.txt${chain}` : `FModel .json${chain}`;
}

/**
 * A material's textures by role, from its sidecar (and its parents'), else from textures named after it.
 * @param {string} materialName the mesh's material name
 * @param {Map<string, object>} sidecars lower-case material name → readMaterialSidecar record
 * @param {(name: string) => object|null} findTexture a texture record by bare name (any folder or
 *   extension, case-insensitive), or null
 * @returns {{ texture: object, rule: string, blend: string|null,
 *   maps: { normal, arm, mra, specular, emissive, opacity, mask } } | null} null when no base colour texture is found
 */
export function resolveUnrealMaterial(materialName, sidecars, findTexture) {
  if (typeof materialName !== 'string' || !materialName || typeof findTexture !== 'function') return null;
  const memo = new Map();
  const find = (name) => {
    const key = name.toLowerCase();
    if (!memo.has(key)) memo.set(key, findTexture(name) ?? null);
    return memo.get(key);
  };
  const record = sidecars?.get(materialName.toLowerCase()) ?? null;
  let maps = Object.fromEntries(ROLES.map((r) => [r, null]));
  let rule = null,
    blend = null;
  if (record) {
    const chain = parentChain(record, sidecars);
    const picked = pickMaps(candidates(chain), find);
    maps = picked.maps;
    rule = picked.from.base?.fromMat ? 'UE Viewer .mat' : sidecarRule(record, chain.length);
    blend = chain.map((r) => r.blend).find(Boolean) ?? null;
  }
  if (!maps.base) {
    const byName = suffixMaps(materialName, find);
    if (!byName.base) return null;
    for (const role of ROLES) maps[role] ??= byName[role];
    rule = 'suffix convention';
  }
  const { base, ...rest } = maps;
  return { texture: base, rule, blend, maps: rest };
}
