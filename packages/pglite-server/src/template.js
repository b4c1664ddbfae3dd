// A new PGlite cluster (what initdb makes), cached as a tarball per PGlite version in
// node_modules/.cache/pglite-server/. Creating a database by loading it takes ~0.5–1 s; running
// initdb takes 3–4 s, most of a first start. prepareTemplate() makes it ahead of time (an
// install step), and so does the first database created without it. Anything wrong with the
// cache (absent, unreadable, unwritable, refused by PGlite) falls back to initdb.
//
// Plain JavaScript: used by the database's worker thread (pglite-worker.js) and by install
// scripts, neither of which loads TypeScript. Types: template.d.ts.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';

/** Where the template for the installed PGlite lives, or undefined when it cannot be placed. */
export function templatePath() {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
      let pkg;
      try {
        pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (pkg.name !== '@electric-sql/pglite') continue;
      const nodeModules = dir.slice(0, dir.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
      if (!nodeModules.endsWith('node_modules')) return undefined;
      return join(nodeModules, '.cache', 'pglite-server', `pglite-${pkg.version}-initdb.tar`);
    }
  } catch {
    // PGlite not resolvable from here: no template
  }
  return undefined;
}

/** The cached template, or undefined. */
export function readTemplate(path = templatePath()) {
  if (!path) return undefined;
  try {
    return new Blob([readFileSync(path)]);
  } catch {
    return undefined;
  }
}

/** Runs initdb in a throw-away in-memory PGlite and returns the new cluster as a tarball. */
export async function buildTemplate(PGlite) {
  const pg = await PGlite.create();
  try {
    await pg.exec('CHECKPOINT'); // all in the files being tarred: loading it replays nothing
    return await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
}

/**
 * Stores `template` (written to a temporary name, then renamed: readers never see a part) and
 * removes templates of other PGlite versions.
 */
export async function saveTemplate(template, path = templatePath()) {
  if (!path) throw new Error('no place for the PGlite template (is @electric-sql/pglite installed?)');
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, Buffer.from(await template.arrayBuffer()));
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  for (const name of readdirSync(dir)) {
    if (/^pglite-.+-initdb\.tar$/.test(name) && join(dir, name) !== path) rmSync(join(dir, name), { force: true });
  }
}

/** Makes and caches the template unless it is cached already (an install step). */
export async function prepareTemplate() {
  const path = templatePath();
  if (!path || existsSync(path)) return;
  const { PGlite } = await import('@electric-sql/pglite');
  await saveTemplate(await buildTemplate(PGlite), path);
}
