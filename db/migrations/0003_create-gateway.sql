CREATE TYPE "public"."ledger_entry_kind" AS ENUM('credit', 'debit');--> statement-breakpoint
CREATE TYPE "public"."provider_status" AS ENUM('active', 'disabled', 'degraded');--> statement-breakpoint
CREATE TYPE "public"."reservation_status" AS ENUM('request_in_flight', 'registered', 'failed', 'queued', 'settled');--> statement-breakpoint
CREATE TABLE "coin_rates" (
	"id" text PRIMARY KEY NOT NULL,
	"usd_per_coin" numeric(30, 12) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gateway_api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"hash" text NOT NULL,
	"start" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deactivated_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "gateway_users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"party_id" text NOT NULL,
	"kind" "ledger_entry_kind" NOT NULL,
	"amount" numeric(38, 0) NOT NULL,
	"external_ref" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"applied_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "parties" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" text PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"origin_url" text NOT NULL,
	"cost_in_usd" numeric(20, 10) NOT NULL,
	"status" "provider_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"party_id" text NOT NULL,
	"provider_key" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"cost_in_usd" numeric(20, 10) NOT NULL,
	"cost" numeric(38, 0) NOT NULL,
	"status" "reservation_status" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD CONSTRAINT "gateway_api_keys_user_id_gateway_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."gateway_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_party_id_parties_id_fk" FOREIGN KEY ("party_id") REFERENCES "public"."parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "parties" ADD CONSTRAINT "parties_user_id_gateway_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."gateway_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gateway_api_keys_hash_key" ON "gateway_api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "gateway_api_keys_user" ON "gateway_api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "gateway_users_email_key" ON "gateway_users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_ref_key" ON "ledger_entries" USING btree ("external_ref");--> statement-breakpoint
CREATE INDEX "ledger_entries_party" ON "ledger_entries" USING btree ("party_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "parties_user_key" ON "parties" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "providers_key_key" ON "providers" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "reservations_scope_key" ON "reservations" USING btree ("party_id","provider_key","idempotency_key");--> statement-breakpoint
CREATE INDEX "reservations_party_recent" ON "reservations" USING btree ("party_id","created_at" desc);