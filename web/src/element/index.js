// `import 'rigscope/viewer'` (or the built site's rigscope-viewer.js) defines <rigscope-viewer>.
import { RigscopeViewer } from './element.js';

if (!customElements.get('rigscope-viewer')) customElements.define('rigscope-viewer', RigscopeViewer);

export { RigscopeViewer };
export { configureSharedPool } from '../decoder/pool.js';
