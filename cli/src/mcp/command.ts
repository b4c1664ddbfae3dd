import type { Command } from 'commander';
import cliPackage from '../../package.json' with { type: 'json' };
import { connect } from '../context.js';
import { accessOf } from './access.js';

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
      'offer the write tools with an API key that is not approval-required, so that its changes apply at once (by default they are withheld)',
    )
    .action(async (options: McpOptions, cmd: Command) => {
      const { client, settings } = await connect(cmd);
      // Who the key is, before any tool is listed: a bad or revoked key, or an unreachable server, ends the command here.
      const access = accessOf(await client.whoami(), options.allowDirectWrites === true, settings.org);
      if (settings.org && access.org && settings.org !== access.org) {
        process.stderr.write(`gradual mcp: the organization "${settings.org}" is ignored: ${access.who} works in "${access.org}"\n`);
      }
      if (access.refusal) process.stderr.write(`gradual mcp: no write tools: ${access.refusal.message}\n`);
      // The MCP server and its SDK load only here (a chunk of their own in the build): every other
      // command starts without them.
      const { serveStdio } = await import('./server.js');
      await serveStdio({ client, access, version: cliPackage.version });
    });
}
