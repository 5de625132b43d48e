import type { AuditReport } from './audit-pass.js';
import type { SimulatorState } from './state.js';

/**
 * When audits run: a change schedules one after `debounceMs` (a burst of changes costs one pass), a timer runs
 * one every `auditMs` once started, and a pass asked for while one runs follows it (callers share the next).
 */
export function createAuditLoop(state: SimulatorState, pass: () => Promise<AuditReport>, opts: { debounceMs: number; auditMs: number }) {
  let timer: NodeJS.Timeout | undefined;
  let periodic: NodeJS.Timeout | undefined;
  let running: Promise<AuditReport> | undefined;
  let again = false;

  function schedule() {
    if (state.closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void audit().catch(state.fail('audit failed'));
    }, opts.debounceMs);
    timer.unref();
  }

  async function audit(): Promise<AuditReport> {
    if (running) {
      again = true;
      await running.catch(() => undefined);
      if (running) return running;
    }
    again = false;
    running = pass();
    try {
      return await running;
    } finally {
      running = undefined;
      if (again) schedule();
    }
  }

  return {
    schedule,
    audit,
    startPeriodic() {
      periodic = setInterval(() => void audit().catch(state.fail('audit failed')), opts.auditMs);
      periodic.unref();
    },
    /** Stops the timers and waits for the pass in progress. */
    async stop() {
      clearTimeout(timer);
      clearInterval(periodic);
      await running?.catch(() => undefined);
    },
  };
}
