import type { GradualClient } from '@gradual/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Access } from './access.js';
import { errorResult } from './tool.js';
import { readTools, writeTools } from './tools.js';

export interface GradualMcpOptions {
  client: GradualClient;
  access: Access;
  /** The CLI's version, reported to the MCP client. */
  version: string;
}

function instructions(access: Access): string {
  const writes =
    access.writes === 'proposals'
      ? `The propose_* tools do not change anything by themselves: ${access.who} is approval-required, so each makes a proposal that a person applies in Gradual. Tell the user the proposal's ID, and follow it with get_proposal or list_proposals.`
      : access.writes === 'direct'
        ? `Careful: the propose_* tools apply their change at once (${access.who} is not approval-required and the operator allowed direct writes).`
        : `No write tools: ${access.refusal?.message ?? 'writes are not allowed.'}`;
  return `Gradual: feature flags, configs and their gradual rollouts, read through ${access.who}.
Find IDs first: list_projects, then list_environments (project ID), then list_flags / list_flag_states.
get_flag and get_rollout show a flag's or config's value, rules and rollout in an environment; evaluate shows what a given user gets.
${writes}
Errors come back as {"error": {"code", "message", ...}} with the API's error codes.`;
}

/**
 * The MCP SDK, imported only when `gradual mcp` runs: it is the CLI's heaviest dependency (about
 * 0.3 s to load), and every other command would pay for it at start. The low-level `Server`:
 * McpServer answers arguments that fail their schema with a bare text message, and these tools
 * answer them with the API's error envelope (code, message, fields).
 */
async function loadSdk() {
  const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { Server, StdioServerTransport, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

function createGradualMcpServer(sdk: Sdk, { client, access, version }: GradualMcpOptions): Server {
  const { Server, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = sdk;
  const ctx = { client, access };
  const writes = writeTools(ctx);
  const offered = access.writes === 'none' ? readTools(ctx) : [...readTools(ctx), ...writes];
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  const withheld = new Set(access.writes === 'none' ? writes.map((tool) => tool.name) : []);

  const server = new Server({ name: 'gradual', title: 'Gradual', version }, { capabilities: { tools: {} }, instructions: instructions(access) });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const tool = byName.get(name);
    if (tool) return tool.call(request.params.arguments);
    // A write tool the policy withholds, called anyway (a client's stale list, a guess): say why.
    if (withheld.has(name) && access.refusal) return errorResult(access.refusal);
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  });
  return server;
}

/** Serves MCP on stdin/stdout until the client closes stdin (or the connection fails). */
export async function serveStdio(options: GradualMcpOptions): Promise<void> {
  const sdk = await loadSdk();
  const server = createGradualMcpServer(sdk, options);
  const transport = new sdk.StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // stdout carries the protocol: diagnostics go to stderr.
  server.onerror = (err) => process.stderr.write(`gradual mcp: ${err.message}\n`);
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}
