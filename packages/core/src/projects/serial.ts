/**
 * Runs tasks that share a key one after another, in call order; tasks with different keys run concurrently.
 * A failed task does not stop the ones queued behind it. Keys are forgotten once their queue drains.
 */
type Serially = <T>(key: string, task: () => Promise<T>) => Promise<T>;

export function createSerially(): Serially {
  const tails = new Map<string, Promise<void>>();
  return (key, task) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
