// @ts-check
// The decoder host of a three.js loader in the browser (`#decoder-host`; Node's is node-pool.js):
// a worker pool that lends its idle workers to the next loader and answers small files on the
// page's thread (direct.js). A module of its own, so that the page-thread decoder and its glue
// stay out of what imports only the pool (<rigscope-viewer>, the standalone page).
import { pageThread } from './direct.js';
import { DecoderPool } from './pool.js';

/** @param {ConstructorParameters<typeof DecoderPool>[0]} [options] */
export const createDecoderHost = (options) => new DecoderPool({ ...options, lendIdle: true, direct: pageThread });
