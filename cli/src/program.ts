import { Command } from 'commander';
import cliPackage from '../package.json' with { type: 'json' };
import { registerAuthCommands } from './commands/auth.js';
import { registerFlagCommands } from './commands/flags.js';
import { registerGitopsCommands } from './commands/gitops.js';
import { registerMcpCommand } from './mcp/command.js';
import { registerRolloutCommands } from './commands/rollout.js';
import { registerTargetCommands } from './commands/targets.js';
import { registerConvergenceCommand } from './commands/convergence.js';
import { registerTypesCommand } from './commands/types.js';

/** The `gradual` program with every command; main.ts parses argv with it. */
export function buildProgram(): Command {
  const program = new Command('gradual')
    .description('Gradual from the command line: flags, rollouts, target IDs, and flags as code')
    .version(cliPackage.version)
    .option('--url <baseUrl>', 'server URL (overrides GRADUAL_URL and the config file)')
    .option('--token <token>', 'API key (overrides GRADUAL_TOKEN and the config file; visible to other users in the process list: prefer GRADUAL_TOKEN)')
    .option('--org <slug>', 'organization (overrides GRADUAL_ORG and the config file)')
    .option('--json', 'machine-readable JSON on stdout')
    .showHelpAfterError()
    .exitOverride();
  registerAuthCommands(program);
  registerFlagCommands(program);
  registerRolloutCommands(program);
  registerTargetCommands(program);
  registerConvergenceCommand(program);
  registerGitopsCommands(program);
  registerTypesCommand(program);
  registerMcpCommand(program);
  return program;
}
