CREATE TABLE "gateway_usage_daily" (
	"party_id" text NOT NULL,
	"day" date NOT NULL,
	"key_id" text NOT NULL,
	"provider_key" text NOT NULL,
	"requests" bigint NOT NULL,
	"settled" bigint NOT NULL,
	"charged" numeric(38, 0) NOT NULL,
	"failed" bigint NOT NULL,
	"released" numeric(38, 0) NOT NULL,
	"status_2xx" bigint NOT NULL,
	"status_3xx" bigint NOT NULL,
	"status_4xx" bigint NOT NULL,
	"status_5xx" bigint NOT NULL,
	"status_none" bigint NOT NULL,
	"latency_buckets" bigint[] NOT NULL,
	CONSTRAINT "gateway_usage_daily_party_id_day_key_id_provider_key_pk" PRIMARY KEY("party_id","day","key_id","provider_key")
);
--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "label" text;--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "parties" ADD COLUMN "daily_spend_cap" numeric(38, 0);--> statement-breakpoint
ALTER TABLE "parties" ADD COLUMN "monthly_spend_cap" numeric(38, 0);--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "http_status" smallint;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "upstream_ms" integer;