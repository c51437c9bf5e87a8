import { useEffect, useRef, useState } from "preact/hooks";
import { FormError, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type SpendCaps, type Threshold, type Webhooks } from "./api.ts";

/** An optional coin amount field: empty means none (null to the API). */
function AmountField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onInput: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        inputMode="decimal"
        autoComplete="off"
        aria-describedby={`${props.id}-hint`}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value.trim())}
      />
      <p class="hint" id={`${props.id}-hint`}>
        {props.hint}
      </p>
    </div>
  );
}

const orNull = (v: string) => (v === "" ? null : v);

/** A small form that saves with one POST and says so (or why not) in a live region. */
function useSave(save: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaved("");
    setError(null);
    try {
      await save();
      setSaved("Saved.");
    } catch (err) {
      setError(explain(err, "settings"));
    } finally {
      setBusy(false);
    }
  };
  return { busy, saved, error, submit };
}

/** The submit button, then "Saved." or why not. */
function SaveActions(props: { form: ReturnType<typeof useSave>; label: string }) {
  return (
    <>
      <div class="actions">
        <button type="submit" disabled={props.form.busy}>
          {props.label}
        </button>
        <span class="status" aria-live="polite">
          {props.form.saved}
        </span>
      </div>
      <FormError message={props.form.error} />
    </>
  );
}

/**
 * The party's spend caps (past one the gateway answers 402 until the next UTC day or month) and the
 * balance under which settlement sends `gateway.balance_low` to the user's webhook endpoints.
 */
export function Settings(props: { api: Api; version: number }) {
  const { api, version } = props;
  const [caps, setCaps] = useState<SpendCaps | null>(null);
  const [daily, setDaily] = useState("");
  const [monthly, setMonthly] = useState("");
  const [threshold, setThreshold] = useState("");
  // Endpoints that receive gateway.balance_low; null while unknown (or the webhook API is not served).
  const [listening, setListening] = useState<number | null>(null);

  const filled = useRef(false);
  // What the caps count moves with every request: read again when the balance moved; the fields are
  // filled from the first answer only, so a refresh never overwrites what the user is typing.
  useEffect(() => {
    api<SpendCaps>("GET", "/api/party/spend-caps", "read").then(
      (c) => {
        setCaps(c);
        if (filled.current) return;
        filled.current = true;
        setDaily(c.daily ?? "");
        setMonthly(c.monthly ?? "");
      },
      () => {},
    );
  }, [api, version]);
  useEffect(() => {
    api<Threshold>("GET", "/api/balance/low-threshold", "read").then(
      (t) => setThreshold(t.threshold ?? ""),
      () => {},
    );
    api<Webhooks>("GET", "/api/webhook/list", "read").then(
      (w) =>
        setListening(
          w.endpoints.filter(
            (e) => e.enabled && (e.eventTypes.length === 0 || e.eventTypes.includes("gateway.balance_low")),
          ).length,
        ),
      // Not told when the webhook API is not served here: the threshold works all the same.
      () => {},
    );
  }, [api]);

  const capsForm = useSave(async () => {
    setCaps(
      await api<SpendCaps>("POST", "/api/party/spend-caps", "settings", {
        daily: orNull(daily),
        monthly: orNull(monthly),
      }),
    );
  });
  const alertForm = useSave(async () => {
    const t = await api<Threshold>("POST", "/api/balance/low-threshold", "settings", {
      threshold: orNull(threshold),
    });
    setThreshold(t.threshold ?? "");
  });

  return (
    <Section title="Limits and alerts" id="settings-title">
      <form onSubmit={capsForm.submit} aria-labelledby="caps-title">
        <h3 id="caps-title">Spend caps</h3>
        <p>
          Past a cap the gateway refuses paid requests with 402 until the next UTC day or month. Spent so far:{" "}
          <strong data-testid="spent-today">{caps?.spentToday ?? "…"}</strong> coins today,{" "}
          <strong data-testid="spent-month">{caps?.spentThisMonth ?? "…"}</strong> this month.
        </p>
        <div class="row">
          <AmountField
            id="cap-daily"
            label="Daily cap (coins)"
            hint="Empty: no daily cap."
            value={daily}
            onInput={setDaily}
          />
          <AmountField
            id="cap-monthly"
            label="Monthly cap (coins)"
            hint="Empty: no monthly cap."
            value={monthly}
            onInput={setMonthly}
          />
        </div>
        <SaveActions form={capsForm} label="Save caps" />
      </form>
      <form onSubmit={alertForm.submit} aria-labelledby="alert-title">
        <h3 id="alert-title">Low-balance alert</h3>
        <AmountField
          id="low-threshold"
          label="Alert below (coins)"
          hint="When a charge takes your balance below this, a gateway.balance_low webhook is sent. Empty: never."
          value={threshold}
          onInput={setThreshold}
        />
        <p data-testid="alert-endpoints">
          {listening === null
            ? ""
            : listening === 0
              ? "None of your webhook endpoints receives gateway.balance_low yet: add one through the webhook API."
              : `${listening} of your webhook endpoints ${listening === 1 ? "receives" : "receive"} it.`}
        </p>
        <SaveActions form={alertForm} label="Save alert" />
      </form>
    </Section>
  );
}
