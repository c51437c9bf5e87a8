CREATE TYPE "public"."beacon_tracking_source" AS ENUM('provisioned', 'registered');--> statement-breakpoint
CREATE TABLE "beacon_tracked_validators" (
	"organisation_id" text NOT NULL,
	"pubkey" text NOT NULL,
	"source" "beacon_tracking_source" NOT NULL,
	"fee_recipient" text,
	"withdrawal_credentials" text,
	"in_org_rollup" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "beacon_tracked_validators_organisation_id_pubkey_pk" PRIMARY KEY("organisation_id","pubkey")
);
--> statement-breakpoint
ALTER TABLE "beacon_tracked_validators" ADD CONSTRAINT "beacon_tracked_validators_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "beacon_tracked_by_pubkey" ON "beacon_tracked_validators" USING btree ("pubkey");