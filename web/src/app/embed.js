// The iframe player: the page's parameters (file=, repo=, clip=, frame=, speed=, autoplay=, skeleton=,
// labels=, camera=, bg=, up=, lod=, controls=, poster=, environment=, exposure=) become one <rigscope-viewer>'s attributes, so
// the embed and the element behave alike: a clip chooser, fullscreen, labels off unless
// labels=1, notes for unknown clips and frames, and frames drawn only when something changes.
import '../element/index.js';
import { displayName } from '../core/files.js';
import { readParams } from './params.js';
import { exposePlayer } from './player-hook.js';

const DEMO = ['./demo/rigscope-demo.psk', './demo/rigscope-demo.psa'];

const $ = (id) => document.getElementById(id);
const params = readParams();
const query = new URLSearchParams(location.search);
const player = $('player');
$('open-full').href = `./index.html${location.search}${location.hash}`;
for (const problem of params.problems ?? [])
  $('errors').append(Object.assign(document.createElement('p'), { textContent: displayName(problem) }));

const files = params.files.length || !params.demo ? params.files : DEMO.map((u) => new URL(u, location.href).href);
const attributes = {
  clip: params.clip,
  frame: params.frame,
  speed: params.speed,
  // A packed link's own autoplay (in the pack) counts unless the query says otherwise.
  autoplay: params.autoplay && (params.packed === undefined || query.has('autoplay')) ? '' : undefined,
  skeleton: params.skeleton ? '' : undefined,
  labels: query.get('labels') === '1' ? '' : undefined,
  camera: params.camera?.join(','),
  background: params.bg,
  up: params.up?.join(','),
  lod: params.lod,
  mesh: params.mesh,
  controls: query.get('controls') ?? 'full',
  poster: query.get('poster') ?? undefined,
  // The element checks these and says what it cannot use: neutral | none | an image URL; a number.
  environment: query.get('environment') ?? undefined,
  exposure: query.get('exposure') ?? undefined,
};
for (const [name, value] of Object.entries(attributes)) if (value !== undefined) player.setAttribute(name, String(value));
// A repository folder (repo=) is one more token of the element's src (element/packed.js).
player.setAttribute('src', [...(params.repo ? [params.repo] : []), ...files].join(' '));
// A packed link (#pack=…) carries the files and the view in the fragment: the element unpacks it
// here, and its view fills what the query did not set.
if (params.packed !== undefined) player.setAttribute('packed', params.packed);

const ready = exposePlayer(player);
player.addEventListener('load', ready);
player.addEventListener('error', ready);
if (!files.length && !params.repo && params.packed === undefined) ready();
