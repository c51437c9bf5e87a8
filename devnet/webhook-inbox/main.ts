import { startWebhookInbox } from "./server.ts";

/** Runnable webhook inbox for `npm start`: PORT (default 4011), prints `READY <url>`. */
const inbox = await startWebhookInbox({ port: Number(process.env.PORT ?? 4011) });
process.stdout.write(`READY ${inbox.url}\n`);
const stop = () => void inbox.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
