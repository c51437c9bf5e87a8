import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";

/**
 * Ports for `npm start`'s processes. Each has a well-known default (3000, 8080, 8899, …) that the README's
 * calls name; another checkout or program on the host may hold it, and a listener that meets a taken port
 * dies with a raw EADDRINUSE. So each port is checked before its process starts: a free default is kept, a
 * taken one is replaced by a free port with one line saying so, and a port the user set is never moved
 * (a clear refusal instead).
 */

/** Whether nothing listens on `port`, on loopback or the wildcard address (either would refuse a listener). */
export async function isPortFree(port: number): Promise<boolean> {
  for (const host of ["127.0.0.1", undefined]) if (!(await canListen(port, host))) return false;
  return true;
}

function canListen(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first port of the kernel's ephemeral range (Linux; elsewhere the IANA range's). A port picked inside
 * the range can be taken between the pick and the process's listen by any outbound connection on the host
 * (a busy host makes thousands), so a moved port is chosen below it, where only a listener can collide.
 */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (low > 11_000) return low;
  } catch {}
  return 49_152;
}

/** A random run of `span` ports from 10000 up to the ephemeral range, where no usual service listens. */
function candidatePort(span: number): number {
  return 10_000 + randomInt(ephemeralStart() - span - 10_000);
}

/** A loopback port that was free a moment ago (the OS's pick for a listener on port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class PortTaken extends Error {}

/**
 * `preferred` when it (and the `span - 1` ports after it, for a process that listens on consecutive ports)
 * is free, else a free run of `span` ports, logged. With `fixed` (the user set it) a taken port is a
 * `PortTaken` error naming `variable`. `log` hears each move (`control plane 3000 → 41234`).
 */
export async function choosePort(opts: {
  preferred: number;
  what: string;
  variable?: string;
  fixed?: boolean;
  span?: number;
  log: (line: string) => void;
}): Promise<number> {
  const span = opts.span ?? 1;
  const runFree = async (p: number) => {
    for (let i = 0; i < span; i++) if (!(await isPortFree(p + i))) return false;
    return true;
  };
  if (await runFree(opts.preferred)) return opts.preferred;
  if (opts.fixed)
    throw new PortTaken(
      `port ${opts.preferred} (${opts.variable}, ${opts.what}) is in use by another program or checkout: free it or set ${opts.variable} to another port`,
    );
  for (let tries = 0; tries < 50; tries++) {
    const p = candidatePort(span);
    if (await runFree(p)) {
      opts.log(`${opts.what} ${opts.preferred} → ${p}`);
      return p;
    }
  }
  throw new PortTaken(`no free port found for ${opts.what}`);
}
