-- The network rollup from the days already indexed: beacon_rewards_daily has each validator once a day.
INSERT INTO "beacon_rewards_network_daily" ("day", "cl_reward_gwei", "el_reward_gwei", "mev_reward_gwei",
  "priority_fee_gwei", "balance_sum_gwei", "epochs")
SELECT "day", sum("cl_reward_gwei"), sum("el_reward_gwei"), sum("mev_reward_gwei"), sum("priority_fee_gwei"),
  sum("balance_sum_gwei"), sum("epochs")
FROM "beacon_rewards_daily" GROUP BY "day";
