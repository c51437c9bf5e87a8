CREATE TABLE "chain_identities" (
	"area" text PRIMARY KEY NOT NULL,
	"identity" jsonb NOT NULL,
	"recorded_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"node_identity" jsonb,
	"mismatch_since" timestamp (3) with time zone
);
