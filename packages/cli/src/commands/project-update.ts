import type { Command } from 'commander';
import type { App } from '../app.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { changeProject } from '../project-update.js';
import { collect } from './shared.js';

const destinationsOf = (namespaces: string[]) => namespaces.map((namespace) => ({ namespace }));

/** Changes to a project's description and destinations; each one a read-change-write on the resourceVersion. */
export function registerProjectUpdate(project: Command, app: App): void {
  project
    .command('update')
    .description('change a project description or replace its destinations')
    .argument('<name>', 'project name')
    .option('--description <text>', 'the new description')
    .option('--destination <namespace>', 'the destinations, replacing the current ones; repeatable', collect)
    .action(async (name: string, opts: { description?: string; destination?: string[] }, cmd: Command) => {
      if (opts.description === undefined && opts.destination === undefined) throw usageError('nothing to change: pass --description and/or --destination');
      const { client } = await app.session(cmd);
      await changeProject(client, name, () => ({
        description: opts.description,
        destinations: opts.destination && destinationsOf(opts.destination),
      }));
      app.io.out(`project "${name}" updated\n`);
    });

  project
    .command('add-destination')
    .description('let instances of a project go to more namespaces')
    .argument('<name>', 'project name')
    .argument('<namespace...>', 'namespaces or patterns (*, prefix*, *suffix)')
    .action(async (name: string, namespaces: string[], _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      const updated = await changeProject(client, name, (p) => {
        const have = p.destinations.map((d) => d.namespace);
        return { destinations: destinationsOf([...have, ...namespaces.filter((n, i) => !have.includes(n) && namespaces.indexOf(n) === i)]) };
      });
      app.io.out(`project "${name}" destinations: ${updated.destinations.map((d) => d.namespace).join(', ')}\n`);
    });

  project
    .command('remove-destination')
    .description('stop instances of a project from going to namespaces (existing instances stay)')
    .argument('<name>', 'project name')
    .argument('<namespace...>', 'destinations to remove, as listed by portico project get')
    .action(async (name: string, namespaces: string[], _opts: unknown, cmd: Command) => {
      const { client } = await app.session(cmd);
      const updated = await changeProject(client, name, (p) => {
        const unknown = namespaces.filter((n) => !p.destinations.some((d) => d.namespace === n));
        if (unknown.length) throw new CliError(`project "${name}" has no destination ${unknown.join(', ')}`, ExitCode.no);
        return { destinations: p.destinations.filter((d) => !namespaces.includes(d.namespace)) };
      });
      const left = updated.destinations.map((d) => d.namespace);
      app.io.out(`project "${name}" destinations: ${left.length ? left.join(', ') : '(none)'}\n`);
    });
}
