// `rigscope convert FILE... -o out.glb`: the viewer's GLB export from the command line.
import { readFile, writeFile } from 'node:fs/promises';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { entryFromBytes } from '../src/core/files.js';
import { loadFileSet } from '../src/core/fileset.js';

// GLTFExporter reads its Blob through FileReader, which Node lacks.
globalThis.FileReader ??= class {
  readAsArrayBuffer(blob) { blob.arrayBuffer().then((b) => { this.result = b; this.onloadend?.(); }); }
  readAsDataURL(blob) { blob.arrayBuffer().then((b) => { this.result = `data:${blob.type || 'application/octet-stream'};base64,${Buffer.from(b).toString('base64')}`; this.onloadend?.(); }); }
};

export async function convert(args) {
  const o = args.indexOf('-o');
  if (o < 0 || !args[o + 1]) throw new Error('usage: rigscope convert FILE... -o OUT.glb');
  const out = args[o + 1];
  const files = args.filter((_, i) => i !== o && i !== o + 1);
  const { Character } = await import('../src/three/character.js');
  const { exportGLB } = await import('../src/three/export.js');
  const decoder = await loadNodeDecoders();
  const entries = await Promise.all(files.map(async (p) => entryFromBytes(p, await readFile(p))));
  const set = await loadFileSet(entries, decoder);
  for (const r of set.report.refused) process.stderr.write(`rigscope: ${r.file}: ${r.reason}\n`);
  if (!set.models.length) throw new Error('nothing to convert: no mesh among the files');
  const characters = [];
  for (const model of set.models) {
    const host = characters.find((c) => c.canShare(model));
    if (host) host.addPart(model);
    else characters.push(new Character(model));
  }
  for (const anim of set.animations) {
    for (const c of characters) {
      if (!c.bones.length || (anim.format === 'pssa') !== (c.models[0].format === 'pmd')) continue;
      const r = c.addAnimation(anim);
      if (r.error) process.stderr.write(`rigscope: ${r.error}\n`);
    }
  }
  const glb = await exportGLB(characters);
  await writeFile(out, Buffer.from(glb));
  const clips = characters.reduce((n, c) => n + c.clips.length, 0);
  process.stdout.write(`${out}: ${glb.byteLength} bytes, ${characters.length} model(s), ${clips} clip(s)\n`);
  return set.report.refused.length ? 1 : 0;
}
