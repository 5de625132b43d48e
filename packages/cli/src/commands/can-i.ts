import { rbacActions, rbacResources, type RbacAction, type RbacResource } from '@portico/api';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitCode, usageError } from '../exit-codes.js';
import { palette, statusColor } from '../output/color.js';
import { print } from '../output/render.js';
import { formatOf, withOutput } from './shared.js';

/** Accepts singular and plural, like kubectl: `instance` → `instances`. */
export function resourceName(text: string): RbacResource {
  const plural = text.endsWith('s') ? text : `${text}s`;
  const match = (rbacResources as readonly string[]).find((r) => r === text || r === plural);
  if (!match) throw usageError(`unknown resource "${text}" (one of ${rbacResources.join(', ')})`);
  return match as RbacResource;
}

export function actionName(text: string): RbacAction | '*' {
  if (text === '*' || (rbacActions as readonly string[]).includes(text)) return text as RbacAction | '*';
  throw usageError(`unknown action "${text}" (one of ${rbacActions.join(', ')}, *)`);
}

export function registerCanI(program: Command, app: App): void {
  withOutput(
    program
      .command('can-i')
      .description('may you do ACTION on RESOURCE? prints yes (exit 0) or no (exit 1)')
      .argument('<action>', `${rbacActions.join('|')}|*`)
      .argument('<resource>', rbacResources.join('|'))
      .argument('[object]', 'a project name, * (any) or - (none)', '*'),
  ).action(async (action: string, resource: string, object: string, opts: { output?: string }, cmd: Command) => {
    const checked = { action: actionName(action), resource: resourceName(resource) };
    const { client } = await app.session(cmd);
    const yes = await client.account.canI(checked.resource, checked.action, object);
    const value = yes ? 'yes' : 'no';
    print(app.io, formatOf(opts), { value }, () => `${statusColor(palette(app.io.color), value)}\n`);
    if (!yes) app.exitCode = ExitCode.no;
  });
}
