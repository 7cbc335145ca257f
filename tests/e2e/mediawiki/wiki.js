// A throwaway MediaWiki for the Rigscope extension's tests (and screenshots): Debian's MediaWiki
// 1.39 installed on SQLite in a temporary folder, served by `php -S` with a router, the extension
// loaded from the repository, and a small API client (login, upload, edit).
// See /work/shared/specs/mediawiki.md for what these steps rely on.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const MEDIAWIKI = '/usr/share/mediawiki';
export const EXTENSION_DIR = new URL('../../../integrations/mediawiki/Rigscope', import.meta.url).pathname;
const ROUTER = new URL('./router.php', import.meta.url).pathname;
/** This checkout's command line, which the test wikis run for inspect and poster. */
const CLI = new URL('../../../web/cli/rigscope.js', import.meta.url).pathname;
export const ADMIN = { user: 'Admin', password: 'Rigscope-test-password-1' };

/** Whether this machine has MediaWiki and PHP (scripts/setup.sh installs them). */
export const hasMediaWiki = () => existsSync(`${MEDIAWIKI}/maintenance/install.php`) && existsSync('/usr/bin/php');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The address an installed template is made for: each wiki's copy names its own. */
const TEMPLATE_SERVER = 'http://127.0.0.1:1';

/** The lines appended to an installed wiki's LocalSettings.php for the extension's tests. */
function testSettings(dir, extensionDir, settings) {
  return `
# ---- Rigscope test settings ----
$wgEnableUploads = true;
$wgUploadDirectory = ${JSON.stringify(`${dir}/images`)};
$wgUploadPath = '/images';
$wgTmpDirectory = ${JSON.stringify(`${dir}/tmp`)};
$wgCacheDirectory = ${JSON.stringify(`${dir}/cache`)};
$wgDefaultSkin = 'vector-2022';
$wgShowExceptionDetails = true;
$wgDebugLogGroups['rigscope'] = ${JSON.stringify(`${dir}/rigscope.log`)};
$wgJobRunRate = 0;
# Vector 2022 fits phones only when asked (1.39); the README's install says so too.
$wgVectorResponsive = true;
$wgFileExtensions = array_merge( $wgFileExtensions, [ 'rigscope', 'psk', 'pskx', 'psa', 'pmd', '3d', 'uc', 'u', 'utx', 'psg', 'tga', 'bmp', 'pcx' ] );
wfLoadExtension( 'Rigscope', ${JSON.stringify(`${extensionDir}/extension.json`)} );
${settings}
`;
}

/**
 * A wiki installed with the extension's tables (install.php, then update.php), made once per
 * MediaWiki and extension schema and copied for each test file's wiki: installing takes tens of
 * seconds, a copy a few milliseconds. Made in a folder of its own, then renamed into place, so two
 * test files that start together never see half of one.
 * @returns {{ template: string, madeIn: string }} its folder, and the folder its LocalSettings.php names
 */
function installedTemplate(extensionDir) {
  const key = createHash('sha256')
    .update(extensionDir)
    .update(readFileSync(`${extensionDir}/sql/tables.json`))
    .update(readFileSync(`${MEDIAWIKI}/includes/Defines.php`))
    .update(readFileSync(new URL(import.meta.url)))
    .digest('hex')
    .slice(0, 16);
  const template = join(tmpdir(), `rigscope-wiki-template-${key}`);
  if (!existsSync(`${template}/made-in`)) {
    const making = mkdtempSync(`${template}-making-`);
    mkdirSync(`${making}/data`);
    execFileSync(
      'php',
      [
        `${MEDIAWIKI}/maintenance/install.php`,
        '--dbtype=sqlite',
        `--dbpath=${making}/data`,
        '--dbname=wiki',
        `--server=${TEMPLATE_SERVER}`,
        '--scriptpath=',
        `--pass=${ADMIN.password}`,
        `--confpath=${making}`,
        '--skins=Vector,MinervaNeue',
        'Rigscope test wiki',
        ADMIN.user,
      ],
      { stdio: 'pipe' },
    );
    const config = `${making}/LocalSettings.php`;
    const installed = readFileSync(config, 'utf8');
    appendFileSync(config, testSettings(making, extensionDir, ''));
    execFileSync('php', [`${MEDIAWIKI}/maintenance/update.php`, '--quick'], {
      env: { ...process.env, MW_CONFIG_FILE: config },
      cwd: MEDIAWIKI,
      stdio: 'pipe',
    });
    writeFileSync(config, installed);
    writeFileSync(`${making}/made-in`, making);
    try {
      renameSync(making, template);
    } catch {
      rmSync(making, { recursive: true, force: true }); // another test file made it first
    }
  }
  return { template, madeIn: readFileSync(`${template}/made-in`, 'utf8') };
}

