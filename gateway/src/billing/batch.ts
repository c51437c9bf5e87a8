interface Waiter {
  resolve(reply: string[]): void;
  reject(err: unknown): void;
}

/** One party's calls of one turn, as sent: the party's head keys then one key per item; shared ARGV then items'. */
export interface Batch {
  partyId: string;
  keys: string[];
  args: string[];
}

interface PendingBatch extends Batch {
  waiters: Waiter[];
}

/**
 * Gathers one party's calls of one batch script made within one event-loop turn into a single call, and
 * sends every party's batch of the turn in one write. Under load a turn carries many requests, so this
 * costs one script run and one client command per party per turn instead of one per request; alone, a
 * request waits only for the end of the turn it arrived in.
 */
export class TurnBatcher {
  #batches = new Map<string, PendingBatch>();
  #scheduled = false;

  /**
   * @param head the keys every call for a party starts with, then the item's own key
   * @param shared the ARGV every call starts with (taken when the batch is sent), then each item's args
   * @param send runs the script for several parties at once; per batch, in order, its replies or the error
   */
  constructor(
    private readonly head: (partyId: string) => string[],
    private readonly shared: () => string[],
    private readonly send: (batches: Batch[]) => Promise<Array<string[][] | Error>>,
  ) {}

  add(partyId: string, key: string, args: readonly string[]): Promise<string[]> {
    let batch = this.#batches.get(partyId);
    if (!batch) {
      batch = { partyId, keys: this.head(partyId), args: [], waiters: [] };
      this.#batches.set(partyId, batch);
    }
    batch.keys.push(key);
    for (const a of args) batch.args.push(a);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
    return new Promise((resolve, reject) => batch.waiters.push({ resolve, reject }));
  }

  #flush = () => {
    this.#scheduled = false;
    const batches = [...this.#batches.values()];
    this.#batches = new Map();
    const shared = this.shared();
    this.send(batches.map((b) => ({ partyId: b.partyId, keys: b.keys, args: [...shared, ...b.args] }))).then(
      (results) => {
        batches.forEach((b, i) => {
          const items = results[i];
          if (!Array.isArray(items)) {
            for (const w of b.waiters) w.reject(items ?? new Error("no reply for a ledger batch"));
            return;
          }
          b.waiters.forEach((w, j) => {
            const reply = items[j];
            if (reply) w.resolve(reply);
            else w.reject(new Error("ledger script returned fewer replies than items"));
          });
        });
      },
      (err: unknown) => {
        for (const b of batches) for (const w of b.waiters) w.reject(err);
      },
    );
  };
}
