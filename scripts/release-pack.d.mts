/** Types of scripts/release-pack.mjs (a plain script, run by Node). */

export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the tarball (`package.json`, `dist/index.js`…). */
  files: string[];
}

/** The workspaces that are published and have a build. */
export declare function publishedPackages(): { dir: string; buildable: boolean }[];

/** Builds (unless `build` is false) and packs every published package into `out` (default `release/`), emptied first. */
export declare function releasePack(options?: { out?: string; build?: boolean }): Promise<PackedPackage[]>;
