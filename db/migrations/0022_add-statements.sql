CREATE TABLE "statement_notices" (
	"organisation_id" text NOT NULL,
	"chain" text NOT NULL,
	"month" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_notices_organisation_id_chain_month_pk" PRIMARY KEY("organisation_id","chain","month")
);
--> statement-breakpoint
CREATE TABLE "token_prices" (
	"token" text NOT NULL,
	"day" date NOT NULL,
	"currency" text NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "token_prices_token_currency_day_pk" PRIMARY KEY("token","currency","day")
);
--> statement-breakpoint
ALTER TABLE "statement_notices" ADD CONSTRAINT "statement_notices_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;