#!/usr/bin/env node
// rigscope COMMAND FILE|FOLDER... [options]: `rigscope --help` lists the commands and
// `rigscope COMMAND --help` a command's options (web/cli/commands.js holds them all).
// Exit status: 0 when everything given was used, 1 when something was not (named on stderr),
// 2 for a bad command line (the reason and the command's usage on stderr).
import { readFileSync } from 'node:fs';
import { COMMANDS, commandHelp, overview, parseCommand, usageLine } from './commands.js';
import { UsageError } from './usage.js';

/** Each command's work, loaded only when it runs. Returns the exit status. */
const RUN = {
  async inspect(paths, { json }) {
    const [{ loadNodeDecoders }, { entriesFromPaths }, { formatText, inspect }] = await Promise.all([
      import('../src/decoder/node.js'),
      import('./entries.js'),
      import('./inspect.js'),
    ]);
    const decoder = await loadNodeDecoders();
    const { records } = await inspect(await entriesFromPaths(paths), decoder, { layout: false });
    process.stdout.write(`${json ? JSON.stringify(records, null, 2) : formatText(records)}\n`);
    const failed = records.filter((r) => r.error);
    for (const r of failed) process.stderr.write(`rigscope: ${r.file}: ${r.error}\n`);
    return failed.length ? 1 : 0;
  },
  async scene(paths, { json, lod = 0 }) {
    const [{ loadNodeDecoders }, { entriesFromPaths }, { inspect }, { formatScene, sceneToJSON }] = await Promise.all([
      import('../src/decoder/node.js'),
      import('./entries.js'),
      import('./inspect.js'),
      import('./scene.js'),
    ]);
    const decoder = await loadNodeDecoders();
    const { scene } = await inspect(await entriesFromPaths(paths), decoder, { lod });
    const record = sceneToJSON(scene);
    process.stdout.write(`${json ? JSON.stringify(record, null, 2) : formatScene(record)}\n`);
    return record.refused.length ? 1 : 0;
  },
  async convert(paths, { out, clip, mesh, lod = 0, compress = false, textures }) {
    if (textures && !compress) throw new UsageError('--textures goes with --compress');
    const { convert } = await import('./convert.js');
    return convert(paths, { out, clip, mesh, lod, compress, textures });
  },
  async page(paths, { out, clip, mesh, lod = 0, compress = false, textures }) {
    if (textures && !compress) throw new UsageError('--textures goes with --compress');
    if (mesh && compress) throw new UsageError('--mesh goes without --compress (convert --mesh makes that GLB)');
    const { page } = await import('./page.js');
    return page(paths, { out, clip, mesh, lod, compress, textures });
  },
  async bundle(paths, options) {
    const { bundle } = await import('./bundle.js');
    return bundle(paths, { lod: 0, ...options });
  },
  async poster(paths, { size = { width: 640, height: 480 }, ...options }) {
    // poster.js's posterOptions checks what goes together (--frame or --time, a background or none).
    const { poster } = await import('./poster.js');
    return poster(paths, { lod: 0, ...size, ...options });
  },
  async export(paths, { jobs, lod = 0, ...options }) {
    if (options.textures && !options.compress) throw new UsageError('--textures goes with --compress');
    if (options.posterSize && !options.posters) throw new UsageError('--poster-size goes with --posters');
    const [{ existsSync }, { availableParallelism }] = await Promise.all([import('node:fs'), import('node:os')]);
    const missing = paths.filter((p) => !existsSync(p) && !/^https?:\/\//i.test(p)); // a folder address is fetched (entries.js)
    if (missing.length) throw new UsageError(`no such file or folder: ${missing.join(', ')}`);
    const { exportCommand } = await import('./export.js');
    return exportCommand(paths, {
      ...options,
      lod,
      jobs: jobs ?? availableParallelism(),
      skipExisting: !!options.skipExisting,
      dryRun: !!options.dryRun,
      json: !!options.json,
      posters: !!options.posters,
      compress: !!options.compress,
      textures: options.textures,
    });
  },
};

function version() {
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
}

/** A bad command line: the reason, then the command's usage (or every command's). */
function refuse(message, command) {
  const usage = command ? `usage: ${usageLine(command)}\n(rigscope ${command} --help lists its options)` : overview();
  process.stderr.write(`rigscope: ${message}\n${usage}\n`);
  return 2;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${rest.length && COMMANDS[rest[0]] ? commandHelp(rest[0]) : overview()}\n`);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`rigscope ${version()}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command ?? '')) return refuse(command ? `no command ${command}` : 'which command?');
  try {
    const parsed = parseCommand(command, rest);
    if (parsed.help) {
      process.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    const code = await RUN[command](parsed.paths, parsed.options);
    // A repository folder listed or fetched only in part (said on stderr as it was read): not everything given was used.
    const { incompleteRepo } = await import('./entries.js');
    return code === 0 && incompleteRepo() ? 1 : code;
  } catch (err) {
    if (err instanceof UsageError) return refuse(err.message, command);
    throw err;
  }
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
