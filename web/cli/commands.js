// The commands of `rigscope` and their options, each with one line of meaning: the one source of
// the usage lines, `--help` and docs/cli.md (held to it word for word by tests/unit/docs-cli.test.js).
// Parsing is Node's util.parseArgs in strict mode; what it refuses is named here in the command's
// own words and becomes a UsageError (exit 2 with the command's usage).
import { parseArgs } from 'node:util';
import { lodFromText } from '../src/core/lod.js';
import { UsageError } from './usage.js';

/** `--lod N|all`: the level of detail of parts that have levels. */
function lod(value) {
  const level = lodFromText(value);
  if (level === null) throw new UsageError(`--lod ${value}: a level number (0 is the finest) or all`);
  return level;
}

/** `--size WxH` (and `--poster-size`): a picture's size in pixels. */
const size =
  (flag = '--size') =>
  (value) => {
    const m = /^(\d{1,5})x(\d{1,5})$/i.exec(value);
    const [width, height] = m ? [Number(m[1]), Number(m[2])] : [];
    if (!m || width < 16 || height < 16 || width > 4096 || height > 4096)
      throw new UsageError(`${flag} ${value}: width x height in pixels, each from 16 to 4096 (e.g. 640x480)`);
    return { width, height };
  };

/** A whole number from `min` to `max`, for an option named `flag`. */
const whole = (flag, what, min, max) => (value) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} ${value}: ${what} from ${min} to ${max}`);
  return n;
};

/** Seconds, 0 or more. */
function seconds(value) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--time ${value}: seconds into the clip, 0 or more`);
  return n;
}

/** Comma-separated numbers in the links' forms (`camera=`, `up=`). */
const numbers = (flag, count, form) => (value) => {
  const parts = value.split(',').map((s) => s.trim());
  if (parts.length !== count || parts.some((s) => s === '' || !Number.isFinite(Number(s))))
    throw new UsageError(`${flag} ${value}: ${form}`);
  return value;
};

