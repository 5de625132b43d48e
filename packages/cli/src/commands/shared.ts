import { LabelSelectorError, parseLabelSelector, type LabelRequirement, type Project } from '@portico/api';
import { isPorticoApiError, type PorticoClient } from '@portico/client';
import { Option, type Command } from 'commander';
import { usageError } from '../exit-codes.js';
import type { Io } from '../io.js';
import { outputFormat, outputFormats, type OutputFormat } from '../output/render.js';
import type { TableOptions } from '../output/table.js';
import { askChoice, askText, need } from '../prompts.js';

/**
 * `-o table|wide|json|yaml|name|jsonpath=…` and `--no-headers` on a read command. The program applies
 * `--no-headers` to the command's Io before it runs (program.ts), so every table honours it through tableOptions.
 */
export const withOutput = (cmd: Command) =>
  cmd
    .addOption(new Option('-o, --output <format>', `output format: ${outputFormats.join(', ')}`).default('table').argParser((v) => outputFormat(v)))
    .option('--no-headers', 'print table rows without the header line (table and wide output)');

export const formatOf = (opts: { output?: string }): OutputFormat => outputFormat(opts.output);

export const tableOptions = (io: Io, wide = false): TableOptions => ({ width: wide ? undefined : io.columns, color: io.color, wide, headers: io.tableHeaders !== false });

/** Repeatable options (`--destination a --destination b`). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--set`, `--set-string` (read with values.ts's applySets) on the commands that take instance values. */
export const withSetOptions = (cmd: Command) =>
  cmd
    .option('--set <path=value>', 'a value, typed (numbers, true/false, null, JSON); a.b=1 nests; repeatable', collect)
    .option('--set-string <path=value>', 'a value kept as a string; repeatable', collect);

/** `-l, --selector` (kubectl's spelling): the server filters the list; a watch filters its events with selectorOf. */
export const withSelector = (cmd: Command) =>
  cmd.option('-l, --selector <selector>', 'only those whose labels match (label selector: k=v, k!=v, k in (a,b), k notin (a,b), k, !k; comma is AND)');

/** The requirements of `-l`, checked before anything is asked of the server: a bad selector is a usage error. */
export function selectorOf(text: string | undefined): LabelRequirement[] | undefined {
  if (text === undefined) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (e) {
    if (e instanceof LabelSelectorError) throw usageError(`-l, --selector: ${e.message}`);
    throw e;
  }
}

/**
 * `-A, --all-projects` on a list scoped by project (kubectl's and argocd's spelling). Where the project is the
 * `-p` option, commander refuses the two together (exit 2); where it is an argument, see refuseProjectWithAll.
 */
export const withAllProjects = (cmd: Command, projectIsOption = true) => {
  const option = new Option('-A, --all-projects', 'list across every project you may see (tables show a PROJECT column)');
  return cmd.addOption(projectIsOption ? option.conflicts('project') : option);
};

/** The usage error of `-A` with a PROJECT argument, in the words commander uses for `-A` with `-p`. */
export function refuseProjectWithAll(allProjects: boolean | undefined, project: string | undefined): void {
  if (allProjects && project !== undefined) throw usageError("option '-A, --all-projects' cannot be used with the PROJECT argument");
}

/**
 * `read` for every project the caller may see, in the server's order. A project where the caller may see the
 * project but not this list (403), or that went away meanwhile (404), is left out, as a list filters what the
 * caller may see; any other failure ends the command.
 */
export async function acrossProjects<T>(client: PorticoClient, read: (project: Project) => Promise<T>): Promise<Array<{ project: Project; value: T }>> {
  const { items } = await client.projects.list();
  const out: Array<{ project: Project; value: T }> = [];
  for (const project of items) {
    try {
      out.push({ project, value: await read(project) });
    } catch (e) {
      if (isPorticoApiError(e) && (e.status === 403 || e.status === 404)) continue;
      throw e;
    }
  }
  return out;
}

export const list = (items: readonly string[] | undefined) => (items && items.length ? items.join(', ') : '-');

/** A project the command needs: given, or picked from the caller's projects on a terminal. */
export async function needProject(io: Io, client: PorticoClient, value: string | undefined, missing: string): Promise<string> {
  return need(io, value, missing, async () => {
    const { items } = await client.projects.list();
    return items.length ? askChoice('Project', items.map((p) => p.name)) : askText('Project');
  });
}

/** A role of `project`: given, or picked from the project's roles on a terminal. */
export async function needRole(io: Io, client: PorticoClient, project: string, value: string | undefined): Promise<string> {
  return need(io, value, 'ROLE argument', async () => {
    const { roles } = await client.projects.get(project);
    return roles.length ? askChoice('Role', roles.map((r) => r.name)) : askText('Role');
  });
}
