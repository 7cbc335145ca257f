#!/usr/bin/env node
// rigscope inspect FILE... [--json]
// rigscope convert FILE... -o out.glb
import { readFile } from 'node:fs/promises';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { entryFromBytes } from '../src/core/files.js';
import { formatText, inspect } from './inspect.js';

const USAGE = `usage: rigscope inspect FILE... [--json]
       rigscope convert FILE... -o OUT.glb [--clip NAME]`;

async function readEntries(paths) {
  return Promise.all(paths.map(async (p) => entryFromBytes(p, await readFile(p))));
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'inspect') {
    const json = rest.includes('--json');
    const files = rest.filter((a) => a !== '--json');
    if (!files.length) throw new Error(USAGE);
    const decoder = await loadNodeDecoders();
    const records = await inspect(await readEntries(files), decoder);
    if (json) process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
    else process.stdout.write(`${formatText(records)}\n`);
    const failed = records.filter((r) => r.error);
    for (const r of failed) process.stderr.write(`rigscope: ${r.file}: ${r.error}\n`);
    return failed.length ? 1 : 0;
  }
  if (command === 'convert') {
    const { convert } = await import('./convert.js');
    return convert(rest);
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(`rigscope: ${err.message}\n`);
  process.exitCode = 1;
});
