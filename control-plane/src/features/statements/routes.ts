import { ErrorBodies, presentStandard } from "../../errors.ts";
import type { StakingAuth } from "../../http/api-key-auth.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { StatementCsvQuery, StatementQuery, StatementResponse } from "./schemas.ts";
import type { StatementsService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);
/** Solana and Polygon rows are read from their nodes, through those areas' chain checks. */
const notServing = error(
  "the chain's node serves another chain than the one its area recorded (CHAIN_MISMATCH), or Polygon's configured validator has no ValidatorShare (POLYGON_VALIDATOR_NOT_FOUND)",
);

const org = (auth: StakingAuth) => ({ id: auth.organisationId, scope: auth.scope });

/** Statements (our addition, docs/spec.md "Statements"); header `api-key` (or `x-api-key`). */
export function statementsArea(deps: { service: StatementsService }): Area {
  const { service } = deps;
  return {
    tag: "Statements",
    present: presentStandard,
    routes: [
      route({
        method: "get",
        path: "/api/statements",
        summary: "One row per validator or stake account and UTC day of a month, with the month's totals",
        security: "api-key",
        query: StatementQuery,
        upstream: true,
        responses: {
          200: { description: "a page of the month's rows", body: StatementResponse },
          503: notServing,
        },
        handler: async ({ auth, query }) => ({ status: 200, body: await service.page(org(auth), query) }),
      }),
      route({
        method: "get",
        path: "/api/statements.csv",
        summary: "The month's rows as CSV (RFC 4180, a header line, spreadsheet-safe cells), streamed",
        security: "api-key",
        query: StatementCsvQuery,
        upstream: true,
        responses: {
          200: { description: "text/csv; the JSON rows' fields, in their order" },
          503: notServing,
        },
        handler: ({ auth, query }) => ({
          status: 200,
          type: "text/csv; charset=utf-8",
          headers: {
            "content-disposition": `attachment; filename="statement-${query.chain}-${query.month}.csv"`,
          },
          body: service.csv(org(auth), query),
        }),
      }),
    ],
  };
}
