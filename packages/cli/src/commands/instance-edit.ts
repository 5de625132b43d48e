import type { Instance } from '@portico/api';
import { PorticoApiError, type PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import YAML from 'yaml';
import type { App } from '../app.js';
import { openEditor } from '../editor.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { describeRef, resolveInstanceRef } from '../instance-ref.js';
import { mergePatchBetween, specProblems } from '../spec-check.js';
import { applySets, readValuesFile, type Values } from '../values.js';
import { withSetOptions } from './shared.js';

interface PatchOptions {
  namespace?: string;
  set?: string[];
  setString?: string[];
  file?: string;
  patch?: string;
}

function parsePatch(text: string): Values {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw usageError(`--patch is not valid JSON or YAML: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw usageError('--patch must be a mapping, e.g. {"replicas": 3}');
  return doc as Values;
}

/** Refuses a spec the RGD's values schema rejects, before anything is sent. */
async function checkSpec(client: PorticoClient, instance: Instance, spec: Values): Promise<string[]> {
  const rgd = await client.rgds.get(instance.rgdName);
  return specProblems(rgd.schema, spec);
}

const header = (i: Instance, problems: string[]) =>
  [
    `# Spec of ${describeRef(i)} (project ${i.project}). Save and close to apply; an unchanged file changes nothing.`,
    '# Lines starting with # are ignored.',
    ...(problems.length ? ['#', '# The last version was not applied:', ...problems.map((p) => `#   ${p}`)] : []),
    '',
  ].join('\n');

export function registerInstanceEdit(instance: Command, app: App): void {
  withSetOptions(
    instance
      .command('patch')
      .description('merge-patch the spec of an instance (null removes a value)')
      .argument('<kind>', 'kind')
      .argument('<name>', 'instance name')
      .option('-n, --namespace <namespace>', 'namespace (found automatically when the name is unique)')
      .option('--patch <json>', 'a JSON or YAML mapping merged into the spec, e.g. \'{"replicas": 3}\''),
  )
    .option('-f, --file <values.yaml>', 'a patch from a YAML or JSON file (--patch and --set win)')
    .action(async (kind: string, name: string, opts: PatchOptions, cmd: Command) => {
      const base = { ...(opts.file ? await readValuesFile(opts.file) : {}), ...(opts.patch ? parsePatch(opts.patch) : {}) };
      const patch = applySets(base, opts.set, opts.setString);
      if (Object.keys(patch).length === 0) throw usageError('nothing to change: pass --patch, --set, --set-string or -f');
      const { client } = await app.session(cmd);
      const ref = await resolveInstanceRef(client, kind, name, opts.namespace);
      const patched = await client.instances.patch(ref, patch);
      app.io.out(`instance ${describeRef(patched)} patched (resourceVersion ${patched.resourceVersion})\n`);
    });

  instance
    .command('edit')
    .description('edit the spec of an instance in $EDITOR; checked against the RGD schema before it is sent')
    .argument('<kind>', 'kind')
    .argument('<name>', 'instance name')
    .option('-n, --namespace <namespace>', 'namespace (found automatically when the name is unique)')
    .action(async (kind: string, name: string, opts: { namespace?: string }, cmd: Command) => {
      if (!app.io.interactive) throw usageError('instance edit needs a terminal; use portico instance patch in scripts');
      const { client } = await app.session(cmd);
      const current = await client.instances.get(await resolveInstanceRef(client, kind, name, opts.namespace));
      const dir = await mkdtemp(join(tmpdir(), 'portico-edit-'));
      const file = join(dir, `${current.kind}-${current.name}.yaml`);
      let keep = false;
      try {
        let text = `${header(current, [])}${YAML.stringify(current.spec)}`;
        for (;;) {
          await writeFile(file, text, { mode: 0o600 });
          openEditor(app.io, file);
          const edited = await readFile(file, 'utf8');
          if (edited === text) {
            if (text.includes('# The last version was not applied:')) {
              keep = true;
              throw new CliError(`edit abandoned; your last version is in ${file}`, ExitCode.failure);
            }
            return app.io.out('Edit cancelled, no changes made.\n');
          }
          const problems: string[] = [];
          let spec: Values = {};
          try {
            const doc: unknown = YAML.parse(edited) ?? {};
            if (typeof doc !== 'object' || Array.isArray(doc)) problems.push('the spec must be a mapping');
            else spec = doc as Values;
          } catch (e) {
            problems.push(`not valid YAML: ${(e as Error).message.split('\n')[0]}`);
          }
          if (!problems.length) problems.push(...(await checkSpec(client, current, spec)));
          if (problems.length) {
            // As kubectl edit does: reopen the file with the problems on top instead of losing the work.
            text = `${header(current, problems)}${edited.replace(/^(#.*\n)*\n?/, '')}`;
            continue;
          }
          const patch = mergePatchBetween(current.spec, spec);
          if (Object.keys(patch).length === 0) return app.io.out('Edit cancelled, no changes made.\n');
          const patched = await patchUnlessSpecMoved(client, current, patch);
          if (patched) return app.io.out(`instance ${describeRef(patched)} edited (resourceVersion ${patched.resourceVersion})\n`);
          keep = true;
          throw new CliError(`${describeRef(current)} changed while you edited it; nothing was applied, your version is in ${file}`, ExitCode.failure);
        }
      } finally {
        if (!keep) await rm(dir, { recursive: true, force: true });
      }
    });
}

/**
 * Sends the edit with the version it was made against. The controller writes status and history while an
 * instance deploys, which moves its resourceVersion without touching the spec; an edit is only stale when
 * the spec itself changed, so after a conflict over an unchanged spec it is sent again against the new version.
 * Undefined: someone else changed the spec.
 */
async function patchUnlessSpecMoved(client: PorticoClient, edited: Instance, patch: Values): Promise<Instance | undefined> {
  let base = edited;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      return await client.instances.patch(base, patch, { resourceVersion: base.resourceVersion });
    } catch (e) {
      if (!(e instanceof PorticoApiError && e.code === 'CONFLICT')) throw e;
    }
    base = await client.instances.get(base);
    if (!isDeepStrictEqual(base.spec, edited.spec)) return undefined;
  }
  return undefined;
}
