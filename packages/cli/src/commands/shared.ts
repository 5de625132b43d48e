import type { PorticoClient } from '@portico/client';
import { Option, type Command } from 'commander';
import type { Io } from '../io.js';
import { outputFormat, outputFormats, type OutputFormat } from '../output/render.js';
import type { TableOptions } from '../output/table.js';
import { askChoice, askText, need } from '../prompts.js';

/** `-o table|wide|json|yaml|name|jsonpath=…` on a read command. */
export const withOutput = (cmd: Command) =>
  cmd.addOption(new Option('-o, --output <format>', `output format: ${outputFormats.join(', ')}`).default('table').argParser((v) => outputFormat(v)));

export const formatOf = (opts: { output?: string }): OutputFormat => outputFormat(opts.output);

export const tableOptions = (io: Io, wide = false): TableOptions => ({ width: wide ? undefined : io.columns, color: io.color, wide });

/** Repeatable options (`--destination a --destination b`). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--set`, `--set-string` (read with values.ts's applySets) on the commands that take instance values. */
export const withSetOptions = (cmd: Command) =>
  cmd
    .option('--set <path=value>', 'a value, typed (numbers, true/false, null, JSON); a.b=1 nests; repeatable', collect)
    .option('--set-string <path=value>', 'a value kept as a string; repeatable', collect);

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
