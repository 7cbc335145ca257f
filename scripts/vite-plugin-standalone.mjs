// Serves and emits the standalone page's template as the site's rigscope-page.html, which *Save
// page* fetches: built fresh by `vite build` (into the site's root) and on the first request in
// the dev server, from the same sources as build/standalone/ (scripts/build-standalone.mjs).
import { buildStandaloneTemplate } from './build-standalone.mjs';

export const TEMPLATE_FILE = 'rigscope-page.html';

export function standalonePageTemplate() {
  let served = null; // dev server: built once per server start
  return {
    name: 'rigscope-standalone-page-template',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        if (new URL(req.url ?? '/', 'http://x').pathname !== `${server.config.base}${TEMPLATE_FILE}`) return next();
        try {
          served ??= buildStandaloneTemplate();
          const html = await served;
          res.setHeader('Content-Type', 'text/html');
          res.end(html);
        } catch (err) {
          served = null;
          next(err);
        }
      });
    },
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName: TEMPLATE_FILE, source: await buildStandaloneTemplate() });
    },
  };
}
