-- Partitioned history (issue 26, docs/deployment.md "Partitioned history"): beacon_rewards by ranges of
-- epochs, reservations and ledger_entries by UTC month of created_at, each with a default partition for
-- strays. Hand-written (drizzle-kit has no partitioning); the snapshot is the schema's, so a later
-- generate sees nothing to do. Each table is rebuilt under a temporary name, filled from the old one,
-- the old one dropped and the new one renamed, inside the migration's one transaction: a failure leaves
-- the old tables as they were. Keys gain the partition key (a partitioned unique index must carry it);
-- indexes are built once after the copy. The partitions-ahead-and-retention job keeps the ranges going.
CREATE TABLE "beacon_rewards_partitioned" (
	"validator_index" integer NOT NULL,
	"epoch" integer NOT NULL,
	"balance_gwei" bigint NOT NULL,
	"cl_reward_gwei" bigint NOT NULL,
	"el_reward_gwei" bigint NOT NULL,
	"mev_reward_gwei" bigint DEFAULT 0 NOT NULL,
	"priority_fee_gwei" bigint DEFAULT 0 NOT NULL
) PARTITION BY RANGE ("epoch");--> statement-breakpoint
-- 1575 epochs (7 days) a partition, aligned on multiples of it, as BEACON_REWARDS_PARTITION_EPOCHS' default.
DO $$
DECLARE
	w constant integer := 1575;
	lo integer;
	hi integer;
BEGIN
	SELECT min("epoch"), max("epoch") INTO lo, hi FROM "beacon_rewards";
	IF lo IS NULL THEN RETURN; END IF;
	lo := lo - lo % w;
	WHILE lo <= hi LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF "beacon_rewards_partitioned" FOR VALUES FROM (%s) TO (%s)',
			'beacon_rewards_e' || lpad(lo::text, 10, '0'), lo, lo + w);
		lo := lo + w;
	END LOOP;
END $$;--> statement-breakpoint
CREATE TABLE "beacon_rewards_default" PARTITION OF "beacon_rewards_partitioned" DEFAULT;--> statement-breakpoint
INSERT INTO "beacon_rewards_partitioned"
SELECT "validator_index", "epoch", "balance_gwei", "cl_reward_gwei", "el_reward_gwei", "mev_reward_gwei", "priority_fee_gwei"
FROM "beacon_rewards";--> statement-breakpoint
DROP TABLE "beacon_rewards";--> statement-breakpoint
ALTER TABLE "beacon_rewards_partitioned" RENAME TO "beacon_rewards";--> statement-breakpoint
-- As 0014: the key carries the rewards, so sums over a validator's epochs stay index-only scans.
ALTER TABLE "beacon_rewards" ADD CONSTRAINT "beacon_rewards_validator_index_epoch_pk" PRIMARY KEY ("validator_index", "epoch") INCLUDE ("cl_reward_gwei", "el_reward_gwei", "mev_reward_gwei", "priority_fee_gwei");--> statement-breakpoint
CREATE INDEX "beacon_rewards_by_epoch" ON "beacon_rewards" USING btree ("epoch");--> statement-breakpoint
CREATE TABLE "reservations_partitioned" (
	"id" text NOT NULL,
	"party_id" text NOT NULL,
	"provider_key" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"cost_in_usd" numeric(20, 10) NOT NULL,
	"cost" numeric(38, 0) NOT NULL,
	"status" "reservation_status" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"debit_id" text,
	"key_id" text,
	"http_status" smallint,
	"upstream_ms" integer
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
CREATE TABLE "ledger_entries_partitioned" (
	"id" text NOT NULL,
	"party_id" text NOT NULL,
	"kind" "ledger_entry_kind" NOT NULL,
	"amount" numeric(38, 0) NOT NULL,
	"external_ref" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"applied_at" timestamp (3) with time zone
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
-- One partition per UTC month from the oldest row's to the month after this one (named <table>_YYYY_MM).
DO $$
DECLARE
	t text;
	m timestamptz;
	last timestamptz;
BEGIN
	FOREACH t IN ARRAY ARRAY['reservations', 'ledger_entries'] LOOP
		EXECUTE format('SELECT min("created_at"), max("created_at") FROM %I', t) INTO m, last;
		m := date_trunc('month', least(coalesce(m, now()), now()), 'UTC');
		last := date_trunc('month', greatest(coalesce(last, now()), now()), 'UTC') + interval '1 month';
		WHILE m <= last LOOP
			EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
				t || '_' || to_char(m AT TIME ZONE 'UTC', 'YYYY_MM'), t || '_partitioned', m,
				(m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC');
			m := (m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
		END LOOP;
	END LOOP;
END $$;--> statement-breakpoint
CREATE TABLE "reservations_default" PARTITION OF "reservations_partitioned" DEFAULT;--> statement-breakpoint
CREATE TABLE "ledger_entries_default" PARTITION OF "ledger_entries_partitioned" DEFAULT;--> statement-breakpoint
INSERT INTO "reservations_partitioned"
SELECT "id", "party_id", "provider_key", "idempotency_key", "cost_in_usd", "cost", "status", "created_at", "updated_at",
	"debit_id", "key_id", "http_status", "upstream_ms"
FROM "reservations";--> statement-breakpoint
INSERT INTO "ledger_entries_partitioned"
SELECT "id", "party_id", "kind", "amount", "external_ref", "created_at", "applied_at" FROM "ledger_entries";--> statement-breakpoint
-- A credit's ref stays unique across months through its own table (db/src/schema/gateway.ts).
CREATE TABLE "ledger_credit_refs" (
	"external_ref" text PRIMARY KEY NOT NULL,
	"entry_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);--> statement-breakpoint
INSERT INTO "ledger_credit_refs" SELECT "external_ref", "id", "created_at" FROM "ledger_entries" WHERE "kind" = 'credit';--> statement-breakpoint
CREATE TABLE "archived_debit_listings" (
	"debit_id" text PRIMARY KEY NOT NULL,
	"party_id" text NOT NULL,
	"listed" numeric(38, 0) NOT NULL
);--> statement-breakpoint
DROP TABLE "reservations";--> statement-breakpoint
DROP TABLE "ledger_entries";--> statement-breakpoint
ALTER TABLE "reservations_partitioned" RENAME TO "reservations";--> statement-breakpoint
ALTER TABLE "ledger_entries_partitioned" RENAME TO "ledger_entries";--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_id_created_at_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
CREATE INDEX "reservations_party_recent" ON "reservations" USING btree ("party_id","created_at" desc);--> statement-breakpoint
CREATE INDEX "reservations_party_open" ON "reservations" USING btree ("party_id","status","created_at") WHERE "reservations"."status" in ('request_in_flight', 'registered', 'queued');--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_id_created_at_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_party_id_parties_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_ref" ON "ledger_entries" USING btree ("external_ref");--> statement-breakpoint
CREATE INDEX "ledger_entries_party" ON "ledger_entries" USING btree ("party_id","created_at");--> statement-breakpoint
ANALYZE "beacon_rewards";--> statement-breakpoint
ANALYZE "reservations";--> statement-breakpoint
ANALYZE "ledger_entries";
