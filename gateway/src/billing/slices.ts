import type { ReservationHandle } from "./ledger.ts";

/** How a provider bills upgraded connections (its provider record, docs/architecture.md §11). */
export interface SliceTerms {
  /** Price of one slice, decimal USD (the provider's slice price, else its request price). */
  costInUsd: string;
  /** Longest a slice lasts. */
  ms: number;
  /** Most client messages one slice carries; null: no cap. */
  messages: number | null;
}

/** The next slice is reserved this long before the current one ends, so it is paid before it is used. */
const leadMs = (terms: SliceTerms) => Math.min(5_000, Math.floor(terms.ms / 10));

/**
 * Bills one upgraded connection in slices (docs/architecture.md §11). The upgrade itself reserved and
 * registered slice 1. Each further slice is reserved before it is used: time slices `leadMs` ahead of the
 * boundary, message slices when the message that opens them arrives (which waits meanwhile). A slice is
 * registered (charged in full) when it starts; one reserved ahead that never starts is released. When a
 * slice cannot be reserved (balance, a per-party limit, Redis unreachable), `onUnpaid` closes the
 * connection; what was used stays charged.
 *
 * The key is checked again as a new request would check it (`authorized`) before a slice is reserved
 * ahead, before it starts and before each client message: once it is refused (deactivated, expired,
 * rotated out), `onRefused` closes the connection, a slice reserved ahead is released and nothing more is
 * charged.
 */
export function meterSlices(deps: {
  terms: SliceTerms;
  /** Reserves slice `n`: the handle, or null when the party cannot pay for it. */
  reserve(n: number): Promise<ReservationHandle | null>;
  /** Registers a reserved slice as it starts. */
  start(r: ReservationHandle): Promise<void>;
  /** Releases a slice reserved ahead and never started. */
  release(r: ReservationHandle): Promise<void>;
  onUnpaid(): void;
  /** Whether the connection's key still admits a new request; also refreshes the budget `reserve` uses. */
  authorized(): Promise<boolean>;
  onRefused(): void;
}) {
  const { terms } = deps;
  let slice = 1;
  let used = 0;
  let closed = false;
  let ahead: Promise<ReservationHandle | null> | undefined;
  let switching: Promise<boolean> | undefined;
  let reserveTimer: NodeJS.Timeout | undefined;
  let boundaryTimer: NodeJS.Timeout | undefined;
  const reserve = (n: number) => deps.reserve(n).catch(() => null);
  const authorized = () => deps.authorized().catch(() => false);

  const stopTimers = () => {
    clearTimeout(reserveTimer);
    clearTimeout(boundaryTimer);
  };
  const schedule = () => {
    stopTimers();
    const next = slice + 1;
    // Unref'd: the connection's sockets keep the process alive, not its bill.
    reserveTimer = setTimeout(() => {
      ahead ??= authorized().then((ok) => (ok && !closed ? reserve(next) : null));
    }, terms.ms - leadMs(terms)).unref();
    boundaryTimer = setTimeout(() => void advance(), terms.ms).unref();
  };

  /** Ends the connection for a refused key: nothing reserved ahead is kept, nothing more is charged. */
  function refuse(paid: ReservationHandle | null): Promise<boolean> {
    const release = paid ? deps.release(paid) : Promise.resolve();
    if (!closed) {
      closed = true;
      stopTimers();
      deps.onRefused();
    }
    return release.then(() => false);
  }

  /** Moves to the next slice: true once it is paid and started, false when the connection is over. */
  function advance(): Promise<boolean> {
    switching ??= (async () => {
      const next = slice + 1;
      const early = ahead;
      ahead = undefined;
      // One reserved ahead that failed (the balance was short then) is tried again: a payment may have come.
      const earlyPaid = (early && (await early)) || null;
      if (!closed && !(await authorized())) return refuse(earlyPaid);
      const paid = earlyPaid || (closed ? null : await reserve(next));
      if (closed) {
        if (paid) await deps.release(paid);
        return false;
      }
      if (!paid) {
        closed = true;
        stopTimers();
        deps.onUnpaid();
        return false;
      }
      await deps.start(paid);
      slice = next;
      used = 0;
      schedule();
      return true;
    })().finally(() => {
      switching = undefined;
    });
    return switching;
  }

  schedule();
  return {
    /** Before each client message is forwarded; the message waits until its slice is paid. */
    async message(): Promise<void> {
      if (switching) await switching;
      if (closed) return;
      if (!(await authorized())) {
        await refuse(null);
        return;
      }
      if (terms.messages !== null && used >= terms.messages && !(await advance())) return;
      used++;
    },
    /** The connection ended: no further slice; one reserved ahead is released. */
    stop(): void {
      if (closed) return;
      closed = true;
      stopTimers();
      const early = ahead;
      ahead = undefined;
      void early?.then((r) => r && deps.release(r));
    },
    /** Slices started so far (slice 1 is the upgrade's). */
    get slices() {
      return slice;
    },
  };
}
