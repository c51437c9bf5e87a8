CREATE TABLE "solana_epoch_rewards" (
	"stake_account" text NOT NULL,
	"epoch" integer NOT NULL,
	"inflation_lamports" bigint NOT NULL,
	"mev_lamports" bigint NOT NULL,
	"post_balance_lamports" bigint,
	"voter" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_epoch_rewards_stake_account_epoch_pk" PRIMARY KEY("stake_account","epoch")
);
--> statement-breakpoint
CREATE TABLE "solana_epochs" (
	"epoch" integer PRIMARY KEY NOT NULL,
	"first_slot" bigint NOT NULL,
	"start_time" bigint NOT NULL
);
