import type { OrganisationStatus } from "@stake/control-plane/operator";
import { isId } from "@stake/db/ids";
import { type Command, requirePositional, UsageError } from "./context.ts";

const STATUSES = ["pending", "approved", "rejected", "suspended"] as const satisfies OrganisationStatus[];
type Status = (typeof STATUSES)[number];

function setStatus(status: Status): Command["run"] {
  return async (ctx, args) => {
    const email = requirePositional(args, 0, "email").toLowerCase();
    const org = await ctx.accounts.setOrganisationStatus(email, status);
    if (!org) throw new UsageError(`no organisation with e-mail ${email}`);
    return {
      data: { id: org.id, email: org.email, status: org.status },
      text: `${org.email} is now ${org.status}`,
    };
  };
}

/** Organisations and their staking API keys. */
export const accountCommands: Record<string, Command> = {
  "orgs list": {
    usage: "orgs list [--status pending|approved|rejected|suspended]",
    summary: "list organisations",
    valueFlags: ["status"],
    async run(ctx, args) {
      const status = args.flags.status;
      if (status !== undefined && !STATUSES.includes(status as Status)) {
        throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
      }
      const rows = await ctx.accounts.listOrganisations(status as Status | undefined);
      const data = rows.map((o) => ({
        id: o.id,
        orgName: o.orgName,
        email: o.email,
        status: o.status,
        signedUpVia: o.signedUpVia,
        scope: o.scope,
        createdAt: o.createdAt.toISOString(),
      }));
      const text = data.length
        ? data.map((o) => `${o.id}  ${o.status.padEnd(9)} ${o.email}  ${o.orgName}`).join("\n")
        : "no organisations";
      return { data, text };
    },
  },
  "orgs approve": {
    usage: "orgs approve <email>",
    summary: "approve an organisation",
    run: setStatus("approved"),
  },
  "orgs reject": {
    usage: "orgs reject <email>",
    summary: "reject an organisation",
    run: setStatus("rejected"),
  },
  "orgs suspend": {
    usage: "orgs suspend <email>",
    summary: "suspend an organisation",
    run: setStatus("suspended"),
  },
  "orgs scope": {
    usage: "orgs scope <email> <scope-json>",
    summary: "replace an organisation's scope (checked as at sign-up; {} is unrestricted)",
    async run(ctx, args) {
      const email = requirePositional(args, 0, "email").toLowerCase();
      const text = requirePositional(args, 1, "scope-json");
      let scope: unknown;
      try {
        scope = JSON.parse(text);
      } catch {
        throw new UsageError(
          `<scope-json> is not JSON, e.g. '{"ethereum":{"validator_addresses":[],"delegator_addresses":["0x…"]}}'`,
        );
      }
      let org: Awaited<ReturnType<typeof ctx.accounts.setOrganisationScope>>;
      try {
        org = await ctx.accounts.setOrganisationScope(email, scope);
      } catch (err) {
        const details = (err as { details?: { field: string; message: string }[] }).details;
        if (!details) throw err;
        throw new UsageError(details.map((d) => `${d.field}: ${d.message}`).join("; "));
      }
      if (!org) throw new UsageError(`no organisation with e-mail ${email}`);
      return {
        data: { id: org.id, email: org.email, scope: org.scope },
        text: `${org.email} scope: ${JSON.stringify(org.scope)}`,
      };
    },
  },
  "keys issue": {
    usage: "keys issue <email> [--label L]",
    summary: "issue a staking API key (the secret is printed once)",
    valueFlags: ["label"],
    async run(ctx, args) {
      const email = requirePositional(args, 0, "email").toLowerCase();
      const label = typeof args.flags.label === "string" ? args.flags.label : "operator-issued";
      const issued = await ctx.accounts.issueKey(email, label);
      if (!issued) throw new UsageError(`no organisation with e-mail ${email}`);
      const org = issued.organisation;
      const data = {
        keyId: issued.keyId,
        label: issued.label,
        apiKey: issued.apiKey,
        organisationId: org.id,
      };
      const warn =
        org.status === "approved" ? "" : `\n(note: ${email} is ${org.status}; the key works once approved)`;
      return {
        data,
        text: `${issued.keyId}  ${issued.apiKey}\nstore the key now: it is not shown again${warn}`,
      };
    },
  },
  "keys revoke": {
    usage: "keys revoke <keyId>",
    summary: "revoke a staking API key",
    async run(ctx, args) {
      const keyId = requirePositional(args, 0, "keyId");
      if (!isId("apiKey", keyId)) throw new UsageError(`malformed keyId ${keyId}`);
      const revoked = await ctx.accounts.revokeKey(keyId);
      if (!revoked) throw new UsageError(`no active key ${keyId}`);
      return { data: { keyId, revoked: true }, text: `${keyId} revoked` };
    },
  },
};
