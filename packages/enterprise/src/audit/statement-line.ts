/**
 * Group commit over one connection's worth of statements: at most one statement on its way at a time, each
 * carrying every item queued when it left (at most `maxBatch`) and answering every `answered()` that waits on it.
 *
 * - `answered()` resolves with the answer of a statement that answers after the call: the one on its way (it has
 *   not answered yet), else a new one, sent at once with whatever is queued (none: `send([])`, a bare read).
 * - `add(item)` resolves (with the item) once the statement that carries it has answered, or rejects with its failure.
 *   With none on its way (or when it answers) the next statement leaves at the end of the current turn of the
 *   event loop rather than at once, so items added together in a turn travel together.
 * - `carry(item)` is `add` answering what the statement that carried the item answered.
 *
 * The audit trail (append.ts) is this line over its append statement; the recorder's intents and settlements
 * (intents.ts, settle.ts) travel on lines of their own.
 */
export interface StatementLine<Item, Answer> {
  answered(): Promise<Answer>;
  add(item: Item): Promise<Item>;
  carry(item: Item): Promise<Answer>;
}

export function createStatementLine<Item, Answer>(send: (items: readonly Item[]) => Promise<Answer>, maxBatch = 500): StatementLine<Item, Answer> {
  let queue: { item: Item; resolve: (answer: Answer) => void; reject: (error: unknown) => void }[] = [];
  let onItsWay: Promise<Answer> | undefined;
  let leavingSoon = false;
  /** The next statement, at the end of this turn of the event loop, unless one is on its way by then. */
  const sendSoon = () => {
    if (onItsWay || leavingSoon) return;
    leavingSoon = true;
    setImmediate(() => {
      leavingSoon = false;
      // An answered() meanwhile may have sent the queue already.
      if (!onItsWay && queue.length > 0) sendNow().catch(() => undefined);
    });
  };
  const sendNow = (): Promise<Answer> => {
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    // Cleared the moment the answer arrives, so no later answered() takes it for one that came after it; whatever
    // queued meanwhile leaves at the end of this turn, with the items of the work that this answer lets finish.
    const settled = () => {
      onItsWay = undefined;
      if (queue.length > 0) sendSoon();
    };
    const mine = send(batch.map((p) => p.item)).then(
      (answer) => {
        settled();
        for (const p of batch) p.resolve(answer);
        return answer;
      },
      (error: unknown) => {
        settled();
        for (const p of batch) p.reject(error);
        throw error;
      },
    );
    onItsWay = mine;
    return mine;
  };
  const carry = (item: Item) =>
    new Promise<Answer>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      sendSoon();
    });
  return {
    answered: () => onItsWay ?? sendNow(),
    add: (item) => carry(item).then(() => item),
    carry,
  };
}
