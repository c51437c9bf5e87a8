DROP INDEX "reservations_scope";--> statement-breakpoint
DROP INDEX "reservations_party_status";--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "debit_id" text;--> statement-breakpoint
CREATE INDEX "reservations_party_open" ON "reservations" USING btree ("party_id","status","created_at") WHERE "reservations"."status" in ('request_in_flight', 'registered', 'queued');