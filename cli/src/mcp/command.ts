import type { Command } from 'commander';
import cliPackage from '../../package.json' with { type: 'json' };
import { connect } from '../context.js';
import { serveStdio } from './server.js';

interface McpOptions {
  allowDirectWrites?: boolean;
}

/** `gradual mcp`: the MCP server for coding agents, on stdio (docs/mcp.md). */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      'serve the Model Context Protocol on stdin/stdout, for coding agents: read flags, rollouts, proposals and the audit log, and propose rollout changes that wait for a person to apply them',
    )
    .option(
      '--allow-direct-writes',
      'let write tools run with an API key that is not approval-required, so that its changes apply at once (by default they are refused)',
    )
    .action(async (options: McpOptions, cmd: Command) => {
      const { client, settings } = await connect(cmd);
      await serveStdio({ client, org: settings.org, allowDirectWrites: options.allowDirectWrites === true, version: cliPackage.version });
    });
}
