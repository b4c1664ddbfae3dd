/** Types of scripts/bundle-sizes.mjs (a plain script, run by Node). */

export interface BundleEntry {
  id: 'rest' | 'live' | 'evaluation';
  label: string;
  /** The application module that is bundled. */
  code: string;
}

export interface BundleSize {
  id: BundleEntry['id'];
  label: string;
  /** The minified bundle. */
  code: string;
  /** Bytes, minified. */
  minified: number;
  /** Bytes, minified and gzipped (level 9). */
  gzip: number;
}

export declare const ENTRIES: BundleEntry[];

/** A string only the live client's code holds, kept by minification. */
export declare const LIVE_CLIENT_MARKER: string;

/** Bundles one application module for the browser (ESM, tree-shaking, minified), resolving packages from `resolveDir`. */
export declare function bundle(code: string, resolveDir: string): Promise<string>;

/** Every entry of ENTRIES bundled from `resolveDir` (default the repository root). */
export declare function measure(resolveDir?: string): Promise<BundleSize[]>;

/** The Markdown table of measure()'s results. */
export declare function table(results: BundleSize[]): string;
