import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CliError } from './errors.js';

/** The API's limit on one target ID (contract/src/limits.ts TARGET_ID_MAX_LENGTH). */
export const TARGET_ID_MAX_LENGTH = 256;

/**
 * Reads target IDs from a file (`-` for stdin): one per line, or the first column of CSV.
 * Blank lines and lines starting with `#` are skipped; a quoted first column is unquoted.
 * An ID the API would refuse is reported with its line number before anything is sent.
 */
export async function readTargetIds(path: string): Promise<string[]> {
  const input = path === '-' ? process.stdin : createReadStream(path);
  const opened = new Promise<void>((resolve, reject) => {
    input.once('error', (err: Error) => reject(new CliError('invalid_file', `${path}: ${err.message}`)));
    input.once('readable', () => resolve());
    input.once('end', () => resolve());
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  const ids: string[] = [];
  let lineNo = 0;
  const reading = (async () => {
    for await (const raw of lines) {
      lineNo++;
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const id = firstColumn(line, lineNo, path);
      if (id === '') throw new CliError('invalid_file', `${path}:${lineNo}: empty ID`);
      if (id.length > TARGET_ID_MAX_LENGTH) throw new CliError('invalid_file', `${path}:${lineNo}: ID of ${id.length} characters (at most ${TARGET_ID_MAX_LENGTH})`);
      ids.push(id);
    }
  })();
  await Promise.all([opened, reading]);
  return ids;
}

function firstColumn(line: string, lineNo: number, path: string): string {
  if (!line.startsWith('"')) {
    const comma = line.indexOf(',');
    return (comma === -1 ? line : line.slice(0, comma)).trim();
  }
  // RFC 4180: a quoted field ends at a quote not followed by another quote.
  let value = '';
  for (let i = 1; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      if (line[i + 1] === '"') {
        value += '"';
        i++;
        continue;
      }
      return value;
    }
    value += ch;
  }
  throw new CliError('invalid_file', `${path}:${lineNo}: unterminated quoted field`);
}
