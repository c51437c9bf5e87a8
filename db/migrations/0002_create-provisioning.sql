CREATE TYPE "public"."provision_status" AS ENUM('IN_PROGRESS', 'CREATED', 'FAILED');--> statement-breakpoint
CREATE TYPE "public"."validator_status" AS ENUM('CREATED', 'DEPOSITED', 'PENDING', 'ACTIVE', 'EXIT_REQUESTED', 'EXIT_SENT', 'EXITED', 'WITHDRAWAL_DONE', 'UNKNOWN');--> statement-breakpoint
CREATE TABLE "key_index_allocator" (
	"seed_id" text PRIMARY KEY NOT NULL,
	"next_index" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provisions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"attributes" jsonb NOT NULL,
	"network" text NOT NULL,
	"status" "provision_status" DEFAULT 'IN_PROGRESS' NOT NULL,
	"reason" text,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"batch_deposit_input" text,
	"batch_to" text,
	"batch_value" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "validators" (
	"id" uuid PRIMARY KEY NOT NULL,
	"provision_id" uuid NOT NULL,
	"organisation_id" text NOT NULL,
	"position" integer NOT NULL,
	"key_index" integer NOT NULL,
	"pubkey" text NOT NULL,
	"encrypted_signing_key" text NOT NULL,
	"withdrawal_credentials" text NOT NULL,
	"amount_gwei" bigint NOT NULL,
	"signature" text NOT NULL,
	"deposit_message_root" text NOT NULL,
	"deposit_data_root" text NOT NULL,
	"fork_version" text NOT NULL,
	"network_name" text NOT NULL,
	"deposit_input" text NOT NULL,
	"deposit_to" text NOT NULL,
	"deposit_value" text NOT NULL,
	"status" "validator_status" DEFAULT 'CREATED' NOT NULL,
	"validator_index" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "provisions" ADD CONSTRAINT "provisions_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validators" ADD CONSTRAINT "validators_provision_id_provisions_id_fk" FOREIGN KEY ("provision_id") REFERENCES "public"."provisions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "validators" ADD CONSTRAINT "validators_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "provisions_idempotency_key" ON "provisions" USING btree ("organisation_id","idempotency_key") WHERE "provisions"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "provisions_by_organisation" ON "provisions" USING btree ("organisation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "validators_key_index" ON "validators" USING btree ("key_index");--> statement-breakpoint
CREATE UNIQUE INDEX "validators_pubkey" ON "validators" USING btree ("pubkey");--> statement-breakpoint
CREATE INDEX "validators_by_provision" ON "validators" USING btree ("provision_id","position");--> statement-breakpoint
CREATE INDEX "validators_by_organisation" ON "validators" USING btree ("organisation_id","status");