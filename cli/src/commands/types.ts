import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { connect, findProject, outputFor } from '../context.js';
import { CliError } from '../errors.js';
import { generateTypes, ManifestFile } from '../typegen/generate.js';

interface TypesOptions {
  project?: string;
  manifest?: string;
  out?: string;
  openfeature?: boolean;
  react?: boolean;
  check?: boolean;
}

/** The manifest a file holds: the OpenFeature CLI's format (Gradual's `x-gradual` optional). */
async function readManifest(path: string): Promise<ManifestFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError('file_not_found', `--manifest: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError('invalid_manifest', `--manifest: ${path} is not JSON`);
  }
  const parsed = ManifestFile.safeParse(json);
  if (!parsed.success) throw new CliError('invalid_manifest', `--manifest: ${path} is not a flag manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The file's text, or null when there is none. */
async function existing(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

export function registerTypesCommand(program: Command): void {
  program
    .command('types')
    .description("a TypeScript module typing a project's flags (keys, value types, variants) and typed wrappers for the SDK, OpenFeature and React")
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT); the server\'s manifest of it')
    .option('--manifest <file>', 'an OpenFeature flag manifest file instead of the server')
    .option('-o, --out <file>', 'write the module here (default: stdout)')
    .option('--openfeature', 'also typed wrappers for an OpenFeature server client (@openfeature/server-sdk)')
    .option('--react', 'also typed OpenFeature React hooks (@openfeature/react-sdk)')
    .option('--check', 'write nothing; exit 1 when --out is not what the manifest generates now (for CI)')
    .action(async (options: TypesOptions, cmd: Command) => {
      if (options.check && !options.out) throw new CliError('invalid_option', '--check needs --out <file>: the module to compare');
      let manifest: ManifestFile;
      let source: string;
      if (options.manifest !== undefined) {
        manifest = await readManifest(options.manifest);
        source = options.manifest;
      } else {
        const ctx = await connect(cmd);
        const project = await findProject(ctx, options.project);
        manifest = await ctx.client.getManifest({ path: { id: project.id } });
        source = `project ${project.key}`;
      }
      const text = generateTypes(manifest, { source, openfeature: options.openfeature === true, react: options.react === true });
      const flags = Object.keys(manifest.flags).length;
      const out = outputFor(cmd);
      if (options.check && options.out) {
        if ((await existing(options.out)) !== text) {
          throw new CliError('types_stale', `${options.out} is not what ${source} generates now: run gradual types again`);
        }
        return out.result({ out: options.out, flags, upToDate: true }, () => `${options.out} is up to date (${flags} flags and configs)`);
      }
      if (!options.out) return out.result({ flags, module: text }, () => text);
      await writeFile(options.out, text);
      out.result({ out: options.out, flags, written: true }, () => `wrote ${options.out}: ${flags} flags and configs from ${source}`);
    });
}
