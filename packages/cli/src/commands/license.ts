import { readFile } from 'node:fs/promises';
import type { LicenseStatus } from '@portico/api/enterprise';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { usageError } from '../exit-codes.js';
import { readAll } from '../io.js';
import { print } from '../output/render.js';
import { renderDetails } from '../output/table.js';
import { formatOf, list, tableOptions, withOutput } from './shared.js';

function licenseDetails(app: App, status: LicenseStatus): string {
  const license = status.license;
  return renderDetails(
    [
      ['Status', status.status],
      ['Message', status.message],
      ['Customer', license?.customer ?? '-'],
      ['License ID', license?.licenseId ?? '-'],
      ['Edition', license?.edition ?? '-'],
      ['Features', list(license?.features)],
      ['Issued', license?.issuedAt ?? '-'],
      ['Expires', license?.expiresAt ?? '-'],
      ...(status.gracePeriodEnd ? ([['Grace period ends', status.gracePeriodEnd]] as [string, string][]) : []),
      ['Seats', status.seats.max > 0 ? `${status.seats.used} of ${status.seats.max}` : `${status.seats.used} (unlimited)`],
    ],
    tableOptions(app.io),
  );
}

export function registerLicense(program: Command, app: App): void {
  const license = program.command('license').description('the Enterprise license');

  withOutput(license.command('show').description('license status, features and seats')).action(async (opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const status = await client.license.show();
    print(app.io, formatOf(opts), status, () => licenseDetails(app, status));
  });

  withOutput(
    license
      .command('apply')
      .description('install a license (Server Admin); every replica applies it within seconds')
      .argument('<file>', 'file holding the license token, or - for stdin'),
  ).action(async (file: string, opts: { output?: string }, cmd: Command) => {
    const { client } = await app.session(cmd);
    const token = (file === '-' ? await readAll(app.io.stdin) : await readFile(file, 'utf8').catch((e: Error) => Promise.reject(usageError(`cannot read ${file}: ${e.message}`)))).trim();
    if (!token) throw usageError(`${file === '-' ? 'stdin' : file} holds no license token`);
    const status = await client.license.apply(token);
    print(app.io, formatOf(opts), status, () => `license installed\n${licenseDetails(app, status)}`);
  });
}
