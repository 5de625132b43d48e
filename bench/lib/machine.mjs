// How busy the whole machine was (Linux /proc), so a benchmark can tell its own CPU from the rest: other work on a
// shared machine, Redis, and the kernel's packet processing (softirq: on loopback, the receiving side of every
// TCP write). Every reader returns undefined where /proc does not exist.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** USER_HZ: /proc counts in 1/100 s on every Linux architecture Node runs on. */
const TICK_MS = 10;

export const cores = availableParallelism();

/** CPU time of all cores so far, ms: `busy` (everything but idle and iowait; steal counts as busy) and `softirq`. */
export function machineCpuMs() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (user + nice + system + irq + softirq + (steal || 0)) * TICK_MS, softirq: softirq * TICK_MS };
  } catch {
    return undefined;
  }
}

/** Pids of the processes whose command name is `name` (e.g. `redis-server`). */
export function pidsNamed(name) {
  try {
    return readdirSync('/proc').filter((d) => /^\d+$/.test(d) && readComm(d) === name);
  } catch {
    return [];
  }
}

const readComm = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** CPU time (user + system) the processes used so far, ms. */
export function processesCpuMs(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      // fields after the parenthesised command name: state is field 3, utime 14, stime 15
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** This process's CPU time so far (user + system), µs. */
export function ownCpuUs() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Who used the CPU over a window, in ms: the processes named `names` (listed again at the end, so ones started
 * meanwhile count), this process, the kernel's packet processing (softirq) and the machine as a whole. `other(ms)`
 * is what is left after those and `ms` measured elsewhere (e.g. child processes that report their own CPU).
 * Without /proc, `busyMs`, `softirqMs` and `other` are NaN.
 */
export function cpuWindow(names = []) {
  const named = () => processesCpuMs(names.flatMap((name) => pidsNamed(name)));
  const machine0 = machineCpuMs();
  const named0 = named();
  const own0 = ownCpuUs();
  const t0 = performance.now();
  return function end() {
    const machine1 = machineCpuMs();
    const namedMs = named() - named0;
    const ownMs = (ownCpuUs() - own0) / 1000;
    const wallMs = performance.now() - t0;
    const busyMs = machine0 && machine1 ? machine1.busy - machine0.busy : NaN;
    const softirqMs = machine0 && machine1 ? machine1.softirq - machine0.softirq : NaN;
    return { wallMs, namedMs, ownMs, busyMs, softirqMs, other: (ms) => Math.max(0, busyMs - softirqMs - namedMs - ownMs - ms) };
  };
}
