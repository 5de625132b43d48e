import { parseArgs } from 'node:util';
import { isPorticoError, resetAdminPassword, type Logger, type PorticoConfig } from '@portico/core';
import { passwordBox } from './console/password-box.js';

const usage = `usage: portico-server admin reset-password [--password-stdin]

Sets a new password for the built-in admin on the configured cluster (the embedded data dir, or the
Kubernetes namespace) and revokes the admin's tokens. Without --password-stdin a password is generated and
printed. With the embedded cluster, stop the server first: a running server holds the data dir.
`;

const readStdin = async (): Promise<string> => {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
};

/** `portico-server admin …`: operator tasks run against the configured cluster, like `argocd admin`. */
export async function runAdminCommand(args: string[], config: PorticoConfig, logger: Logger, url: string): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, strict: false, options: { 'password-stdin': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help || positionals[0] !== 'reset-password' || positionals.length > 1) {
    process.stderr.write(usage);
    return values.help ? 0 : 2;
  }
  const password = values['password-stdin'] ? await readStdin() : undefined;
  if (password !== undefined && password.length === 0) {
    process.stderr.write('portico-server: the password read from standard input is empty\n');
    return 2;
  }
  let reset: Awaited<ReturnType<typeof resetAdminPassword>>;
  try {
    reset = await resetAdminPassword({ config, logger, password });
  } catch (error) {
    // A refusal Portico explains (a data dir another server holds) is one line, not a start-up failure.
    if (!isPorticoError(error)) throw error;
    process.stderr.write(`portico-server: ${error.message}\n`);
    return 1;
  }
  if (reset.generated) process.stdout.write(passwordBox(reset.password, url));
  else process.stdout.write('admin password changed; every earlier admin token is revoked\n');
  return 0;
}
