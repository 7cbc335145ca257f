// Files named on the command line (and every file inside folders named there) as FileEntry
// objects that open their file only while reading it: a game's whole folder never holds more
// than one file open, and bytes are read when their decode comes up. A .rigscope bundle among them
// is opened (core/bundle.js) and stands for the files inside it.
import { mkdir, mkdtemp, open, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { baseName } from '../src/core/files.js';
import { bundleEntries, isBundleEntry } from '../src/core/bundle.js';
import { entriesFromRepo, isRepoUrl, repoHosts } from '../src/core/repo.js';
import { readsName, repoCompanions } from '../src/families/index.js';

/**
 * What the repository folders of this run said (core/repo.js notes: a cut listing, files past the
 * cap, companions fetched from elsewhere), each written to stderr as it comes; `incomplete` when
 * files of the folder may be missing, which makes the run's exit status 1.
 * @type {{ text: string, incomplete: boolean }[]}
 */
export const repoNotes = [];

/** Whether a repository folder of this run was listed or fetched only in part. */
export const incompleteRepo = () => repoNotes.some((n) => n.incomplete);

function note(text, { incomplete = false } = {}) {
  repoNotes.push({ text, incomplete });
  process.stderr.write(`rigscope: ${text}\n`);
}

/** A repository folder's entries: its files some family reads, and what they need from elsewhere in it. */
const repoEntries = (url, hosts) => entriesFromRepo(url, { hosts, wanted: readsName, companions: repoCompanions, onNote: note });

/**
 * The repository hosts with the environment's bases: RIGSCOPE_GITHUB_API, RIGSCOPE_GITHUB_RAW,
 * RIGSCOPE_GITHUB_WEB, RIGSCOPE_GITLAB_API, RIGSCOPE_GITLAB_WEB (GitHub Enterprise, a self-hosted
 * GitLab, or a local stand-in for tests); unset, the public hosts.
 */
export function hostsFromEnv(env = process.env) {
  const pick = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v));
  return repoHosts({
    github: pick({ api: env.RIGSCOPE_GITHUB_API, raw: env.RIGSCOPE_GITHUB_RAW, web: env.RIGSCOPE_GITHUB_WEB }),
    gitlab: pick({ api: env.RIGSCOPE_GITLAB_API, web: env.RIGSCOPE_GITLAB_WEB }),
  });
}

/** A FileEntry for a file on disk of a known size, opened only while it is read. */
export function entryFromPath(path, size) {
  return {
    name: baseName(path),
    path,
    size,
    read: async () => {
      const b = await readFile(path);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    },
    readHead: async (n) => {
      const handle = await open(path, 'r');
      try {
        const buffer = new Uint8Array(Math.min(n, size));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return buffer.buffer.slice(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * Entries for paths: repository folder addresses listed and fetched, files as given, folders walked (sorted, so the order is the same every run),
 * and every bundle replaced by its files, named `<bundle path>/<name inside>` so records name both
 * (`nameInBundle` keeps the name inside). The bundles share the zip budgets of one drop.
 */
export async function entriesFromPaths(paths) {
  const out = [];
  const visit = async (path) => {
    const s = await stat(path);
    if (s.isDirectory()) {
      for (const name of (await readdir(path)).sort()) await visit(join(path, name));
    } else if (s.isFile()) {
      out.push(entryFromPath(path, s.size));
    }
  };
  const hosts = hostsFromEnv();
  for (const p of paths) {
    // A GitHub or GitLab folder address: its files some family reads, fetched (Node's fetch) at
    // one commit and named from the folder on, as a folder on disk is (core/repo.js).
    if (isRepoUrl(p, hosts)) out.push(...(await repoEntries(p, hosts)));
    else await visit(p);
  }
  return openBundles(out);
}

/**
 * Bundles replaced by their files. A bundle that cannot be opened (not one, cut off, a bomb, bad
 * names, too many files) stays as an entry that cannot be read: the decode stage refuses it with
 * the reason, as any unreadable file, and the files beside it go on.
 */
export async function openBundles(entries) {
  const budget = { entries: 0, bytes: 0 };
  const out = [];
  for (const e of entries) {
    if (!(await isBundleEntry(e))) {
      out.push(e);
      continue;
    }
    try {
      out.push(...(await bundleEntries(e, { prefix: true, budget })));
    } catch (err) {
      const refuse = async () => {
        throw new Error(err.problem ?? err.message, { cause: err });
      };
      out.push({ ...e, read: refuse, readHead: refuse });
    }
  }
  return out;
}

/**
 * Paths with every repository folder address replaced by a temporary copy of its files on disk
 * (`rigscope export` walks folders on disk in its threads); `cleanup()` removes the copies.
 */
export async function localFolders(paths) {
  const hosts = hostsFromEnv();
  const temps = [];
  const out = [];
  for (const p of paths) {
    if (!isRepoUrl(p, hosts)) {
      out.push(p);
      continue;
    }
    const entries = await repoEntries(p, hosts);
    const temp = await mkdtemp(join(tmpdir(), 'rigscope-repo-'));
    temps.push(temp);
    // Entry paths are the folder's name and the path below it (core/repo.js checks nothing climbs).
    for (const e of entries) {
      // A file that could not be fetched has nothing to write: said here, as the walk will not see it.
      if (e.refusal) {
        note(`${e.path}: ${e.refusal}`, { incomplete: true });
        continue;
      }
      const file = join(temp, e.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, new Uint8Array(await e.read()));
    }
    out.push(join(temp, entries[0].path.split('/')[0]));
  }
  return { paths: out, cleanup: () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))) };
}