function colour(value) {
  if (!/^#?[0-9a-f]{6}$/i.test(value)) throw new UsageError(`--background ${value}: a colour as RRGGBB (e.g. 202830)`);
  return value.replace(/^#/, '');
}

const CLIP = (help) => ({ type: 'string', value: 'NAME', help });
const MESH = (help) => ({ type: 'string', value: 'NAME', help });
const PACKAGE_MESH = MESH('of a UE1 package, only this mesh (its name or Package.Group.Name), decoded and shown alone');
const LOD = {
  type: 'string',
  value: 'N|all',
  parse: lod,
  help: 'level of detail of parts that have levels: 0 the finest (default), N, or all',
};
const FRAME = {
  type: 'string',
  value: 'N',
  parse: whole('--frame', 'a frame number (the file’s own numbering)', 0, 1e9),
  help: 'the frame shown (the file’s own numbering)',
};
const CAMERA = {
  type: 'string',
  value: 'px,py,pz,tx,ty,tz',
  parse: numbers('--camera', 6, 'camera position and target, six numbers px,py,pz,tx,ty,tz'),
  help: 'camera position and target, as in links (default: framed as the page’s Frame)',
};
const UP = {
  type: 'string',
  value: 'X,Y,Z',
  parse: numbers('--up', 3, 'quarter turns about X, Y and Z in degrees, e.g. -90,0,0'),
  help: 'quarter turns of the scene about X, Y and Z in degrees, as in links (e.g. -90,0,0)',
};
const BACKGROUND = { type: 'string', value: 'RRGGBB', parse: colour, help: 'background colour' };
const COMPRESS = { type: 'boolean', help: 'quantized, meshopt-compressed GLB (KHR_mesh_quantization, EXT_meshopt_compression)' };
const TEXTURES = {
  type: 'string',
  value: 'webp|ktx2|keep',
  parse: (value) => {
    if (!['webp', 'ktx2', 'keep'].includes(value)) throw new UsageError(`--textures ${value}: webp, ktx2 or keep`);
    return value;
  },
  help: 'textures of a --compress export: WebP (default), KTX2, or as they are',
};
const out = (value, help) => ({ type: 'string', short: 'o', value, required: true, help });

/**
 * Every command: its operands, one line of what it does, and its options. An option is
 * `{ type: 'string' | 'boolean', short?, value? (its placeholder), required?, parse?(text), help }`.
 */
export const COMMANDS = {
  inspect: {
    summary: 'one record per file: counts, sequences, what it paired with',
    options: { json: { type: 'boolean', help: 'the records as JSON' } },
  },
  scene: {
    summary: 'the scene the viewer shows: characters, animations, textures, what was not used',
    options: { json: { type: 'boolean', help: 'the scene as JSON' }, lod: LOD },
  },
  convert: {
    summary: 'one GLB of the scene: skeletons, skins, clips, morphs, textures',
    options: {
      out: out('OUT.glb', 'the GLB to write'),
      clip: CLIP('export only this clip'),
      lod: LOD,
      compress: COMPRESS,
      textures: TEXTURES,
      mesh: MESH('only this mesh: its character’s name, or a package object’s Package.Group.Name (only it is decoded)'),
    },
  },
  page: {
    summary: 'the standalone page: player and files in one .html that opens from disk',
    options: {
      out: out('OUT.html', 'the page to write'),
      clip: CLIP('the clip the page opens at'),
      lod: LOD,
      compress: { type: 'boolean', help: 'carry the scene as one compressed GLB instead of its files (large characters)' },
      textures: TEXTURES,
      mesh: PACKAGE_MESH,
    },
  },
  bundle: {
    summary: 'the files the scene uses and the view in one .rigscope file',
    options: {
      out: out('OUT.rigscope', 'the bundle to write'),
      clip: CLIP('the clip it opens at'),
      frame: FRAME,
      lod: LOD,
      camera: CAMERA,
      up: UP,
      background: BACKGROUND,
      mesh: PACKAGE_MESH,
    },
  },
  poster: {
    summary: 'a PNG of the scene, drawn as the player draws it (needs Chromium)',
    options: {
      out: out('OUT.png', 'the PNG to write'),
      size: { type: 'string', value: 'WxH', parse: size(), help: 'picture size in pixels (default 640x480)' },
      clip: CLIP('the clip posed (default: the first clip)'),
      frame: FRAME,
      time: { type: 'string', value: 'S', parse: seconds, help: 'seconds into the clip (instead of --frame)' },
      lod: LOD,
      camera: CAMERA,
      background: BACKGROUND,
      transparent: { type: 'boolean', help: 'a transparent background (instead of --background)' },
      up: UP,
      more: {
        type: 'string',
        value: 'LIST.json',
        help: 'more posters in the same browser: a JSON list of { out, clip, frame, width, height, mesh, files } (files: other files to draw)',
      },
      mesh: PACKAGE_MESH,
    },
  },
  export: {
    operands: 'FOLDER|FILE...',
    summary: 'every character of every folder as its own GLB, with the folders’ layout',
    options: {
      out: out('OUTDIR', 'the folder to write into'),
      clip: CLIP('export only this clip'),
      lod: LOD,
      compress: COMPRESS,
      textures: TEXTURES,
      jobs: {
        type: 'string',
        value: 'N',
        parse: whole('--jobs', 'a whole number of threads', 1, 256),
        help: 'folders exported at once (default: every core)',
      },
      posters: { type: 'boolean', help: 'a PNG poster beside each GLB and an index.html gallery (needs Chromium)' },
      'poster-size': { type: 'string', value: 'WxH', parse: size('--poster-size'), help: 'each poster’s size in pixels (default 640x480)' },
      'skip-existing': { type: 'boolean', help: 'keep GLBs already written (pick up a stopped run)' },
      'dry-run': { type: 'boolean', help: 'say what would be written, write nothing' },
      json: { type: 'boolean', help: 'the summary as JSON' },
    },
  },
};

const flag = (name, o) => (o.short ? `-${o.short}` : `--${name}`);
const shown = (name, o) => `${flag(name, o)}${o.value ? ` ${o.value}` : ''}`;

/** `rigscope page FILE|FOLDER... -o OUT.html [--clip NAME] [--lod N|all]` */
export function usageLine(command) {
  const c = COMMANDS[command];
  const parts = Object.entries(c.options).map(([name, o]) => (o.required ? shown(name, o) : `[${shown(name, o)}]`));
  return `rigscope ${command} ${c.operands ?? 'FILE|FOLDER...'} ${parts.join(' ')}`;
}

/** `rigscope --help`: every command's usage and what it does. docs/cli.md quotes this text. */
export function overview() {
  const lines = [];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(usageLine(name), `    ${c.summary}`);
  lines.push('', 'rigscope COMMAND --help lists its options with their meaning; rigscope --version prints the version.');
  return lines.join('\n');
}

/** `rigscope COMMAND --help`: the usage line, then each option with one line of meaning. */
export function commandHelp(command) {
  const rows = Object.entries(COMMANDS[command].options).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}`,
    o.help,
  ]);
  rows.push(['-h, --help', 'this help']);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    `usage: ${usageLine(command)}`,
    '',
    COMMANDS[command].summary,
    '',
    'options:',
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`),
  ].join('\n');
}

/** Why parseArgs refused `args`, naming the option as it was typed. */
function refusal(command, args, options, err) {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const o = options[t.name];
    if (!o) return `${command} does not take ${t.rawName}`;
    if (o.type === 'string' && (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))) return `${t.rawName} needs a value`;
    if (o.type === 'boolean' && t.inlineValue) return `${t.rawName} takes no value`;
  }
  return err.message;
}

/**
 * `--camera -2,1,3,0,1,0` and `--lod -1` as `--camera=-2,…`: parseArgs takes a value that starts
 * with a dash for an option of its own, and negative numbers are common in cameras.
 */
function negativeValues(args, options) {
  const strings = new Set();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== 'string') continue;
    strings.add(`--${name}`);
    if (o.short) strings.add(`-${o.short}`);
  }
  const out = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return out.concat(args.slice(i));
    if (strings.has(args[i]) && /^-[\d.]/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

/**
 * Parses a command's arguments. Returns `{ help: true }` for --help, else `{ paths, options }`
 * with every option parsed (camelCased: `skip-existing` → `skipExisting`). Throws UsageError.
 * @param {string} command
 * @param {string[]} args
 */
export function parseCommand(command, args) {
  const spec = COMMANDS[command].options;
  const options = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(spec)) options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  let parsed;
  try {
    parsed = parseArgs({ args: negativeValues(args, options), options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(refusal(command, args, options, err), { cause: err });
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  for (const [name, o] of Object.entries(spec))
    if (o.required && values[name] === undefined) throw new UsageError(`${command} needs ${shown(name, o)}`);
  if (!positionals.length) throw new UsageError(`${command} needs ${COMMANDS[command].operands ?? 'FILE|FOLDER...'}`);
  const out = {};
  for (const [name, o] of Object.entries(spec)) {
    if (values[name] === undefined) continue;
    out[name.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = o.parse ? o.parse(values[name]) : values[name];
  }
  return { paths: positionals, options: out };
}
