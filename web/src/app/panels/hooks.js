// What scripts outside the page may read: `window.rigscope.snapshot()` for host pages, and a small
// test surface (`window.__rigscope`) so browser tests need not scrape the UI.
import { describeRecord } from '../../core/report.js';
import { buildQuery, currentState } from '../params.js';
import { fileSources } from './share.js';

export function hooks({ app, viewer }) {
  window.rigscope = Object.freeze({ snapshot: () => app.snapshot() });
  window.__rigscope = {
    app,
    viewer,
    ready: false,
    pixels: () => {
      const r = viewer.countForegroundPixels();
      delete r.pixels;
      return r;
    },
    setTime: (t) => app.setTime(t),
    pause: () => app.pause(),
    clipNames: () => app.allClips.map((c) => c.clip.name),
    reportLines: () => (app.reports.at(-1)?.records ?? []).map((r) => describeRecord(r)),
    shareQuery: () => buildQuery(currentState(app, viewer, fileSources(app).urls)),
  };
}
