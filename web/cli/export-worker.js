// One export thread: its own decoder; takes folders one at a time from the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { exportFolder } from './export.js';

const decoder = await loadNodeDecoders();
parentPort.on('message', async (unit) => {
  try {
    parentPort.postMessage({ summary: await exportFolder(unit, { ...workerData, decoder }) });
  } catch (err) {
    // A folder that cannot be exported at all is named in the summary; the run goes on.
    parentPort.postMessage({ failed: { folder: unit.dir, error: err.message } });
  }
});
parentPort.postMessage({ ready: true });
