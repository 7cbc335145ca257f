#!/usr/bin/env node
// rigscope inspect FILE|FOLDER... [--json]
// rigscope scene FILE|FOLDER... [--json] [--lod N|all]
// rigscope convert FILE|FOLDER... -o out.glb [--clip NAME] [--lod N|all]
// rigscope page FILE|FOLDER... -o page.html [--clip NAME] [--lod N|all]
// rigscope export FOLDER|FILE... -o OUTDIR [--clip NAME] [--lod N|all] [--jobs N] [--skip-existing] [--dry-run] [--json]
import { loadNodeDecoders } from '../src/decoder/node.js';
import { entriesFromPaths } from './entries.js';
import { formatText, inspect } from './inspect.js';
import { lodFromText } from '../src/core/lod.js';

const USAGE = `usage: rigscope inspect FILE|FOLDER... [--json]
       rigscope scene FILE|FOLDER... [--json] [--lod N|all]
       rigscope convert FILE|FOLDER... -o OUT.glb [--clip NAME] [--lod N|all]
       rigscope page FILE|FOLDER... -o OUT.html [--clip NAME] [--lod N|all]
       rigscope export FOLDER|FILE... -o OUTDIR [--clip NAME] [--lod N|all] [--jobs N] [--skip-existing] [--dry-run] [--json]`;

/** `--lod N|all`: the level of detail of parts that have levels (0, the finest, when not given). */
function parseLod(value) {
  if (value === undefined) return 0;
  const lod = lodFromText(value);
  if (lod === null) throw new Error(`--lod ${value}: a level number (0 is the finest) or all`);
  return lod;
}

/** Splits arguments into paths and options; `takes` lists options that take a value. */
export function parseArgs(args, takes = []) {
  const paths = [],
    options = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (takes.includes(a)) {
      if (i + 1 >= args.length) throw new Error(`${a} needs a value\n${USAGE}`);
      options[a] = args[++i];
    } else if (a.startsWith('--') && a !== '--') options[a] = true;
    else paths.push(a);
  }
  if (!paths.length) throw new Error(USAGE);
  return { paths, options };
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'inspect') {
    const { paths, options } = parseArgs(rest);
    const decoder = await loadNodeDecoders();
    const { records } = await inspect(await entriesFromPaths(paths), decoder, { layout: false });
    process.stdout.write(`${options['--json'] ? JSON.stringify(records, null, 2) : formatText(records)}\n`);
    const failed = records.filter((r) => r.error);
    for (const r of failed) process.stderr.write(`rigscope: ${r.file}: ${r.error}\n`);
    return failed.length ? 1 : 0;
  }
  if (command === 'scene') {
    const { paths, options } = parseArgs(rest, ['--lod']);
    const lod = parseLod(options['--lod']);
    const { formatScene, sceneToJSON } = await import('./scene.js');
    const decoder = await loadNodeDecoders();
    const { scene } = await inspect(await entriesFromPaths(paths), decoder, { lod });
    const json = sceneToJSON(scene);
    process.stdout.write(`${options['--json'] ? JSON.stringify(json, null, 2) : formatScene(json)}\n`);
    return json.refused.length ? 1 : 0;
  }
  if (command === 'convert') {
    const { paths, options } = parseArgs(rest, ['-o', '--clip', '--lod']);
    if (!options['-o']) throw new Error(`convert needs -o OUT.glb\n${USAGE}`);
    const lod = parseLod(options['--lod']);
    const { convert } = await import('./convert.js');
    return convert(paths, { out: options['-o'], clip: options['--clip'], lod });
  }
  if (command === 'page') {
    // A bad command line exits 2 with the usage; a file that cannot be used exits 1.
    const { page, UsageError } = await import('./page.js');
    try {
      const { paths, options } = (() => {
        try {
          return parseArgs(rest, ['-o', '--clip', '--lod']);
        } catch (err) {
          throw new UsageError(err.message);
        }
      })();
      const unknown = Object.keys(options).filter((k) => !['-o', '--clip', '--lod'].includes(k));
      if (unknown.length) throw new UsageError(`page does not take ${unknown.join(', ')}`);
      if (!options['-o']) throw new UsageError('page needs -o OUT.html');
      const lod = (() => {
        try {
          return parseLod(options['--lod']);
        } catch (err) {
          throw new UsageError(err.message);
        }
      })();
      return await page(paths, { out: options['-o'], clip: options['--clip'], lod });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`rigscope: ${err.message}${err.message.includes('usage:') ? '' : `\n${USAGE}`}\n`);
      return 2;
    }
  }
  if (command === 'export') return exportMain(rest);
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

/** `rigscope export`: a bad command line exits 2 with the usage, before anything is read. */
async function exportMain(rest) {
  const usage = (message) => {
    process.stderr.write(`rigscope: ${message}${message.includes('usage:') ? '' : `\n${USAGE}`}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs(rest, ['-o', '--clip', '--jobs', '--lod']);
  } catch (err) {
    return usage(err.message);
  }
  const { paths, options } = parsed;
  const known = ['-o', '--clip', '--jobs', '--lod', '--skip-existing', '--dry-run', '--json'];
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) return usage(`export does not take ${unknown.join(', ')}`);
  if (!options['-o']) return usage('export needs -o OUTDIR');
  let lod;
  try {
    lod = parseLod(options['--lod']);
  } catch (err) {
    return usage(err.message);
  }
  const { availableParallelism } = await import('node:os');
  const jobs = options['--jobs'] === undefined ? availableParallelism() : Number(options['--jobs']);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256)
    return usage(`--jobs ${options['--jobs']}: a whole number of threads from 1 to 256`);
  const { existsSync } = await import('node:fs');
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length) return usage(`no such file or folder: ${missing.join(', ')}`);
  const { exportCommand } = await import('./export.js');
  return exportCommand(paths, {
    out: options['-o'],
    clip: options['--clip'],
    lod,
    jobs,
    skipExisting: !!options['--skip-existing'],
    dryRun: !!options['--dry-run'],
    json: !!options['--json'],
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`rigscope: ${err.message}\n`);
    process.exitCode = 1;
  },
);
