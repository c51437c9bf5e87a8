ALTER TABLE "providers" ADD COLUMN "upgrade_slice_usd" numeric(20, 10);--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "upgrade_slice_seconds" integer DEFAULT 60 NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "upgrade_slice_messages" integer;