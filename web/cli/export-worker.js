// One export thread: its own decoder; takes folders one at a time from the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { exportFolder } from './export.js';

const decoder = await loadNodeDecoders();
// V8 collects lazily, so a thread's heap would keep every finished folder's garbage until it is
// large: collecting once the heap has grown by 4 MB since the last collection keeps memory near
// the largest folder's, not the tree's (bench: 16 MB gave 1.52x the largest folder's peak RSS,
// 4 MB 1.31-1.37x at about a tenth more time, 1 MB 1.22x at half more time).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const held = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const GROWTH = 4e6;
let settled = held();
function collectIfGrown() {
  if (held() < settled + GROWTH) return;
  gc();
  settled = held();
}
parentPort.on('message', async (unit) => {
  try {
    parentPort.postMessage({ summary: await exportFolder(unit, { ...workerData, decoder }) });
    collectIfGrown();
  } catch (err) {
    // A folder that cannot be exported at all is named in the summary; the run goes on.
    parentPort.postMessage({ failed: { folder: unit.dir, error: err.message } });
  }
});
parentPort.postMessage({ ready: true });
