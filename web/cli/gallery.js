// The gallery `rigscope export --posters` writes as OUTDIR/index.html: every character exported,
// with its poster, name, clips, source folder and a link to its GLB. One static file with no
// script, whose links are relative, so the folder works opened from disk (file://) and copied to
// any static host alike. Every name in it comes from files and is HTML-escaped.
import { sep } from 'node:path';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and quoted attribute values. */
export const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A path relative to OUTDIR as a relative URL: each folder and name percent-encoded ('#', '?', spaces). */
export const relativeUrl = (path) => path.split(sep).join('/').split('/').map(encodeURIComponent).join('/');

const STYLE = `
body { margin: 0; padding: 16px 20px; background: #1b1d23; color: #e8eaf0; font: 14px/1.4 system-ui, sans-serif; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 24px 0 8px; color: #9cc4ff; overflow-wrap: anywhere; }
p.about { margin: 0; opacity: .75; }
ul.cards { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 12px; }
li { background: #23262e; border: 1px solid #353a44; border-radius: 6px; overflow: hidden; }
li img { display: block; width: 100%; height: auto; background: #23262e; }
li .none { display: grid; place-items: center; aspect-ratio: 4 / 3; opacity: .6; }
li .text { padding: 8px 10px; }
li .name { font-weight: 600; overflow-wrap: anywhere; }
li .clips, li .source { font-size: 12px; opacity: .8; overflow-wrap: anywhere; }
a { color: #9cc4ff; }
`;

/** One character's card: its poster (a link to its GLB), name, clips and source folder. */
function card(folder, c) {
  const glb = relativeUrl(c.file);
  const picture = c.poster
    ? `<img src="${escapeHtml(relativeUrl(c.poster))}" width="${c.posterSize.width}" height="${c.posterSize.height}" alt="${escapeHtml(c.name)}">`
    : `<span class="none">no poster</span>`;
  const clips = c.clips.length ? `${c.clips.length} clip(s): ${c.clips.map(escapeHtml).join(', ')}` : 'no clips';
  return `<li><a href="${escapeHtml(glb)}">${picture}</a><div class="text">
<div class="name"><a href="${escapeHtml(glb)}">${escapeHtml(c.name)}</a></div>
<div class="clips">${clips}</div>
<div class="source">from ${escapeHtml(folder.folder)}</div>
</div></li>`;
}

/**
 * The gallery page of an export's result (runExport's): a section per folder that has characters
 * with a GLB (written now, or kept by --skip-existing).
 */
export function galleryPage(result) {
  const sections = [];
  let count = 0;
  for (const f of result.folders) {
    const shown = f.characters.filter((c) => c.status === 'written' || c.status === 'skipped');
    if (!shown.length) continue;
    count += shown.length;
    sections.push(
      `<section><h2>${escapeHtml(f.out)}</h2>\n<ul class="cards">\n${shown.map((c) => card(f, c)).join('\n')}\n</ul></section>`,
    );
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Rigscope export">
<title>Rigscope export: ${count} character(s)</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Rigscope export</h1>
<p class="about">${count} character(s) in ${sections.length} folder(s). Each poster links to its GLB.</p>
${sections.join('\n')}
</body>
</html>
`;
}
