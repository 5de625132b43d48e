import { ossRbacVocabulary, type RbacAction, type RbacResource } from '@portico/api';
import { PorticoApiError } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitCode, usageError } from '../exit-codes.js';
import { palette, statusColor } from '../output/color.js';
import { print } from '../output/render.js';
import { formatOf, withOutput } from './shared.js';

// The field's whole vocabulary (the OSS rows name every resource an edition may serve).
const rbacResourceNames = () => ossRbacVocabulary.names;
const rbacAllActions = () => ossRbacVocabulary.actions;


/** Accepts singular and plural, like kubectl: `instance` → `instances`. */
export function resourceName(text: string): RbacResource {
  const plural = text.endsWith('s') ? text : `${text}s`;
  const names = rbacResourceNames();
  const match = names.find((r) => r === text || r === plural);
  if (!match) throw usageError(`unknown resource "${text}" (one of ${names.join(', ')})`);
  return match;
}

export function actionName(text: string): RbacAction | '*' {
  if (text === '*' || rbacAllActions().includes(text)) return text as RbacAction | '*';
  throw usageError(`unknown action "${text}" (one of ${rbacAllActions().join(', ')}, *)`);
}

export function registerCanI(program: Command, app: App): void {
  withOutput(
    program
      .command('can-i')
      .description('may you do ACTION on RESOURCE? prints yes (exit 0) or no (exit 1)')
      .argument('<action>', `${rbacAllActions().join('|')}|*`)
      .argument('<resource>', rbacResourceNames().join('|'))
      .argument('[object]', 'a project name, * (any) or - (none)', '*'),
  ).action(async (action: string, resource: string, object: string, opts: { output?: string }, cmd: Command) => {
    const checked = { action: actionName(action), resource: resourceName(resource) };
    const { client } = await app.session(cmd);
    // A project you are not in is hidden exactly like one that does not exist (404): to you, the answer is no,
    // as kubectl answers for a namespace that is not there.
    const yes = await client.account.canI(checked.resource, checked.action, object).catch((e: unknown) => {
      if (!(e instanceof PorticoApiError) || e.status !== 404) throw e;
      app.io.err(`project "${object}" not found, or you are not a member of it\n`);
      return false;
    });
    const value = yes ? 'yes' : 'no';
    print(app.io, formatOf(opts), { value }, () => `${statusColor(palette(app.io.color), value)}\n`);
    if (!yes) app.exitCode = ExitCode.no;
  });
}
