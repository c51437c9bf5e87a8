CREATE TABLE "exit_message_handouts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"key_id" text NOT NULL,
	"pubkeys" text[] NOT NULL,
	"recipient_key_thumbprint" text NOT NULL,
	"epoch" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "exit_message_handouts" ADD CONSTRAINT "exit_message_handouts_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exit_message_handouts_by_organisation" ON "exit_message_handouts" USING btree ("organisation_id","created_at");