/**
 * The requests a `php -S` server is running, from the lines it logs on `stderr` ("… Accepted" when
 * a worker takes a connection, "… Closing" once its script has ended). MediaWiki answers a request
 * before its post-send work, which queues the jobs the request asked for (JobQueueGroup::lazyPush
 * defers them under a web server): `settled()` resolves once no request runs, so a job runner
 * started after it finds every job the answered requests queued.
 * @param {import('node:stream').Readable} stderr
 * @param {(line: string) => void} onLine
 */
function requestsInFlight(stderr, onLine) {
  let running = 0;
  let partial = '';
  const waiting = [];
  stderr.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      onLine(line);
      if (/ Accepted$/.test(line)) running++;
      else if (/ Closing$/.test(line)) running = Math.max(0, running - 1);
    }
    if (running === 0) for (const resolve of waiting.splice(0)) resolve();
  });
  const settled = (timeout = 300000) =>
    running === 0
      ? Promise.resolve()
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`the wiki still ran ${running} request(s) after ${timeout / 1000} s`)), timeout);
          waiting.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
  return { settled };
}

/**
 * Installs a wiki in `dir` (a copy of the installed template) and serves it.
 * @param {{ dir: string, settings?: string, extensionDir?: string }} options settings: PHP lines
 *   appended to LocalSettings.php; extensionDir: the extension's folder (the repository's by default),
 *   served under /extensions/Rigscope/ as a link in MediaWiki's extensions/ would be
 * @returns {Promise<{ url: string, dir: string, api: WikiApi, stop: () => void, php: (args: string[], input?: string, env?: object) => string, runJobs: (env?: object) => Promise<string>, settled: () => Promise<void>, rigscopeLog: () => string }>}
 */
