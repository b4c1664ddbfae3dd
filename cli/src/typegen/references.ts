/**
 * Which keys a TypeScript project still uses, as its own type check proves (`gradual flags
 * stale`): the project is compiled with its tsconfig and the TypeScript it installs, once with the
 * module `gradual types` wrote and once with that module as it would be without some keys. Every
 * error the second compilation adds is a use of a removed key (the module types keys as literal
 * unions, so a use of a key it leaves out no longer compiles); each is tied to its key by the
 * code it points at. The module is replaced in memory only: no file is written.
 */
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import type * as TS from 'typescript';
import { CliError } from '../errors.js';

type TypeScript = typeof TS;

const isTypeScript = (value: unknown): value is TypeScript =>
  typeof value === 'object' && value !== null && 'createProgram' in value && 'version' in value && typeof value.version === 'string';

/** The `typescript` package the project at `dir` resolves (its own compiler, its own version). */
export function loadTypeScript(dir: string): TypeScript {
  const require = createRequire(join(resolve(dir), 'package.json'));
  let path: string;
  try {
    path = require.resolve('typescript');
  } catch {
    throw new CliError('typescript_not_found', `no typescript package resolves from ${dir}: install it in the project whose type check proves the uses`);
  }
  const loaded: unknown = require(path);
  if (!isTypeScript(loaded)) throw new CliError('typescript_not_found', `${path} is not the TypeScript compiler`);
  return loaded;
}

export interface ProjectCheck {
  /** The TypeScript version that checked. */
  typescript: string;
  /** Files the program holds (the project's own and its dependencies' declarations). */
  files: number;
  /**
   * Type-checks the project with the module's text replaced by `moduleText`, and answers the
   * errors that the module as written does not have, by the removed key each is a use of.
   */
  usesWithout(moduleText: string, removed: ReadonlySet<string>): KeyUses;
}

export interface KeyUses {
  /** Removed key → where its uses are (`path:line`, relative to the working directory). */
  byKey: Map<string, string[]>;
  /** New errors not tied to one removed key (`path:line: message`): follow-on errors of a use, or uses without the key's literal. */
  unattributed: string[];
}

const flatten = (ts: TypeScript, d: TS.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, ' ');

/**
 * Loads the project of `tsconfigPath` and type-checks it as it is. The program must include
 * `modulePath` (the generated module), or nothing about its keys can be proven.
 */
export function checkProject(ts: TypeScript, tsconfigPath: string, modulePath: string): ProjectCheck {
  const configPath = resolve(tsconfigPath);
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new CliError('invalid_tsconfig', `${tsconfigPath}: ${flatten(ts, read.error)}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), undefined, configPath);
  if (parsed.errors.length) throw new CliError('invalid_tsconfig', `${tsconfigPath}: ${parsed.errors.map((d) => flatten(ts, d)).join('; ')}`);
  const target = ts.sys.resolvePath(resolve(modulePath));
  const same = (fileName: string) => ts.sys.resolvePath(resolve(fileName)) === target;

  // Every file but the module is parsed once for all the compilations (the libraries' declarations are most of the work).
  const parsedFiles = new Map<string, TS.SourceFile | undefined>();
  const compile = (moduleText: string | null, oldProgram?: TS.Program) => {
    const host = ts.createCompilerHost(parsed.options, true);
    const getSourceFile = host.getSourceFile.bind(host);
    const readFile = host.readFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      if (moduleText !== null && same(fileName)) return ts.createSourceFile(fileName, moduleText, languageVersion, true);
      if (!parsedFiles.has(fileName)) parsedFiles.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
      return parsedFiles.get(fileName);
    };
    if (moduleText !== null) host.readFile = (fileName) => (same(fileName) ? moduleText : readFile(fileName));
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host, ...(oldProgram ? { oldProgram } : {}) });
    return { program, diagnostics: ts.getPreEmitDiagnostics(program) };
  };

  const identity = (d: TS.Diagnostic) => `${d.file?.fileName ?? ''}:${d.start ?? -1}:${d.code}:${flatten(ts, d)}`;
  const where = (d: TS.Diagnostic) => {
    if (!d.file || d.start === undefined) return '(project)';
    return `${relative(process.cwd(), d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`;
  };

  const base = compile(null);
  if (!base.program.getSourceFiles().some((f) => same(f.fileName))) {
    throw new CliError('types_not_checked', `${tsconfigPath} does not compile ${modulePath}: nothing in the project imports the module (or --types names another file)`);
  }
  const baseline = new Set(base.diagnostics.map(identity));

  return {
    typescript: ts.version,
    files: base.program.getSourceFiles().length,
    usesWithout(moduleText, removed) {
      const byKey = new Map<string, string[]>();
      const unattributed: string[] = [];
      for (const d of compile(moduleText, base.program).diagnostics) {
        if (baseline.has(identity(d))) continue;
        // The module's own errors are no use of a key; with one key removed, every other new error is a use of it.
        const key = !d.file || same(d.file.fileName) ? null : removed.size === 1 ? [...removed][0]! : keyAt(ts, d, removed);
        if (key === null) {
          unattributed.push(`${where(d)}: ${flatten(ts, d)}`);
          continue;
        }
        let at = byKey.get(key);
        if (!at) byKey.set(key, (at = []));
        at.push(where(d));
      }
      return { byKey, unattributed };
    },
  };
}

/**
 * The removed key a new error is a use of: the string literal it points at (`getBoolean('old-flag')`,
 * `GradualFlags['old-flag']`), else the one removed key its message quotes.
 */
function keyAt(ts: TypeScript, d: TS.Diagnostic, removed: ReadonlySet<string>): string | null {
  if (d.file && d.start !== undefined && d.length !== undefined) {
    const text = d.file.text.slice(d.start, d.start + d.length);
    const unquoted = /^(['"`])(.*)\1$/s.exec(text)?.[2];
    if (unquoted !== undefined && removed.has(unquoted)) return unquoted;
  }
  const message = flatten(ts, d);
  const quoted = [...removed].filter((key) => message.includes(`"${key}"`) || message.includes(`'${key}'`));
  return quoted.length === 1 ? quoted[0]! : null;
}
