import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** User + system CPU time of a process so far (Linux /proc, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Figures {
  count: number;
  ms: number;
  bytes: number;
}

/** A request's kind: its path with ids (slots, epochs, roots, state names) as `{id}`, or its JSON-RPC method. */
const kindOf = (url: URL) =>
  url.pathname.replace(/\/(\d+|0x[0-9a-fA-F]+|head|genesis|finalized|justified)(?=\/|$)/g, "/{id}");

const add = (m: Map<string, Figures>, kind: string, ms: number, bytes: number) => {
  const f = m.get(kind) ?? { count: 0, ms: 0, bytes: 0 };
  m.set(kind, { count: f.count + 1, ms: f.ms + ms, bytes: f.bytes + bytes });
};

/**
 * Times this process's requests to the beacon devnet and the execution node (the indexer's, which reach them
 * through the global `fetch`): wall time to the body's end and bytes, per kind. The body is read here and
 * handed on whole, so a request's time is its full round trip, parsing excluded. `lines()` gives one line a
 * kind, the devnet's own time per answer beside the beacon node's (its `GET /devnet/served`).
 */
export function watchNodeRequests(urls: { beacon: string; execution: string }) {
  const seen = new Map<string, Figures>();
  const beacon = new URL(urls.beacon).origin;
  const execution = new URL(urls.execution).origin;
  const real = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const ours = url.origin === beacon || url.origin === execution;
    if (!ours || url.pathname.startsWith("/devnet/")) return real(input, init);
    const t0 = performance.now();
    const res = await real(input, init);
    const body = new Uint8Array(await res.arrayBuffer());
    const method =
      url.origin === execution && typeof init?.body === "string"
        ? `rpc ${(JSON.parse(init.body) as { method?: string }).method}`
        : kindOf(url);
    add(seen, method, performance.now() - t0, body.byteLength);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const served = async () =>
    ((await (await real(`${urls.beacon}/devnet/served`)).json()) as { data: Record<string, Figures> }).data;
  const kb = (b: number) =>
    b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(2)} MiB` : `${(b / 1024).toFixed(1)} KiB`;
  return {
    /** Starts both counts again. */
    async reset() {
      seen.clear();
      await served();
    },
    async lines(): Promise<string[]> {
      const node = await served();
      return [...seen.entries()]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([kind, f]) => {
          const d = node[kind];
          const devnet = d ? `, devnet ${d.ms.toFixed(0)} ms` : "";
          return `${kind}: ${f.count}×, ${kb(f.bytes)}, ${f.ms.toFixed(0)} ms${devnet}`;
        });
    },
    restore: () => {
      globalThis.fetch = real;
    },
  };
}
