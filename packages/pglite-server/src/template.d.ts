import type { PGlite } from '@electric-sql/pglite';

/** Where the initdb template for the installed PGlite is cached (template.js), or undefined. */
export function templatePath(): string | undefined;
/** The cached template, or undefined. */
export function readTemplate(path?: string): Blob | undefined;
/** Runs initdb in a throw-away in-memory PGlite and returns the new cluster as a tarball. */
export function buildTemplate(pglite: typeof PGlite): Promise<Blob>;
/** Caches `template`, removing templates of other PGlite versions. */
export function saveTemplate(template: Blob, path?: string): Promise<void>;
/** Makes and caches the template unless it is cached already (an install step). */
export function prepareTemplate(): Promise<void>;
