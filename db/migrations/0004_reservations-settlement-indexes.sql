DROP INDEX "reservations_scope_key";--> statement-breakpoint
CREATE INDEX "reservations_scope" ON "reservations" USING btree ("party_id","provider_key","idempotency_key");--> statement-breakpoint
CREATE INDEX "reservations_party_status" ON "reservations" USING btree ("party_id","status","created_at");