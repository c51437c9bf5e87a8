-- The status history becomes what the chain showed (docs/spec.md "Validator lifecycle status", our
-- addition): the exit steps the operator recorded for an organisation (the rows without an epoch) move to
-- that organisation's tracking row, and the shared columns lose what one organisation put in them.
UPDATE "beacon_tracked_validators" t SET "exit_requested_at" = h."time"
FROM "beacon_status_history" h
WHERE h."pubkey" = t."pubkey" AND h."status" = 'EXIT_REQUESTED' AND h."epoch" IS NULL AND t."source" = 'provisioned';--> statement-breakpoint
UPDATE "beacon_tracked_validators" t SET "exit_sent_at" = h."time"
FROM "beacon_status_history" h
WHERE h."pubkey" = t."pubkey" AND h."status" = 'EXIT_SENT' AND h."epoch" IS NULL AND t."source" = 'provisioned';--> statement-breakpoint
DELETE FROM "beacon_status_history" WHERE "epoch" IS NULL;--> statement-breakpoint
-- The chain's status again (the indexer writes it so from now on); the organisation's steps are its own.
UPDATE "beacon_validators" b SET "lifecycle_status" = coalesce(
  (SELECT max(h."status") FROM "beacon_status_history" h WHERE h."pubkey" = b."pubkey"), 'CREATED')
WHERE b."lifecycle_status" IN ('EXIT_REQUESTED', 'EXIT_SENT');--> statement-breakpoint
-- A fee recipient copied from a provisioning of a validator that never proposed: the provisioner's own
-- row keeps it, and the shared one waits for the first proposal's.
UPDATE "beacon_validators" b SET "fee_recipient" = NULL
FROM "beacon_tracked_validators" t
WHERE t."pubkey" = b."pubkey" AND t."source" = 'provisioned' AND lower(t."fee_recipient") = b."fee_recipient"
  AND NOT EXISTS (SELECT 1 FROM "beacon_rewards" r WHERE r."validator_index" = b."validator_index" AND r."el_reward_gwei" > 0);
