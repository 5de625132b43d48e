// Starts a benchmark child process and waits for its first IPC message (its port or readiness).
// `opts.execArgv` replaces the runner's node flags for the child (e.g. `--cpu-prof` to profile it).
import { fork } from 'node:child_process';

export function startChild(script, args = [], env = {}, opts = {}) {
  const child = fork(script, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(opts.execArgv ? { execArgv: opts.execArgv } : {}),
  });
  const first = new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  const request = (msg) =>
    new Promise((resolve) => {
      const id = Math.random().toString(36).slice(2);
      const onMessage = (m) => {
        if (m && m.id === id) {
          child.off('message', onMessage);
          resolve(m.result);
        }
      };
      child.on('message', onMessage);
      child.send({ ...msg, id });
    });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.send('stop');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return { child, ready: first, request, stop };
}
