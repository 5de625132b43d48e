import { Command } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import type { App } from './app.js';
import { declareArgumentNames } from './completion.js';
import { registerAccount } from './commands/account.js';
import { registerAudit } from './commands/audit.js';
import { registerCanI } from './commands/can-i.js';
import { registerCategory } from './commands/category.js';
import { registerCompletion } from './commands/completion.js';
import { registerCompliance } from './commands/compliance.js';
import { registerComplianceExport } from './commands/compliance-export.js';
import { registerContext } from './commands/context.js';
import { registerInstance } from './commands/instance.js';
import { registerLicense } from './commands/license.js';
import { registerLogin } from './commands/login.js';
import { registerLogout } from './commands/logout.js';
import { registerProject } from './commands/project.js';
import { registerRgd } from './commands/rgd.js';
import { registerView } from './commands/view.js';
import { registerSecret } from './commands/secret.js';
import { registerSso } from './commands/sso.js';
import { registerRepo } from './commands/repo.js';
import { registerVersion } from './commands/version.js';

/** The `portico` command tree. Settings made here before `.command()` calls are inherited by every subcommand. */
export function createProgram(app: App): Command {
  const program = new Command('portico')
    .description('Portico: self-service catalog, projects and instances on Kubernetes')
    .version(pkg.version, '-v, --version')
    .option('--server <url>', 'Portico server URL (overrides the context; env PORTICO_SERVER)')
    .option('--token <token>', 'bearer token (overrides the context; env PORTICO_TOKEN)')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (s) => app.io.out(s),
      writeErr: (s) => app.io.err(s),
      getOutHelpWidth: () => app.io.columns ?? 100,
      getErrHelpWidth: () => app.io.columns ?? 100,
    })
    // `--no-headers` (withOutput) is read once here, so a table drawn anywhere in the command honours it.
    .hook('preAction', (_program, command) => {
      if (command.opts().headers === false) app.io = { ...app.io, tableHeaders: false };
    });

  registerLogin(program, app);
  registerLogout(program, app);
  registerContext(program, app);
  registerRgd(program, app);
  registerProject(program, app);
  registerInstance(program, app);
  registerSecret(program, app);
  registerRepo(program, app);
  registerAccount(program, app);
  registerSso(program, app);
  registerCanI(program, app);
  registerAudit(program, app);
  registerLicense(program, app);
  registerCategory(program, app);
  registerView(program, app);
  registerCompliance(program, app);
  // After the `compliance` group: export joins it rather than making a second one.
  registerComplianceExport(program, app);
  registerCompletion(program, app);
  registerVersion(program, app);
  declareArgumentNames(program);
  return program;
}
