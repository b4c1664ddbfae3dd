import { createClient } from '@gradual/sdk';
import type { Command } from 'commander';
import { cleartextToAnotherHost, configPath, removeConfig, writeConfig } from '../config.js';
import { connect, globalOptions, outputFor } from '../context.js';
import { CliError } from '../errors.js';
import { readStdin } from '../stdin.js';
import { table } from '../output.js';

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('check a token against the server and store the URL, token and organization in the config file (mode 0600)')
    .option('--insecure', 'allow a plain http:// URL to another machine (the token would cross the network unencrypted)')
    .addHelpText(
      'after',
      [
        '',
        'The token is read from stdin, or from GRADUAL_TOKEN:',
        '  echo "$TOKEN" | gradual login --url https://flags.example.com --org acme',
        '--token works too, but other users of the machine can read it in the process list (ps).',
        'http:// is refused but to this machine (localhost, 127.0.0.1, ::1), unless --insecure.',
      ].join('\n'),
    )
    .action(async (options: { insecure?: boolean }, cmd: Command) => {
      const { url: urlOption, token: tokenOption, org } = globalOptions(cmd);
      const url = urlOption ?? process.env.GRADUAL_URL;
      const out = outputFor(cmd);
      if (!url) throw new CliError('invalid_option', 'login needs --url <baseUrl> (or GRADUAL_URL)');
      if (!/^https?:\/\//.test(url) || !URL.canParse(url)) throw new CliError('invalid_option', `--url: "${url}" is not an http(s) URL`);
      if (cleartextToAnotherHost(new URL(url)) && !options.insecure) {
        throw new CliError(
          'insecure_url',
          `--url: "${url}" would send the token unencrypted over the network; use https://, or pass --insecure if the network is trusted`,
        );
      }
      if (tokenOption) out.note('warning: --token is visible to other users of this machine (ps); prefer stdin or GRADUAL_TOKEN');
      let token = tokenOption || process.env.GRADUAL_TOKEN;
      if (!token) {
        if (process.stdin.isTTY) process.stderr.write('token: ');
        token = (await readStdin()).trim();
      }
      if (!token) throw new CliError('invalid_option', 'no token: write it to stdin, or set GRADUAL_TOKEN');
      const me = await createClient({ baseUrl: url, token }).whoami();
      if (me.type !== 'api_key') throw new CliError('invalid_token', 'the token is not an API key');
      const orgSlug = org ?? process.env.GRADUAL_ORG ?? me.organization.slug;
      if (orgSlug !== me.organization.slug) throw new CliError('org_mismatch', `the token belongs to organization "${me.organization.slug}", not "${orgSlug}"`);
      const orgInfo = me.organization;
      const path = configPath();
      await writeConfig(path, { url: url.replace(/\/+$/, ''), token, org: orgSlug });
      out.result({ url, org: orgInfo.slug, orgName: orgInfo.name, configPath: path }, () => `logged in to ${url} as a token of ${orgInfo.name} (${orgInfo.slug}); saved to ${path}`);
    });

  program
    .command('logout')
    .description('delete the config file holding the token')
    .action(async (_options: object, cmd: Command) => {
      const out = outputFor(cmd);
      const path = configPath();
      const removed = await removeConfig(path);
      out.result({ removed, configPath: path }, () => (removed ? `removed ${path}` : `not logged in (no ${path})`));
    });

  program
    .command('whoami')
    .description('the server, organization and token in use, and where each setting comes from')
    .action(async (_options: object, cmd: Command) => {
      const ctx = await connect(cmd);
      const me = await ctx.client.whoami();
      const { url, sources } = ctx.settings;
      if (me.type !== 'api_key') {
        ctx.out.result({ url, ...me, sources }, () => `${url}: a session of ${me.session.user.email}`);
        return;
      }
      const { apiKey: key, organization: org } = me;
      if (ctx.settings.org && ctx.settings.org !== org.slug) ctx.out.note(`warning: the organization set (${ctx.settings.org}, from the ${sources.org}) is not the token's (${org.slug})`);
      ctx.out.result({ url, ...me, sources, configPath: configPath() }, () =>
        table(
          ['setting', 'value'],
          [
            ['url', `${url} (from the ${sources.url})`],
            ['organization', `${org.slug} (${org.name})`],
            ['key', `${key.name} (${key.tokenPrefix}…, from the ${sources.token})`],
            ['actions', key.actions.join(', ')],
            ['environments', key.environments ? key.environments.join(', ') : 'all'],
            ['resources', key.resources ? key.resources.join(', ') : 'all'],
            ['approval', key.requiresApproval ? 'required: writes become proposals' : 'not required'],
            ['expires', key.expiresAt ?? 'never'],
          ],
        ),
      );
    });
}
