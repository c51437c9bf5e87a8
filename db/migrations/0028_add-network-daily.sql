CREATE TABLE "beacon_rewards_network_daily" (
	"day" date PRIMARY KEY NOT NULL,
	"cl_reward_gwei" bigint NOT NULL,
	"el_reward_gwei" bigint NOT NULL,
	"mev_reward_gwei" bigint DEFAULT 0 NOT NULL,
	"priority_fee_gwei" bigint DEFAULT 0 NOT NULL,
	"balance_sum_gwei" bigint NOT NULL,
	"epochs" integer NOT NULL
);
