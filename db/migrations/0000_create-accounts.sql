CREATE TYPE "public"."account_api" AS ENUM('v1', 'v2');--> statement-breakpoint
CREATE TYPE "public"."organisation_status" AS ENUM('pending', 'approved', 'rejected', 'suspended');--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"label" text NOT NULL,
	"hash" text NOT NULL,
	"start" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "organisations" (
	"id" text PRIMARY KEY NOT NULL,
	"org_name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"scope" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" "organisation_status" DEFAULT 'pending' NOT NULL,
	"signed_up_via" "account_api" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_active_by_organisation" ON "api_keys" USING btree ("organisation_id") WHERE "api_keys"."revoked_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "organisations_email_key" ON "organisations" USING btree ("email");