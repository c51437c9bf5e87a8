import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";

/**
 * Processes that die with their owner, however the owner ends: returns, throws during a setup, is signalled,
 * is cancelled by the test runner (SIGTERM, which skips `exit` handlers) or is SIGKILLed.
 *
 * - Each child runs in a process group of its own (`detached`), so a group kill also reaches what it started
 *   (a devnet's anvil, a server's workers), and the terminal's Ctrl-C reaches only the owner, which stops
 *   its children in order.
 * - A lifeline: the first owned process starts one small `sh` reaper in its own group, holding the read end
 *   of a pipe whose write end only the owner holds. When the owner is gone for any reason the kernel closes
 *   it; the reaper then signals every target still registered, waits up to 5 s and SIGKILLs what is left.
 * - A target stopped cleanly is unregistered; one that is not (or a race) is signalled only while its pid is
 *   still the process registered (its start time), never a later process given the same pid.
 */

type Target = number;
const targets = new Map<Target, { signal: NodeJS.Signals; start: string }>();
let lifeline: ChildProcess | undefined;

/**
 * When a process started (field 22 of /proc/<pid>/stat), to tell it from a later one given the same pid
 * (pids wrap at 32,768 here, and a busy test run goes through them in minutes). "0" where /proc is absent.
 */
function startTime(pid: number): string {
  try {
    return (
      readFileSync(`/proc/${pid}/stat`, "utf8")
        .replace(/^.*\) /s, "")
        .split(" ")[19] ?? "0"
    );
  } catch {
    return "0";
  }
}

/**
 * A target is still the one registered if its pid (or its group's leader) is gone (a group outlives its
 * leader, and the kernel does not reuse a pid while a group or session holds it) or started when it did.
 */
function isOurs(target: Target, start: string): boolean {
  const now = startTime(Math.abs(target));
  return now === "0" || now === start;
}

// Reads "+ SIGNAL TARGET START" and "- TARGET" lines until EOF (the owner is gone), then stops what is
// registered and still the same process (isOurs, in sh). It ignores INT/TERM/HUP: a terminal's or a
// supervisor's signal must not end it before the owner's children.
const REAPER = `
trap '' INT TERM HUP
t=" "
while read -r op a b c; do
  case "$op" in
    +) t="$t$a:$b:$c " ;;
    -) t=$(printf '%s' "$t" | sed "s/ [A-Z0-9]*:$a:[0-9]* / /g") ;;
  esac
done
ours() {
  p=\${1#-}
  [ -r /proc/$p/stat ] || return 0
  [ "$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f20)" = "$2" ]
}
signal() {
  for e in $t; do
    s=\${e%%:*}; r=\${e#*:}; target=\${r%%:*}; start=\${r#*:}
    [ "$1" = KILL ] && s=KILL
    ours "$target" "$start" && kill -s "$s" -- "$target" 2>/dev/null
  done
}
signal
i=0
while [ $i -lt 50 ]; do
  alive=""
  for e in $t; do r=\${e#*:}; kill -0 -- "\${r%%:*}" 2>/dev/null && alive="$alive $e"; done
  [ -z "$alive" ] && exit 0
  t=$alive; i=$((i + 1)); sleep 0.1
done
signal KILL
`;

function tell(line: string): void {
  if (!lifeline) {
    lifeline = spawn("sh", ["-c", REAPER], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    lifeline.unref();
    // The pipe must not keep the owner's event loop alive, nor its EPIPE (reaper killed) crash the owner.
    const stdin = lifeline.stdin as Socket;
    stdin.on("error", () => {});
    stdin.unref();
  }
  lifeline.stdin?.write(`${line}\n`);
}

/** Registers a live target (a pid, or a negative process-group id) that the lifeline stops with `signal`. */
export function own(target: Target, signal: NodeJS.Signals = "SIGTERM"): void {
  const start = startTime(Math.abs(target));
  targets.set(target, { signal, start });
  tell(`+ ${signal.replace(/^SIG/, "")} ${target} ${start}`);
}

/** Unregisters a target that was stopped cleanly, so a later process given its pid is never signalled. */
export function release(target: Target): void {
  if (targets.delete(target)) tell(`- ${target}`);
}

/** Signals every owned target now (a synchronous last resort on exit; the lifeline escalates to SIGKILL). */
export function stopOwned(): void {
  for (const [target, { signal, start }] of targets) {
    try {
      if (isOurs(target, start)) process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}
process.on("exit", stopOwned);

/**
 * `spawn` in a process group of its own, owned: stopped with its owner, and when it exits, whatever it left
 * behind in its group (an orphaned grandchild) is killed.
 */
export function spawnOwned(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid === undefined) return child; // spawn failed: its `error` event says why
  const group = -child.pid;
  own(group);
  child.once("exit", () => {
    // The leader is gone: its pid stays reserved while anything is left in its group, so this reaches only
    // what it left behind.
    try {
      process.kill(group, "SIGKILL");
    } catch {
      // the group is empty
    }
    release(group);
  });
  return child;
}

/**
 * For an entry started by scripts/lib/bootstrap.mjs (`npm start`, `npm test`), which holds an IPC channel
 * to it: when the bootstrap dies, even by SIGKILL, the channel closes and the entry stops as on SIGTERM
 * (its handler stops what it started). The channel does not keep the entry alive.
 */
export function stopWithBootstrap(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}

/** Sends `signal` to a child's whole group (it and what it started), falling back to the child alone. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
