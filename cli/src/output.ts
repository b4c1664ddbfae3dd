/** Writes a command's result: JSON on stdout with `--json`, else the human form. */
export interface Output {
  readonly json: boolean;
  /** The command's result: `data` as JSON, or the text `human` builds. */
  result(data: unknown, human: () => string): void;
  /** A progress or status line for people (stderr), never shown with `--json`. */
  note(line: string): void;
}

export function createOutput(json: boolean, stdout: NodeJS.WritableStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): Output {
  return {
    json,
    result(data, human) {
      if (json) stdout.write(JSON.stringify(data, null, 2) + '\n');
      else {
        const text = human();
        if (text !== '') stdout.write(text.endsWith('\n') ? text : text + '\n');
      }
    },
    note(line) {
      if (!json) stderr.write(line + '\n');
    },
  };
}

/** A plain text table: a header row and left-aligned columns. */
export function table(headers: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** A JSON value in one line, for tables and diffs. */
export function show(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}
