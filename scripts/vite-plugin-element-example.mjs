// dist/rigscope-viewer-example.html: every <rigscope-viewer> attribute at work, each with a short
// caption, on the demo model (web/public/demo) and one fixture of each family from the project's
// own writers (build/fixtures, copied to dist/example/). The page loads the site's one-script-tag
// element, as a page on another site would.
import { existsSync, readFileSync } from 'node:fs';

const FIXTURES = new URL('../build/fixtures/', import.meta.url);

/** The fixtures the page shows, by family. */
const FAMILY_FILES = {
  'Unreal PSK + PSA': ['two_bone.psk', 'two_bone.psa'],
  '0 A.D. PMD + PSA': ['arm.pmd', 'arm_wave.psa'],
  'Unreal Engine 1 _d.3d + _a.3d + .uc': ['flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'],
  'Skate 3 PSG': ['skinned_box.psg'],
};

const DEMO = './demo/rigscope-demo.psk ./demo/rigscope-demo.psa';

/** A part exported at three levels of detail (FModel's _LOD0.._LOD2), for the lod attribute. */
const LEVELS = ['SK_Goblin_Torso_LOD0.psk', 'SK_Goblin_Torso_LOD1.psk', 'SK_Goblin_Torso_LOD2.psk'];
const LEVELS_DIR = 'lod_export/fmodel/Characters/Goblin/';

/** [attributes, caption]: each figure shows one attribute (the demo model unless src says otherwise). */
const EXAMPLES = [
  ['', 'Only <code>src</code>: the files, space-separated (a mesh and its animations, textures, scripts).'],
  ['clip="Wave" frame="20"', '<code>clip</code> and <code>frame</code>: a clip by name, held at a frame.'],
  ['clip="Walk" autoplay', '<code>autoplay</code>: plays on load (not for readers who asked for reduced motion).'],
  ['clip="Walk" autoplay speed="0.25"', '<code>speed</code>: a quarter of the clip’s own rate.'],
  ['camera="-260,140,260,0,100,0"', '<code>camera</code>: <code>px,py,pz,tx,ty,tz</code>, the eye and what it looks at.'],
  ['background="#2f4858"', '<code>background</code>: <code>RRGGBB</code> or any CSS colour.'],
  ['skeleton', '<code>skeleton</code>: the bones drawn over the model.'],
  ['labels', '<code>labels</code>: prop and socket names, where the model has them.'],
  ['controls="full"', '<code>controls="full"</code>: also the frame number and fullscreen.'],
  ['controls="none"', '<code>controls="none"</code>: the view alone (drag to turn, wheel to zoom).'],
  ['up="0,90,0"', '<code>up</code>: <code>y</code>, <code>z</code> (a Z-up source stood up) or quarter turns <code>X,Y,Z</code>.'],
  ['poster="./screenshot.png" src=""', '<code>poster</code>: a picture shown until a model is drawn (here no <code>src</code> is set).'],
  ['alt="A figure waving"', '<code>alt</code>: the text a screen reader says for the view.'],
  ['environment="none"', '<code>environment="none"</code>: direct lights only, no room to reflect.'],
  ['environment="neutral"', '<code>environment="neutral"</code> (the default): a soft room lights and is reflected.'],
  ['exposure="1.8"', '<code>exposure</code>: brighter (above 1) or darker (below).'],
  ['shadow="false"', '<code>shadow="false"</code>: no contact shadow on the ground.'],
  [
    `src="${LEVELS.map((f) => `./example/${f}`).join(' ')}" lod="2"`,
    '<code>lod</code>: the level of detail shown of a part exported with levels (0 the finest, or <code>all</code>).',
  ],
];

function page() {
  const figure = (attrs, caption, src = DEMO) =>
    `<figure><rigscope-viewer ${/\bsrc=/.test(attrs) ? '' : `src="${src}" `}${attrs}></rigscope-viewer>` +
    `<figcaption>${attrs ? `<code>${attrs.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</code><br>` : ''}${caption}</figcaption></figure>`;
  const families = Object.entries(FAMILY_FILES).map(([family, files]) =>
    figure('autoplay', family, files.map((f) => `./example/${f}`).join(' ')),
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>&lt;rigscope-viewer&gt; examples</title>
<script type="module" src="./rigscope-viewer.js"></script>
<style>
body { margin: 0 auto; max-width: 1100px; padding: 16px; font: 15px/1.45 system-ui, sans-serif; color: #1d2026; background: #f6f7f9; }
h1 { font-size: 1.5em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.4em 0 .5em; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #d9dce3; border-radius: 6px; overflow: hidden; }
rigscope-viewer { display: block; width: 100%; height: 240px; }
figcaption { padding: 8px 10px; font-size: 14px; } code { font-size: 13px; background: #eef0f4; padding: 0 3px; border-radius: 3px; }
</style>
</head>
<body>
<main>
<h1>&lt;rigscope-viewer&gt;: each attribute</h1>
<p>One script tag (<code>&lt;script type="module" src="rigscope-viewer.js"&gt;&lt;/script&gt;</code>) defines the element.
Every viewer below shares one WebGL context and one decoder pool, loads when scrolled near and draws only when something changes.</p>
<h2>One character of each family</h2>
<div class="grid">
${families.join('\n')}
</div>
<h2>Attributes</h2>
<div class="grid">
${EXAMPLES.map(([attrs, caption]) => figure(attrs, caption)).join('\n')}
</div>
</main>
</body>
</html>
`;
}

export function elementExamplePage() {
  return {
    name: 'rigscope-element-example',
    apply: 'build',
    generateBundle() {
      const files = [...Object.values(FAMILY_FILES).flat(), ...LEVELS.map((f) => `${LEVELS_DIR}${f}`)];
      const missing = files.filter((f) => !existsSync(new URL(f, FIXTURES)));
      if (missing.length) this.error(`rigscope-viewer-example.html needs build/fixtures/${missing.join(', ')}: run scripts/build.sh`);
      for (const f of files)
        this.emitFile({ type: 'asset', fileName: `example/${f.split('/').pop()}`, source: readFileSync(new URL(f, FIXTURES)) });
      this.emitFile({ type: 'asset', fileName: 'rigscope-viewer-example.html', source: page() });
    },
  };
}
