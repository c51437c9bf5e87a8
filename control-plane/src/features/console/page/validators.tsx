import { useEffect, useState } from "preact/hooks";
import { FormError, Pager, Section } from "../../../page-kit/ui.tsx";
import {
  type Api,
  explain,
  gweiToEth,
  type Organisation,
  type SolanaBalance,
  type ValidatorList,
} from "./api.ts";

type Validator = ValidatorList["results"][number]["validator"];
type StakeAccount = SolanaBalance["data"]["stakeAccounts"][number];
/** Wallets read per visit: each is one balance request, a few RPC calls on the server. */
const MAX_WALLETS = 5;

/** The lifecycle's latest step, else the beacon chain's own word (a validator registered from elsewhere). */
const statusOf = (v: Validator) =>
  v.lifecycle.status_history.at(-1)?.status ??
  v.beacon_status?.replace(/_/g, " ") ??
  "not on the beacon chain yet";

/** Ethereum validators (beacon index and provisioning) and, where the scope names wallets, Solana stake. */
export function Validators(props: { api: Api; scope: Organisation["scope"] | null }) {
  const { api, scope } = props;
  const [list, setList] = useState<ValidatorList | null>(null);
  const [page, setPage] = useState(1);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<ValidatorList>("GET", `/api/validators/list?page=${page}&per_page=25`, "read").then(setList, (err) =>
      setError(explain(err, "read")),
    );
  }, [api, page]);
  const wallets = (scope?.solana?.delegator_addresses ?? []).slice(0, MAX_WALLETS);

  return (
    <>
      <Section title="Ethereum validators" id="validators-title">
        <FormError message={error} />
        {list === null && !error && <p role="status">Loading validators…</p>}
        {list && list.total === 0 && (
          <div class="empty" data-testid="empty-validators">
            <p>
              <strong>Your organisation has no validators yet.</strong>
            </p>
            <p>
              Provision some with <code>POST /api/provision</code>, or register validators you run elsewhere
              with <code>POST /api/validators/register</code>, using an API key (see API keys).
            </p>
          </div>
        )}
        {list && list.total > 0 && (
          <>
            <div class="scroll">
              <table>
                <caption>{list.total} validators</caption>
                <thead>
                  <tr>
                    <th scope="col">Public key</th>
                    <th scope="col">Index</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Balance (ETH)
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.results.map(({ validator: v }) => (
                    <tr key={v.pubkey}>
                      <td>
                        <code class="mono" title={v.pubkey}>
                          {`${v.pubkey.slice(0, 12)}…${v.pubkey.slice(-6)}`}
                        </code>
                      </td>
                      <td>{v.index ?? "not yet"}</td>
                      <td>{statusOf(v)}</td>
                      <td class="num">{gweiToEth(v.balances.current_staked)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              label="Validator pages"
              page={page}
              pages={list.pages}
              total={list.total}
              onPage={setPage}
              names={["Previous", "Next"]}
            />
          </>
        )}
      </Section>
      <Section title="Solana stake accounts" id="solana-title">
        {wallets.length === 0 ? (
          <p>No Solana wallet is in your organisation's scope, so there are no stake accounts to show.</p>
        ) : (
          wallets.map((w) => <SolanaWallet key={w} api={api} wallet={w} />)
        )}
      </Section>
    </>
  );
}

function SolanaWallet(props: { api: Api; wallet: string }) {
  const [accounts, setAccounts] = useState<StakeAccount[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    props.api<SolanaBalance>("POST", "/api/v1/balance", "read", { walletPubKey: props.wallet }).then(
      (b) => setAccounts(b.data.stakeAccounts),
      (err) => setError(`Wallet ${props.wallet}: ${explain(err, "read")}`),
    );
  }, [props.api, props.wallet]);
  if (error) return <p class="error">{error}</p>;
  if (!accounts) return <p role="status">Reading wallet {props.wallet}…</p>;
  return (
    <div class="scroll">
      <table>
        <caption>
          Wallet <code class="mono">{props.wallet}</code>: {accounts.length} stake accounts
        </caption>
        <thead>
          <tr>
            <th scope="col">Stake account</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Total (SOL)
            </th>
            <th scope="col" class="num">
              Rewards (SOL)
            </th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.pubkey}>
              <td>
                <code class="mono">{a.pubkey}</code>
              </td>
              <td>{a.activation_state}</td>
              <td class="num">{a.balance.total_sol}</td>
              <td class="num">{a.balance.rewards_sol}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
