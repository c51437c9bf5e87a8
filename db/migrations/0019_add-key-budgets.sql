ALTER TABLE "gateway_api_keys" ADD COLUMN "limits" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "daily_spend_cap" numeric(38, 0);--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "monthly_spend_cap" numeric(38, 0);--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "previous_hash" text;--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "previous_hash_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "gateway_api_keys" ADD COLUMN "rotated_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "gateway_api_keys_previous_hash_key" ON "gateway_api_keys" USING btree ("previous_hash");