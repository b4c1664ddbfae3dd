import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import { reportOf, type ErrorReport } from '../errors.js';

/** A JSON object: what a tool's structured result must be. */
export type JsonObject = Record<string, unknown>;

/** One tool as the agent sees it (name, description, JSON Schema of its arguments) and how to run it. */
export interface McpTool {
  readonly name: string;
  readonly definition: Tool;
  /** Validates the raw arguments and runs the tool; every failure is a tool error, never a throw. */
  call(args: unknown): Promise<CallToolResult>;
}

export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: Omit<ToolAnnotations, 'title'>;
  run(args: z.output<S>): Promise<JsonObject>;
}

export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): McpTool {
  // MCP's default dialect is JSON Schema 2020-12, the one zod writes: the `$schema` member adds nothing.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(spec.input, { io: 'input', unrepresentable: 'any' });
  return {
    name: spec.name,
    definition: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: { ...schema, type: 'object' },
      annotations: { title: spec.title, openWorldHint: false, ...spec.annotations },
    },
    async call(args) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) return errorResult(invalidArguments(spec.name, parsed.error));
      try {
        return success(await spec.run(parsed.data));
      } catch (err) {
        return failure(err);
      }
    },
  };
}

/** A result: the JSON as structured content, and the same JSON as text for clients that read only text. */
export function success(data: JsonObject): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data };
}

/**
 * A tool error (`isError: true`) carrying the error as the API reports it: `code`, `message`, and
 * when known `status`, `requestId`, per-field `fields` and `details`.
 */
export function failure(err: unknown): CallToolResult {
  return errorResult(reportOf(err).report);
}

/** A tool error from a report made here (a code of the API's catalog or of the CLI's own). */
export function errorResult(error: ErrorReport): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }], structuredContent: { error } };
}

/** Arguments that do not match the input schema, reported like the API's `invalid_request`: one message per field path. */
function invalidArguments(tool: string, error: z.ZodError): ErrorReport {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.') || '(arguments)';
    fields[path] ??= issue.message;
  }
  const summary = Object.entries(fields)
    .map(([path, message]) => `${path}: ${message}`)
    .join('; ');
  return { code: 'invalid_request', message: `Invalid arguments for ${tool}: ${summary}`, fields };
}
