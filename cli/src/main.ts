#!/usr/bin/env node
import { CommanderError } from 'commander';
import { EXIT, formatReport, reportOf } from './errors.js';
import { buildProgram } from './program.js';

const json = process.argv.includes('--json');

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has printed the usage error (or the help, or the version) itself.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.error;
    if (json && err.exitCode !== 0) process.stderr.write(JSON.stringify({ error: { code: 'invalid_usage', message: err.message } }) + '\n');
  } else {
    const { report, exitCode } = reportOf(err);
    process.stderr.write(json ? JSON.stringify({ error: report }) + '\n' : formatReport(report));
    process.exitCode = exitCode;
  }
}
