import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

type Watchers = Map<string, { socket: WebSocket; id: number }[]>;

/** Ends the subscriptions `ended` picks (an unsubscribe, a closed socket). */
function dropWatchers(watchers: Watchers, ended: (w: { socket: WebSocket; id: number }) => boolean) {
  for (const [sig, list] of watchers) {
    const rest = list.filter((w) => !ended(w));
    if (rest.length) watchers.set(sig, rest);
    else watchers.delete(sig);
  }
}

/** A JSON-RPC message the node does not answer: "Method not found", unless it is a notification (no id). */
function refuse(socket: WebSocket, body: { id?: unknown }) {
  // Notifications (no id) such as the client's keep-alive ping need no answer.
  if (body.id === undefined) return;
  socket.send(
    JSON.stringify({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } }),
  );
}

/**
 * The node's PubSub websocket: signatureSubscribe only (what @solana/web3.js's confirmTransaction uses). A
 * subscription is notified once, when the signature executes (`notifySignature`) or at once if it already
 * has, then ends, as on a real node.
 */
export function createSignaturePubSub(deps: {
  /** The `context` of a notification (the slot and API version of the moment). */
  context: () => { context: { slot: number; apiVersion: string } };
  /** Whether the chain has executed a signature already. */
  executed: (signature: string) => boolean;
}) {
  const watchers: Watchers = new Map();
  let nextSubscription = 1;
  const notify = (socket: WebSocket, id: number) =>
    socket.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "signatureNotification",
        params: { result: { ...deps.context(), value: { err: null } }, subscription: id },
      }),
    );
  const notifySignature = (sig: string) => {
    for (const w of watchers.get(sig) ?? []) notify(w.socket, w.id);
    watchers.delete(sig);
  };
  const pubsub = (socket: WebSocket, body: { id?: unknown; method?: unknown; params?: unknown }) => {
    const id = body.id ?? null;
    const params = Array.isArray(body.params) ? body.params : [];
    const reply = (result: unknown) => socket.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
    if (body.method === "signatureSubscribe" && typeof params[0] === "string") {
      const sub = nextSubscription++;
      reply(sub);
      if (deps.executed(params[0])) notify(socket, sub);
      else watchers.set(params[0], [...(watchers.get(params[0]) ?? []), { socket, id: sub }]);
      return;
    }
    if (body.method !== "signatureUnsubscribe") return refuse(socket, body);
    dropWatchers(watchers, (w) => w.id === params[0]);
    reply(true);
  };
  const wss = new WebSocketServer({ noServer: true });
  wss.on("connection", (socket) => {
    socket.on("message", (data) => {
      try {
        pubsub(socket, JSON.parse(String(data)));
      } catch {
        socket.send(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
        );
      }
    });
    socket.on("close", () => dropWatchers(watchers, (w) => w.socket === socket));
  });
  const acceptUpgrades = (srv: Server) =>
    srv.on("upgrade", (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req)),
    );

  return {
    notifySignature,
    acceptUpgrades,
    /** Cuts every open websocket (the node's close). */
    terminate: () => {
      for (const c of wss.clients) c.terminate();
    },
  };
}
