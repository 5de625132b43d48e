import type { DeployProgress, Instance } from '@portico/api';
import { PorticoApiError, type EventSubscription, type PorticoClient } from '@portico/client';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { parseDuration } from '../duration.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { print } from '../output/render.js';
import { formatOf, needProject, withOutput } from './shared.js';

/** How long the CLI waits for the event stream before deleting, and for the last steps after the answer. */
const streamWaitMs = 5_000;

/** What `-o json|yaml` prints: the project and the instances it was deleted with. */
interface DeletedProject {
  project: string;
  instances: { namespace: string; kind: string; name: string; deploymentMode: string }[];
}

const idOf = (i: { namespace: string; kind: string; name: string }) => `${i.namespace}/${i.kind}/${i.name}`;
const labelOf = (d: DeployProgress) => `${d.kind}/${d.name}${d.namespace ? ` in ${d.namespace}` : ''}`;
/** The step after which nothing more comes for an instance: gone, or handed to its GitOps controller. */
const isLastStep = (d: DeployProgress) => d.phase === 'DELETED' || d.phase === 'ERROR' || d.message.startsWith('removed from Git');

/**
 * Follows the project's `deploy_progress` frames, resolving once the server has acknowledged the subscription
 * (or after a short while without it: the deletion goes ahead, only without progress lines).
 */
async function followProgress(app: App, client: PorticoClient, project: string, onStep: (d: DeployProgress) => void): Promise<EventSubscription> {
  let ready: () => void = () => undefined;
  const subscribed = new Promise<void>((resolve) => (ready = resolve));
  const sub = client.events.subscribe(
    { resourceType: 'instances', project },
    {
      onEvent: (m) => {
        if (m.type === 'subscribed') ready();
        else if (m.type === 'deploy_progress') onStep(m.data);
      },
      onError: (e) => app.io.err(`warning: progress: ${e.message}\n`),
    },
  );
  const timer = setTimeout(() => {
    app.io.err('warning: no progress stream from the server; deleting without progress lines\n');
    ready();
  }, streamWaitMs);
  await subscribed;
  clearTimeout(timer);
  return sub;
}

/** Resolves once `done()` holds, checked now and whenever `changed` is called, or after `ms`. */
function settled(done: () => boolean, ms: number, changed: { listener?: () => void }): Promise<void> {
  return new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      changed.listener = undefined;
      resolve();
    };
    const timer = setTimeout(finish, ms);
    changed.listener = () => done() && finish();
    changed.listener();
  });
}

export function registerProjectDelete(project: Command, app: App): void {
  withOutput(
    project
      .command('delete')
      .description('delete a project with its secrets; one that still has instances needs --cascade')
      .argument('[name]', 'project name')
      .option('--cascade', "delete the project's instances first, showing each one's progress")
      .option('--timeout <duration>', 'how long the deletion (with --cascade: of every instance) may take', '5m'),
  ).action(async (name: string | undefined, opts: { output?: string; cascade?: boolean; timeout: string }, cmd: Command) => {
    const timeoutMs = parseDuration(opts.timeout);
    const format = formatOf(opts);
    const forPeople = format === 'table' || format === 'wide';
    const { client } = await app.session(cmd);
    const target = await needProject(app.io, client, name, 'NAME argument');

    const instances: Instance[] = [];
    if (opts.cascade) for await (const i of client.instances.all({ project: target, pageSize: 500 })) instances.push(i);
    const finished = new Set<string>();
    const changed: { listener?: () => void } = {};
    const sub = opts.cascade
      ? await followProgress(app, client, target, (d) => {
          if (forPeople) app.io.out(`${labelOf(d)}  ${d.phase}  ${d.message}\n`);
          if (isLastStep(d)) finished.add(idOf(d));
          changed.listener?.();
        })
      : undefined;
    try {
      await client.projects.delete(target, { cascade: opts.cascade, timeoutMs });
      // The answer and the last frames travel on different connections: let the frames catch up.
      if (sub) await settled(() => instances.every((i) => finished.has(idOf(i))), streamWaitMs, changed);
    } catch (e) {
      if (e instanceof PorticoApiError && e.code === 'CONFLICT' && typeof e.details.instances === 'number' && !opts.cascade) {
        throw new CliError(`project "${target}" still has ${e.details.instances} instance(s): delete them first, or run again with --cascade`, ExitCode.failure);
      }
      throw e;
    } finally {
      sub?.close();
    }

    const result: DeletedProject = {
      project: target,
      instances: instances.map((i) => ({ namespace: i.namespace, kind: i.kind, name: i.name, deploymentMode: i.deploymentMode })),
    };
    const count = instances.length ? ` with its ${instances.length} instance(s)` : '';
    print(app.io, format, result, { table: () => `project "${target}" deleted${count}\n`, names: () => [`project/${target}`] });
  });
}
