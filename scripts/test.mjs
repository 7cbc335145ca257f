// Runs every suite — native (ctest), unit (Vitest in Node), browser (Vitest + Playwright +
// Debian Chromium), short fuzz runs — and ends with one plain "N passed, N failed" line.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
mkdirSync(`${root}build`, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
/** Wall time of every test file and every other check, for the slowest-five list at the end. */
const timings = [];
/** Every failed test's name and first message line, printed beside the totals so a CI log's tail names them. */
const failures = [];
const started = Date.now();

/**
 * Runs a command to its end; resolves to { stdout, status, seconds }. Its output goes on as it
 * comes, or, with `hold` (a command run beside another), whole when it ends, so the lines of two
 * commands do not mix.
 */
function run(cmd, args, { hold = false } = {}) {
  const t0 = Date.now();
  const head = `\n$ ${cmd} ${args.join(' ')}\n`;
  if (!hold) process.stdout.write(head);
  const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', hold ? 'pipe' : 'inherit'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
    if (!hold) process.stdout.write(d);
  });
  child.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    const end = (status, error) => {
      if (hold) process.stdout.write(head + stdout);
      process.stderr.write(stderr + (error ? `${cmd}: ${error.message}\n` : ''));
      resolve({ stdout, status, seconds: (Date.now() - t0) / 1000 });
    };
    child.on('error', (error) => end(null, error));
    child.on('close', (status) => end(status));
  });
}

function suite(name, passed, failed, skipped = 0) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  lines.push(`${name}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
}

// Native: GoogleTest through ctest.
function native(r) {
  timings.push(['native (ctest)', r.seconds]);
  const m = /(\d+)% tests passed, (\d+) tests? failed out of (\d+)/.exec(r.stdout ?? '');
  if (m) {
    const failed = Number(m[2]);
    const skipped = (r.stdout.match(/\*\*\*Skipped/g) ?? []).length;
    suite('native', Number(m[3]) - failed - skipped, failed, skipped);
  } else suite('native', 0, 1);
}

const firstLine = (text) =>
  stripVTControlCharacters(String(text ?? ''))
    .split('\n')[0]
    .slice(0, 300);

const runVitest = (config, out, options) =>
  run('npx', ['vitest', 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], options);

/** Counts a Vitest run `r` (its JSON report in `out`) as suite `name`. */
function vitest(name, out, r) {
  if (!existsSync(`${root}${out}`)) return suite(name, 0, 1);
  const j = JSON.parse(readFileSync(`${root}${out}`, 'utf8'));
  // A file's time as the default reporter prints it ("✓ tests/e2e/x.test.js (8 tests) 119773ms"),
  // which counts its beforeAll and afterAll too; the JSON's start and end count only its tests.
  // CI may force colours, so the escapes go first.
  for (const m of stripVTControlCharacters(r.stdout ?? '').matchAll(/^ +[✓❯×↓] (\S+\.test\.[jt]s) \(.*?\) (\d+)ms$/gm))
    timings.push([m[1], Number(m[2]) / 1000]);
  console.log(`${name}: ${r.seconds.toFixed(0)} s`);
  // A suite that fails to load counts as a failure even when it ran no test.
  const brokenFiles = j.testResults.filter((t) => t.status === 'failed' && t.assertionResults.length === 0).length;
  for (const file of j.testResults) {
    const relative = file.name.replace(root, '');
    if (file.status === 'failed' && file.assertionResults.length === 0) failures.push(`${relative}: ${firstLine(file.message)}`);
    for (const t of file.assertionResults.filter((a) => a.status === 'failed'))
      failures.push(`${relative} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
  }
  suite(name, j.numPassedTests, j.numFailedTests + brokenFiles, j.numPendingTests + j.numTodoTests);
  if (r.status !== 0 && j.numFailedTests + brokenFiles === 0) suite(`${name} (runner)`, 0, 1);
}

/** A check that passes or fails by its exit status. */
function check(name, r) {
  timings.push([name, r.seconds]);
  suite(name, r.status === 0 ? 1 : 0, r.status === 0 ? 0 : 1);
}

/** A check whose last line says "<what>: N passed, N failed". */
function counted(name, what, r) {
  timings.push([name, r.seconds]);
  const m = new RegExp(`${what}: (\\d+) passed, (\\d+) failed`).exec(r.stdout ?? '');
  if (m) suite(name, Number(m[1]), Number(m[2]));
  else suite(name, 0, 1);
}

native(await run('ctest', ['--test-dir', 'build/native', '--output-on-failure', '-j2']));
vitest('unit', 'build/vitest-unit.json', await runVitest('vite.config.ts', 'build/vitest-unit.json'));
vitest('browser', 'build/vitest-e2e.json', await runVitest('tests/e2e/vitest.config.js', 'build/vitest-e2e.json'));

// Side by side, one core each (these use about one): the packed package in a fresh app (Vite
// build, Chromium and Node: tests/consumer), and the lints one after another: ESLint over web/,
// tests/, scripts/ and integrations/ (eslint.config.js); Prettier over the same tree
// (.prettierrc.json; `npx prettier --write web tests scripts integrations` fixes it); clang-format
// and clang-tidy over wasm/ (scripts/lint-cpp.sh, two checks).
const lints = async () => [
  await run('npx', ['eslint', '--max-warnings=0', 'web', 'tests', 'scripts', 'integrations'], { hold: true }),
  await run('npx', ['prettier', '--check', 'web', 'tests', 'scripts', 'integrations'], { hold: true }),
  await run('bash', ['scripts/lint-cpp.sh'], { hold: true }),
];
const [consumer, [eslint, prettier, cpp]] = await Promise.all([
  runVitest('tests/consumer/vitest.config.js', 'build/vitest-consumer.json', { hold: true }),
  lints(),
]);
vitest('consumer', 'build/vitest-consumer.json', consumer);
check('lint (eslint)', eslint);
check('format (prettier)', prettier);
counted('lint (C++)', 'lint-cpp', cpp);

// Fuzzers: a short run of each, so a regression in hostile-input handling fails CI. Alone: each
// target fuzzes for a fixed time, on a core of its own.
if (existsSync(`${root}scripts/fuzz.sh`)) counted('fuzz', 'fuzz', await run('bash', ['scripts/fuzz.sh', '--ci']));

console.log('');
// The budget stays visible: the whole run and its five slowest files (or checks).
console.log(`suite time: ${((Date.now() - started) / 60000).toFixed(1)} min; slowest:`);
for (const [what, seconds] of timings.sort((a, b) => b[1] - a[1]).slice(0, 5))
  console.log(`  ${seconds.toFixed(0).padStart(5)} s  ${what}`);
console.log('');
if (failures.length) {
  console.log('failed:');
  for (const f of failures) console.log(`  ${f}`);
  console.log('');
}
for (const l of lines) console.log(l);
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exitCode = totals.failed ? 1 : 0;
