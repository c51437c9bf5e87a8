import { createDb } from "@stake/db/client";
import { loadConfig } from "../../control-plane/src/config.ts";
import { webhookJobs } from "../../control-plane/src/features/webhooks/jobs.ts";
import { createSecretBox } from "../../control-plane/src/features/webhooks/secrets.ts";
import { createLogger } from "../../control-plane/src/log.ts";

/** The worker's webhook delivery job as its own process, for a test to SIGKILL mid-delivery. */
const config = loadConfig();
const pg = createDb(config.databaseUrl, { max: 4, applicationName: "webhook-worker" });
const [job] = webhookJobs({
  db: pg.db,
  box: createSecretBox(config.eth.keyEncryptionKey),
  config: config.webhooks,
  logger: createLogger({ level: config.logLevel, service: "webhook-worker" }),
});
await job?.start();
process.stdout.write("READY -\n");
