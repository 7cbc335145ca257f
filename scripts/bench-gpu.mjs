// BENCH_ONLY=gpu: where the GPU process's time goes while each sample folder is dropped into the
// viewer, from a Chromium trace of the drop (until every character is on screen). Informative, no
// target: it says what bounds a folder's time in place (issue #31 item 3) on this machine. Under
// software GL (SwiftShader) the GPU process's main thread draws each frame in full when the page's
// compositor reads the frame back, so "drawing" is the frames' rasterization; "links" is shader
// compiling and linking, which is short there (SwiftShader compiles its own code for a program at
// its first draw, which counts as drawing).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../tests/e2e/server.js';
import { walk } from './bench-files.mjs';
import { launchChromium } from '../web/cli/chromium.js';

const root = new URL('..', import.meta.url).pathname;

/** Trace events of the GPU process's main thread, in ms: busy, drawing (frame readbacks), links. */
const DRAWING = 'ContextVk::finishImpl';
const LINKS = new Set(['Compile/Link (unlocked)', 'ShaderTranslateTask::run', 'GLES2DecoderPassthroughImpl::DoLinkProgram']);

/** The main thread of the GPU process in a trace: its events, outermost first where they nest. */
function gpuMainEvents(events) {
  const gpu = events.find((e) => e.ph === 'M' && e.name === 'process_name' && e.args.name === 'GPU Process')?.pid;
  const tid = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === gpu && e.args.name === 'CrGpuMain')?.tid;
  return events.filter((e) => e.ph === 'X' && e.pid === gpu && e.tid === tid && e.dur > 0).sort((a, b) => a.ts - b.ts);
}

/** Sum of durations of events not inside an earlier one of the list (each moment counted once). */
function outermostMs(list) {
  let end = -Infinity;
  let sum = 0;
  for (const e of list) {
    if (e.ts >= end) {
      sum += e.dur;
      end = e.ts + e.dur;
    } else if (e.ts + e.dur > end) {
      sum += e.ts + e.dur - end;
      end = e.ts + e.dur;
    }
  }
  return sum / 1000;
}

/** One traced drop of `files` into a fresh viewer page: the GPU main thread's time by kind. */
async function tracedDrop(browser, url, files) {
  const page = await browser.newPage({ viewport: { width: 960, height: 640 } });
  try {
    await page.goto(`${url}/?demo=0`);
    await page.waitForFunction(() => window.__rigscope?.ready === true, null, { timeout: 60000 });
    const loads = await page.evaluate(() => window.__rigscope.app.loads ?? 0);
    const cdp = await page.context().newCDPSession(page);
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', {
      traceConfig: { includedCategories: ['gpu', 'gpu.angle', 'toplevel', 'disabled-by-default-gpu.service'] },
      transferMode: 'ReportEvents',
    });
    const start = Date.now();
    await page.setInputFiles('#file-input', files);
    await page.waitForFunction((n) => (window.__rigscope.app.loads ?? 0) > n, loads, { timeout: 60000, polling: 50 });
    await page.evaluate(() => window.__rigscope.viewer.shown());
    const wallMs = Date.now() - start;
    await cdp.send('Tracing.end');
    await complete;
    const main = gpuMainEvents(events);
    const drawing = main.filter((e) => e.name === DRAWING);
    return {
      wallMs,
      busyMs: outermostMs(main),
      drawingMs: outermostMs(drawing),
      frames: drawing.length,
      longestFrameMs: Math.max(0, ...drawing.map((e) => e.dur / 1000)),
      linksMs: outermostMs(main.filter((e) => LINKS.has(e.name))),
    };
  } finally {
    await page.close();
  }
}

/** Every sample folder's traced drop, or null without ../shared/samples. */
export async function gpuBench({ folders = process.env.BENCH_FOLDERS?.split(','), log = () => {} } = {}) {
  const samples = join(root, '../shared/samples');
  let names;
  try {
    names = readdirSync(samples).filter((n) => statSync(join(samples, n)).isDirectory() && (!folders || folders.includes(n)));
  } catch {
    return null;
  }
  const { server, url } = await startServer(0, { site: 'build/bench-site/' });
  const browser = await launchChromium();
  const rows = [];
  try {
    for (const name of names) {
      log(`gpu: tracing a drop of samples/${name}`);
      const files = walk(join(samples, name));
      rows.push({ folder: name, files: files.length, ...(await tracedDrop(browser, url, files)) });
    }
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

export function printGpuBench(rows) {
  if (!rows) return console.log('no ../shared/samples');
  console.log("The GPU process's main thread while each sample folder is dropped, until it is on screen (one traced drop each)");
  console.table(
    rows.map((r) => ({
      folder: `samples/${r.folder} (${r.files} files)`,
      'drop ms': r.wallMs,
      'GPU busy ms': r.busyMs.toFixed(0),
      'drawing ms': r.drawingMs.toFixed(0),
      frames: r.frames,
      'longest frame ms': r.longestFrameMs.toFixed(0),
      'links ms': r.linksMs.toFixed(0),
    })),
  );
}
