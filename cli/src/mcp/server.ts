import type { GradualClient } from '@gradual/sdk';
// The low-level server: McpServer answers arguments that fail their schema with a bare text
// message, and these tools answer them with the API's error envelope (code, message, fields).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { gradualTools } from './tools.js';
import { WritePolicy } from './write-policy.js';

export interface McpServerOptions {
  client: GradualClient;
  /** The organization slug tools default to. */
  org: string | undefined;
  /** Let write tools run with an API key that is not approval-required (docs/mcp.md). */
  allowDirectWrites: boolean;
  /** The CLI's version, reported to the MCP client. */
  version: string;
}

const INSTRUCTIONS = `Gradual: feature flags, configs and their gradual rollouts.
Find IDs first: list_projects, then list_environments (project ID), then list_flags / list_flag_states.
get_flag and get_rollout show a flag's or config's value, rules and rollout in an environment; evaluate shows what a given user gets.
The propose_* tools do not change anything by themselves: each makes a proposal that a person applies in Gradual. Tell the user the proposal's ID, and follow it with get_proposal or list_proposals.
Errors come back as {"error": {"code", "message", ...}} with the API's error codes.`;

export function createGradualMcpServer(options: McpServerOptions): Server {
  const policy = new WritePolicy(options.client, options.allowDirectWrites);
  const tools = gradualTools({ client: options.client, org: options.org, policy });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  const server = new Server({ name: 'gradual', title: 'Gradual', version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return tool.call(request.params.arguments);
  });
  return server;
}

/** Serves MCP on stdin/stdout until the client closes stdin (or the connection fails). */
export async function serveStdio(options: McpServerOptions): Promise<void> {
  const server = createGradualMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // stdout carries the protocol: diagnostics go to stderr.
  server.onerror = (err) => process.stderr.write(`gradual mcp: ${err.message}\n`);
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
}