export async function makeWiki({ dir, settings = '', extensionDir = EXTENSION_DIR }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { template, madeIn } = installedTemplate(extensionDir);
  cpSync(`${template}/data`, `${dir}/data`, { recursive: true });
  mkdirSync(`${dir}/images`, { recursive: true });
  const config = `${dir}/LocalSettings.php`;
  const installed = readFileSync(`${template}/LocalSettings.php`, 'utf8').replaceAll(madeIn, dir).replaceAll(TEMPLATE_SERVER, url);
  writeFileSync(config, installed + testSettings(dir, extensionDir, settings));
  mkdirSync(`${dir}/tmp`, { recursive: true });
  // Several workers: a page that draws a poster (seconds) does not hold the wiki's other requests.
  const env = {
    ...process.env,
    PHP_CLI_SERVER_WORKERS: '4',
    MW_CONFIG_FILE: config,
    RIGSCOPE_WIKI_IMAGES: `${dir}/images`,
    RIGSCOPE_EXTENSION_DIR: extensionDir,
  };
  const php = (args, input, extraEnv = {}) =>
    execFileSync('php', args, { env: { ...env, ...extraEnv }, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], cwd: MEDIAWIKI });
  const server = spawn(
    'php',
    ['-d', 'upload_max_filesize=64M', '-d', 'post_max_size=64M', '-S', `127.0.0.1:${port}`, '-t', MEDIAWIKI, ROUTER],
    // Its own process group: PHP_CLI_SERVER_WORKERS forks workers that outlive a killed master.
    { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const stop = () => {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  let log = '';
  const { settled } = requestsInFlight(server.stderr, (line) => (log = `${log + line}\n`.slice(-20000)));
  // Wait until index.php answers.
  const end = Date.now() + 30000;
  for (;;) {
    try {
      const r = await fetch(`${url}/index.php?title=Main_Page`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > end || server.exitCode !== null) {
      stop();
      throw new Error(`the wiki did not answer at ${url}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The test wiki runs no job at the end of a request ($wgJobRunRate = 0, as the README advises
  // for posters): a test runs them when it wants posters drawn, as a wiki's job runner would. Not
  // synchronously: a run that draws posters takes minutes on a busy machine, and a test worker's
  // blocked event loop misses Vitest's calls ("Timeout calling onTaskUpdate"). After the requests
  // before it have ended: the jobs they queued are in the queue.
  const runJobs = async (extraEnv = {}) => {
    await settled();
    return (
      await promisify(execFile)('php', [`${MEDIAWIKI}/maintenance/runJobs.php`], {
        env: { ...env, ...extraEnv },
        encoding: 'utf8',
        cwd: MEDIAWIKI,
        maxBuffer: 1 << 26,
      })
    ).stdout;
  };
  // The extension's debug log ($wgDebugLogGroups['rigscope']), for a failing test's message.
  const rigscopeLog = () => (existsSync(`${dir}/rigscope.log`) ? readFileSync(`${dir}/rigscope.log`, 'utf8').slice(-20000) : '(none)');
  return { url, dir, api: new WikiApi(url), php, runJobs, settled, log: () => log, rigscopeLog, stop };
}

/**
 * A test file's wiki, logged in as the administrator: in `dir` (a new folder under /tmp named
 * after `name` when none is given), the extension running this checkout's command line, drawing
 * posters with it when `posters`, then `settings`. Its `remove()` stops it and deletes the folder.
 * @param {string} name
 * @param {{ posters?: boolean, settings?: string, dir?: string, extensionDir?: string }} [options]
 */
export async function openTestWiki(name, { posters = false, settings = '', dir, extensionDir } = {}) {
  const folder = dir ?? mkdtempSync(join(tmpdir(), `rigscope-wiki-${name}-`));
  let wiki;
  try {
    wiki = await makeWiki({
      dir: folder,
      extensionDir,
      settings: `
$wgRigscopeNode = ${JSON.stringify(process.execPath)};
$wgRigscopeCli = ${JSON.stringify(CLI)};
$wgRigscopePosterCommand = ${posters};
${settings}`,
    });
    await wiki.api.login();
  } catch (err) {
    wiki?.stop();
    rmSync(folder, { recursive: true, force: true });
    throw err;
  }
  return {
    ...wiki,
    remove() {
      wiki.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Decodes the few entities MediaWiki's Html class writes in attributes and text. */
export const unescape = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** MediaWiki's action API, with cookies. */
export class WikiApi {
  constructor(url) {
    this.url = url;
    this.cookies = new Map();
  }

  async request(params, body) {
    const query = new URLSearchParams({ format: 'json', formatversion: '2', ...(body ? {} : params) });
    const headers = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    let payload;
    if (body) {
      payload = new FormData();
      for (const [k, v] of Object.entries(params)) payload.append(k, v);
      for (const [k, v] of Object.entries(body)) {
        if (v?.blob) payload.append(k, v.blob, v.name);
        else payload.append(k, v);
      }
    }
    const r = await fetch(`${this.url}/api.php?${query}`, { method: body ? 'POST' : 'GET', headers, body: payload });
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const text = await r.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`api.php answered ${r.status} with no JSON: ${text.slice(0, 500)}`);
    }
  }

  async token(type = 'csrf') {
    const r = await this.request({ action: 'query', meta: 'tokens', type });
    return r.query.tokens[`${type}token`];
  }

  async login({ user, password } = ADMIN) {
    const logintoken = await this.token('login');
    const r = await this.request({ action: 'login' }, { lgname: user, lgpassword: password, lgtoken: logintoken });
    if (r.login?.result !== 'Success') throw new Error(`login failed: ${JSON.stringify(r)}`);
  }

  /** Uploads a file under `name`; the API's answer (with `error` when refused). */
  async upload(path, name = basename(path), text = '') {
    const token = await this.token();
    const bytes = readFileSync(path);
    return this.request(
      { action: 'upload' },
      { filename: name, ignorewarnings: '1', text, token, file: { blob: new Blob([bytes]), name } },
    );
  }

  async edit(title, text) {
    const token = await this.token();
    const r = await this.request({ action: 'edit' }, { title, text, token, summary: 'test' });
    if (r.edit?.result !== 'Success') throw new Error(`edit failed: ${JSON.stringify(r)}`);
    return r;
  }
}
