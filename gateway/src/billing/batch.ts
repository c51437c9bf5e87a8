/** A script's reply for one item: bulk strings, and integers where the script answers Lua numbers. */
export type Reply = Array<string | number>;

interface Waiter {
  resolve(reply: Reply): void;
  reject(err: unknown): void;
}

/**
 * One party's calls of one script in one turn, as sent: the party's head keys then one key per item; the
 * script's shared ARGV then each item's args.
 */
export interface Batch<Script extends string> {
  script: Script;
  partyId: string;
  keys: string[];
  args: string[];
  /** How many calls it carries (its replies past them ask for a dirty mark). */
  items: number;
}

interface PendingBatch<Script extends string> extends Omit<Batch<Script>, "items"> {
  waiters: Waiter[];
}

/**
 * Gathers the calls of each batch script made within one event-loop turn into one call per script and
 * party, and hands every batch of the turn to `send` at once (which puts them in one socket write). Under
 * load a turn carries many requests, so this costs one script run per party per turn instead of one per
 * request; alone, a request waits only for the end of the turn it arrived in.
 */
export class TurnBatcher<Script extends string> {
  #batches = new Map<string, PendingBatch<Script>>();
  #scheduled = false;

  /**
   * @param layout per script, the keys every call for a party starts with (then each item's own key), and
   *   the ARGV every call starts with (then each item's args), both taken when the batch is sent, at one time
   * @param send runs all batches of a turn; per batch, in order, its replies or the error
   */
  constructor(
    private readonly layout: Record<
      Script,
      { head(partyId: string, now: number): string[]; shared(now: number): string[] }
    >,
    private readonly send: (batches: Batch<Script>[]) => Promise<Array<Reply[] | Error>>,
  ) {}

  add(script: Script, partyId: string, key: string, args: readonly string[]): Promise<Reply> {
    const id = `${script}\0${partyId}`;
    let batch = this.#batches.get(id);
    if (!batch) {
      batch = { script, partyId, keys: [], args: [], waiters: [] };
      this.#batches.set(id, batch);
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
    const now = Date.now();
    const shared = {} as Record<Script, string[]>;
    for (const script of Object.keys(this.layout) as Script[])
      shared[script] = this.layout[script].shared(now);
    this.send(
      batches.map((b) => ({
        script: b.script,
        partyId: b.partyId,
        keys: [...this.layout[b.script].head(b.partyId, now), ...b.keys],
        args: [...shared[b.script], ...b.args],
        items: b.waiters.length,
      })),
    ).then(
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
