import type { Logger } from '../../../logger.js';

/** The least pause after a step that failed (the API server did not answer). */
const FAILED_STEP_RETRY_MS = 250;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

interface StepLoop {
  /** Something changed: from idle react at once (kro reacts to watch events); while walking, one step per stepMs. */
  wake(): void;
  idle(): boolean;
  stopped(): boolean;
  /** No more steps; resolves once the one under way (if any) is done. */
  stop(): Promise<void>;
}

interface StepLoopOptions {
  stepMs: number;
  logger: Logger;
  /** The loop went idle: nothing to do until the next wake. */
  onIdle(): void;
}

/** Runs `step` (which answers whether more work is pending) until there is nothing left to do. */
export function createStepLoop(step: () => Promise<boolean>, { stepMs, logger, onIdle }: StepLoopOptions): StepLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let idle = true;
  let woken = false;
  let stopped = false;

  const schedule = (delayMs: number) => {
    idle = false;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  function run() {
    timer = undefined;
    woken = false;
    let failed = false;
    running = step()
      .catch((err) => {
        failed = true;
        if (!stopped) logger.warn({ err: String(err) }, 'kro simulator: step failed, retrying');
        return true;
      })
      .then((busy) => {
        running = undefined;
        if (stopped) return;
        // Failures wait a little longer, so an unreachable API server is not hammered at the walking pace.
        if (failed) schedule(Math.max(stepMs, FAILED_STEP_RETRY_MS));
        else if (busy || woken) schedule(stepMs);
        else {
          idle = true;
          onIdle();
        }
      });
  }

  return {
    wake() {
      woken = true;
      if (idle && !stopped) schedule(0);
    },
    idle: () => idle,
    stopped: () => stopped,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
      idle = true;
    },
  };
}

/** Callers waiting for a condition, released when it holds at a notify. */
interface Waiters {
  notify(): void;
  /** Resolves once the condition holds, after watch events already on their way have landed. */
  wait(): Promise<void>;
}

export function createWaiters(holds: () => boolean): Waiters {
  let waiters: (() => void)[] = [];
  return {
    notify() {
      if (!holds()) return;
      const resolved = waiters;
      waiters = [];
      for (const resolve of resolved) resolve();
    },
    async wait() {
      for (;;) {
        await tick(); // lets watch events already on their way land first
        if (holds()) return;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
