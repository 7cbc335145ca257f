// The one-script-tag element of the built site: dist/rigscope-viewer.js. Its decoder worker is
// named here so that pages on other origins can start it too (see workerFromUrl in pool.js).
import workerUrl from './src/decoder/worker.js?worker&url';
import { configureSharedPool } from './src/decoder/pool.js';
import './src/element/index.js';

configureSharedPool({ workerUrl: new URL(workerUrl, import.meta.url).href });
