// The standalone page: the player's template (scripts/build-standalone.mjs) with one scene's packed
// form (core/pack.js) appended. The viewer's *Save page* and `rigscope page` both write it here, so
// the two files are the same for the same files and view. No DOM: pages and Node alike.
import { toBase64Url } from './pack.js';

/** The tag the template's player reads the scene from. */
export const PACK_TAG = 'rigscope-pack';
/** What every template carries (and what a page fetched by mistake, e.g. a 404 page, lacks). */
const TEMPLATE_MARK = '<meta name="generator" content="Rigscope standalone page">';

/** Throws unless `template` is the standalone player's template without a scene in it yet. */
export function checkTemplate(template, where = 'the page template') {
  if (typeof template !== 'string' || !template.includes(TEMPLATE_MARK))
    throw new Error(`${where} is not Rigscope's standalone page template`);
  if (template.includes(`id="${PACK_TAG}"`)) throw new Error(`${where} already holds a scene`);
}

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The page for one packed scene (packScene's bytes). base64url has no '<', so the payload cannot
 * end its <script> early. `title`: what the page is of (the character it opens on, its hero, not
 * the first file read), written into its <title> as text, so tabs and bookmarks name it before
 * the player runs.
 * @param {string} template
 * @param {Uint8Array} payload
 * @param {{ title?: string }} [options]
 */
export function standalonePage(template, payload, { title } = {}) {
  checkTemplate(template);
  const named = title ? template.replace('<title>Rigscope</title>', `<title>${pageTitle(title)}</title>`) : template;
  return `${named}<script type="application/octet-stream" id="${PACK_TAG}">${toBase64Url(payload)}</script>\n`;
}

/** "UMSMarine_d.3d — Rigscope", as markup-safe text (a name from a file is hostile). */
export function pageTitle(name) {
  return `${String(name).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])} — Rigscope`;
}

/** The character a page of these characters opens on and is named after: the hero (core/layout.js), else the first. */
export const titleCharacter = (characters) => characters.find((c) => c.hero ?? c.scene?.hero) ?? characters[0];

/**
 * A file name for the page (or, given another extension, a bundle) from a character's (or file's)
 * name: no path, no reserved characters.
 */
export function pageFileName(name, ext = '.html') {
  const base = String(name ?? '')
    .replace(/\.[^./]*$/, '')
    .replace(/[\\/:*?"<>|\p{Cc}\p{Cf}]+/gu, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 100);
  return `${base || 'rigscope'}${ext}`;
}
