import { useEffect, useState } from "preact/hooks";
import { FormError, Section } from "../../../page-kit/ui.tsx";
import {
  type Api,
  type Exits as ExitResult,
  explain,
  type ValidatorList,
  type WithdrawalRequests,
} from "./api.ts";
import { Confirm } from "./confirm.tsx";

type Pending = { kind: "exit"; pubkeys: string[] } | { kind: "withdrawal"; pubkey: string; amount: string };
const short = (p: string) => `${p.slice(0, 12)}…${p.slice(-6)}`;

/**
 * Voluntary exits (the operator signs and sends them) and EIP-7002 withdrawal requests (unsigned
 * transactions for the withdrawal address to sign): each asks for confirmation, and nothing is sent before.
 */
export function Exits(props: { api: Api }) {
  const { api } = props;
  const [validators, setValidators] = useState<string[] | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [pubkey, setPubkey] = useState("");
  const [amount, setAmount] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState("");
  const [unsigned, setUnsigned] = useState<WithdrawalRequests | null>(null);
  useEffect(() => {
    api<ValidatorList>("GET", "/api/validators/list?per_page=100", "read").then(
      (l) => {
        const keys = l.results.map((r) => r.validator.pubkey);
        setValidators(keys);
        setPubkey(keys[0] ?? "");
      },
      (err) => setError(explain(err, "read")),
    );
  }, [api]);

  const ask = (what: Pending) => {
    setOutcome("");
    setPending(what);
  };
  const cancel = () => {
    setPending(null);
    setOutcome("Cancelled: nothing was sent.");
  };
  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    setError(null);
    try {
      if (pending.kind === "exit") {
        const r = await api<ExitResult>("POST", "/api/validators/exit", "send", { pubkeys: pending.pubkeys });
        const sent = r.results.filter((x) => x.status === "EXIT_SENT").length;
        setOutcome(`${sent} of ${r.results.length} exits accepted by the beacon node.`);
        setChosen([]);
      } else {
        const request = pending.amount
          ? { pubKey: pending.pubkey, amount: pending.amount }
          : { pubKey: pending.pubkey };
        const r = await api<WithdrawalRequests>("POST", "/api/validators/withdrawal-requests", "send", {
          requests: [request],
        });
        setUnsigned(r);
        setOutcome("The withdrawal request is ready: sign and send it from the withdrawal address.");
      }
      setPending(null);
    } catch (err) {
      setError(explain(err, "send"));
    } finally {
      setBusy(false);
    }
  };

  if (validators?.length === 0)
    return (
      <Section title="Exits and withdrawals" id="exits-title">
        <p class="empty">Your organisation has no validators to exit or withdraw from.</p>
      </Section>
    );
  return (
    <Section title="Exits and withdrawals" id="exits-title">
      <FormError message={error} />
      <p class="status" aria-live="polite" data-testid="exit-outcome">
        {outcome}
      </p>
      {pending?.kind === "exit" && (
        <Confirm
          title="Exit these validators?"
          confirmLabel="Send exits"
          busy={busy}
          onConfirm={confirm}
          onCancel={cancel}
        >
          <p>
            The operator will sign a voluntary exit for each and send it to the beacon node. An exit cannot be
            undone: the validator stops earning once it leaves the queue.
          </p>
          <ul>
            {pending.pubkeys.map((p) => (
              <li key={p}>
                <code class="mono">{short(p)}</code>
              </li>
            ))}
          </ul>
        </Confirm>
      )}
      {pending?.kind === "withdrawal" && (
        <Confirm
          title="Prepare this withdrawal request?"
          confirmLabel="Prepare request"
          busy={busy}
          onConfirm={confirm}
          onCancel={cancel}
        >
          <p>
            {pending.amount
              ? `A partial withdrawal of ${pending.amount} ETH`
              : "A full exit through the withdrawal address (EIP-7002)"}{" "}
            from <code class="mono">{short(pending.pubkey)}</code>. You get an unsigned transaction; it does
            nothing until the withdrawal address signs and sends it.
          </p>
        </Confirm>
      )}
      <fieldset disabled={pending !== null}>
        <legend>Voluntary exits</legend>
        {validators === null && <p role="status">Loading validators…</p>}
        <ul class="checks">
          {(validators ?? []).map((p) => (
            <li key={p}>
              <label>
                <input
                  type="checkbox"
                  checked={chosen.includes(p)}
                  onChange={(e) =>
                    setChosen(e.currentTarget.checked ? [...chosen, p] : chosen.filter((c) => c !== p))
                  }
                />{" "}
                <code class="mono">{short(p)}</code>
              </label>
            </li>
          ))}
        </ul>
        <button
          type="button"
          class="danger"
          disabled={chosen.length === 0}
          onClick={() => ask({ kind: "exit", pubkeys: chosen })}
        >
          Exit selected validators…
        </button>
      </fieldset>
      <fieldset disabled={pending !== null || !validators?.length}>
        <legend>Withdrawal request (EIP-7002)</legend>
        <div class="field">
          <label for="withdrawal-validator">Validator</label>
          <select id="withdrawal-validator" value={pubkey} onChange={(e) => setPubkey(e.currentTarget.value)}>
            {(validators ?? []).map((p) => (
              <option key={p} value={p}>
                {short(p)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="withdrawal-amount">Amount (ETH)</label>
          <input
            id="withdrawal-amount"
            inputMode="decimal"
            aria-describedby="withdrawal-amount-hint"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value.trim())}
          />
          <p class="hint" id="withdrawal-amount-hint">
            Empty for a full exit; an amount for a partial withdrawal (0x02 validators only).
          </p>
        </div>
        <button type="button" onClick={() => ask({ kind: "withdrawal", pubkey, amount })}>
          Prepare withdrawal request…
        </button>
      </fieldset>
      {unsigned && (
        <div>
          <h3>Unsigned transaction</h3>
          <pre class="mono wrap" data-testid="unsigned-tx">
            {JSON.stringify(unsigned.results, null, 2)}
          </pre>
        </div>
      )}
    </Section>
  );
}
