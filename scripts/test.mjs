// Runs every suite — native (ctest), unit (Vitest in Node), browser (Vitest + Playwright +
// Debian Chromium), short fuzz runs — and ends with one plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
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

function run(cmd, args, env = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  process.stdout.write(r.stdout ?? '');
  r.seconds = (Date.now() - t0) / 1000;
  return r;
}

function suite(name, passed, failed, skipped = 0) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  lines.push(`${name}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
}

// Native: GoogleTest through ctest.
{
  const r = run('ctest', ['--test-dir', 'build/native', '--output-on-failure', '-j2']);
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

function vitest(name, config, out) {
  const r = run('npx', ['vitest', 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
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

vitest('unit', 'vite.config.ts', 'build/vitest-unit.json');
vitest('browser', 'tests/e2e/vitest.config.js', 'build/vitest-e2e.json');
// The packed package in a fresh app: Vite build, Chromium and Node (tests/consumer).
vitest('consumer', 'tests/consumer/vitest.config.js', 'build/vitest-consumer.json');

// Lint: ESLint over web/, tests/, scripts/ and integrations/ (eslint.config.js), one check that passes or fails.
{
  const r = run('npx', ['eslint', '--max-warnings=0', 'web', 'tests', 'scripts', 'integrations']);
  timings.push(['lint (eslint)', r.seconds]);
  suite('lint (eslint)', r.status === 0 ? 1 : 0, r.status === 0 ? 0 : 1);
}

// Format: Prettier over the same tree (.prettierrc.json); `npx prettier --write web tests scripts integrations` fixes it.
{
  const r = run('npx', ['prettier', '--check', 'web', 'tests', 'scripts', 'integrations']);
  timings.push(['format (prettier)', r.seconds]);
  suite('format (prettier)', r.status === 0 ? 1 : 0, r.status === 0 ? 0 : 1);
}

// C++ lint: clang-format and clang-tidy over wasm/ (scripts/lint-cpp.sh), two checks.
{
  const r = run('bash', ['scripts/lint-cpp.sh']);
  timings.push(['lint (C++)', r.seconds]);
  const m = /lint-cpp: (\d+) passed, (\d+) failed/.exec(r.stdout ?? '');
  if (m) suite('lint (C++)', Number(m[1]), Number(m[2]));
  else suite('lint (C++)', 0, 1);
}

// Fuzzers: a short run of each, so a regression in hostile-input handling fails CI.
if (existsSync(`${root}scripts/fuzz.sh`)) {
  const r = run('bash', ['scripts/fuzz.sh', '--ci']);
  timings.push(['fuzz', r.seconds]);
  const m = /fuzz: (\d+) passed, (\d+) failed/.exec(r.stdout ?? '');
  if (m) suite('fuzz', Number(m[1]), Number(m[2]));
  else suite('fuzz', 0, 1);
}

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
