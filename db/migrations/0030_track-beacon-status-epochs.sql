CREATE TYPE "public"."beacon_status" AS ENUM('pending_initialized', 'pending_queued', 'active_ongoing', 'active_exiting', 'active_slashed', 'exited_unslashed', 'exited_slashed', 'withdrawal_possible', 'withdrawal_done');--> statement-breakpoint
CREATE TABLE "beacon_status_epochs" (
	"pubkey" text NOT NULL,
	"status" "beacon_status" NOT NULL,
	"epoch" integer,
	"read_epoch" integer NOT NULL,
	CONSTRAINT "beacon_status_epochs_pubkey_status_pk" PRIMARY KEY("pubkey","status")
);
--> statement-breakpoint
CREATE INDEX "beacon_status_epochs_by_read" ON "beacon_status_epochs" USING btree ("read_epoch");