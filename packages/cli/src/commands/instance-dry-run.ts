import type { PreflightResponse } from '@portico/api';
import type { PorticoClient, PreflightInput } from '@portico/client';
import { CliError, ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { print, type OutputFormat } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { applySets, readValuesFile, type Values } from '../values.js';
import { tableOptions } from './shared.js';

/**
 * `portico instance create --dry-run`: the server's preflight (contract §11.4) — every check of a create, in its
 * order, nothing written. People get the checks as a table; `-o json|yaml` the answer as is. A create that would
 * fail exits 1 with the first failing check's message, so a script can test it.
 */
export async function dryRunCreate(io: Io, client: PorticoClient, input: PreflightInput, format: OutputFormat): Promise<void> {
  const result = await client.instances.preflight(input);
  print(io, format, result, { table: (wide) => checksTable(io, result, wide) });
  if (!result.valid) throw new CliError(`the create would fail: ${result.message ?? 'a check failed'}`, ExitCode.no);
  if (format === 'table' || format === 'wide') io.err(`${input.kind}/${input.name ?? '(no name)'} would be created (nothing was written)\n`);
}

function checksTable(io: Io, result: PreflightResponse, wide: boolean): string {
  return renderTable(
    [
      { header: 'check', value: (c) => c.name },
      { header: 'result', value: (c) => (c.ok ? 'ok' : 'failed'), style: (t, p) => (t === 'ok' ? p.green(t) : p.red(t)) },
      { header: 'message', value: (c) => c.message ?? '' },
    ],
    result.checks,
    tableOptions(io, wide),
  );
}

/** The values as given (-f, --set): a dry run asks nothing, since the server's `values` check names what is missing. */
export async function valuesAsGiven(opts: { file?: string; set?: string[]; setString?: string[] }): Promise<Values> {
  return applySets(opts.file ? await readValuesFile(opts.file) : {}, opts.set, opts.setString);
}
