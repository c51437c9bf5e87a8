CREATE TABLE "beacon_indexed_slots" (
	"slot" integer PRIMARY KEY NOT NULL,
	"root" text
);
--> statement-breakpoint
CREATE TABLE "beacon_indexer_cursor" (
	"id" text PRIMARY KEY NOT NULL,
	"epoch" integer NOT NULL,
	"finalized_epoch" integer NOT NULL,
	"genesis_time" bigint NOT NULL,
	"seconds_per_slot" integer NOT NULL,
	"slots_per_epoch" integer NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "beacon_rewards" (
	"validator_index" integer NOT NULL,
	"epoch" integer NOT NULL,
	"balance_gwei" bigint NOT NULL,
	"cl_reward_gwei" bigint NOT NULL,
	"el_reward_gwei" bigint NOT NULL,
	"finalized" boolean DEFAULT false NOT NULL,
	CONSTRAINT "beacon_rewards_validator_index_epoch_pk" PRIMARY KEY("validator_index","epoch")
);
--> statement-breakpoint
CREATE TABLE "beacon_rewards_daily" (
	"validator_index" integer NOT NULL,
	"day" date NOT NULL,
	"cl_reward_gwei" bigint NOT NULL,
	"el_reward_gwei" bigint NOT NULL,
	"balance_sum_gwei" bigint NOT NULL,
	"epochs" integer NOT NULL,
	CONSTRAINT "beacon_rewards_daily_validator_index_day_pk" PRIMARY KEY("validator_index","day")
);
--> statement-breakpoint
CREATE TABLE "beacon_status_history" (
	"pubkey" text NOT NULL,
	"status" "validator_status" NOT NULL,
	"time" timestamp (3) with time zone NOT NULL,
	"epoch" integer,
	CONSTRAINT "beacon_status_history_pubkey_status_pk" PRIMARY KEY("pubkey","status")
);
--> statement-breakpoint
CREATE TABLE "beacon_transactions" (
	"uid" text PRIMARY KEY NOT NULL,
	"pubkey" text NOT NULL,
	"type" text NOT NULL,
	"layer" text NOT NULL,
	"transaction_hash" text NOT NULL,
	"block_number" integer NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"data" text NOT NULL,
	"fee_gwei" bigint NOT NULL,
	"from" text NOT NULL,
	"to" text NOT NULL,
	"source_pubkey" text,
	"target_pubkey" text,
	"amount_gwei" bigint NOT NULL,
	"withdrawal_address" text,
	"withdrawal_credentials" text,
	"slot" integer NOT NULL,
	"finalized" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "beacon_validator_registrations" (
	"organisation_id" text NOT NULL,
	"pubkey" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "beacon_validator_registrations_organisation_id_pubkey_pk" PRIMARY KEY("organisation_id","pubkey")
);
--> statement-breakpoint
CREATE TABLE "beacon_validators" (
	"pubkey" text PRIMARY KEY NOT NULL,
	"validator_index" integer,
	"beacon_status" text,
	"lifecycle_status" "validator_status" DEFAULT 'CREATED' NOT NULL,
	"withdrawal_credentials" text,
	"fee_recipient" text,
	"balance_gwei" bigint DEFAULT 0 NOT NULL,
	"updated_epoch" integer
);
--> statement-breakpoint
ALTER TABLE "beacon_validator_registrations" ADD CONSTRAINT "beacon_validator_registrations_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "beacon_rewards_by_epoch" ON "beacon_rewards" USING btree ("epoch");--> statement-breakpoint
CREATE INDEX "beacon_rewards_daily_by_day" ON "beacon_rewards_daily" USING btree ("day");--> statement-breakpoint
CREATE INDEX "beacon_status_history_by_epoch" ON "beacon_status_history" USING btree ("epoch");--> statement-breakpoint
CREATE INDEX "beacon_transactions_by_pubkey" ON "beacon_transactions" USING btree ("pubkey","block_number");--> statement-breakpoint
CREATE INDEX "beacon_transactions_by_slot" ON "beacon_transactions" USING btree ("slot");--> statement-breakpoint
CREATE INDEX "beacon_registrations_by_pubkey" ON "beacon_validator_registrations" USING btree ("pubkey");--> statement-breakpoint
CREATE INDEX "beacon_validators_by_index" ON "beacon_validators" USING btree ("validator_index");