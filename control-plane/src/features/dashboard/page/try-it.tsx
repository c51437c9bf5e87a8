import { useEffect, useState } from "preact/hooks";
import { CopyButton, FormError, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type Providers } from "./api.ts";

/** A fresh idempotency key (getRandomValues works outside secure contexts too, unlike randomUUID). */
const newIdempotencyKey = () =>
  `try-${Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/** POSIX shell single quoting: 'it'\''s'. */
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The exact curl of a paid request through this deployment's gateway, with the key made in this tab. */
export function TryIt(props: { api: Api; gatewayUrl: string; rawKey: string | null }) {
  const { api, gatewayUrl, rawKey } = props;
  const [providers, setProviders] = useState<Providers["providers"] | null>(null);
  const [provider, setProvider] = useState("");
  const [path, setPath] = useState("/");
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<Providers>("GET", "/api/providers", "read").then(
      (r) => {
        setProviders(r.providers);
        setProvider((p) => p || (r.providers[0]?.key ?? ""));
      },
      (err: unknown) => setError(explain(err, "read")),
    );
  }, [api]);

  const chosen = providers?.find((p) => p.key === provider);
  const url = `${gatewayUrl}/gateway/${provider}${path.startsWith("/") ? path : `/${path}`}`;
  const keyHeader = rawKey ? quote(`x-gateway-api-key: ${rawKey}`) : `"x-gateway-api-key: $GATEWAY_KEY"`;
  const curl = `curl -s ${quote(url)} \\\n  -H ${keyHeader} \\\n  -H ${quote(`idempotency-key: ${idempotencyKey}`)}`;

  return (
    <Section title="Try it" id="try-title">
      {providers && providers.length === 0 && <p>No provider is available yet.</p>}
      {providers && providers.length > 0 && (
        <>
          <div class="row">
            <div class="field">
              <label for="try-provider">Provider</label>
              <select id="try-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
                {providers.map((p) => (
                  <option key={p.key} value={p.key}>
                    {p.key} ({p.costInUSD} USD a request{p.status === "degraded" ? ", degraded" : ""})
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="try-path">Path at the provider</label>
              <input
                id="try-path"
                value={path}
                onInput={(e) => setPath(e.currentTarget.value)}
                class="mono"
              />
            </div>
          </div>
          <p>
            A paid request: {chosen ? `${chosen.costInUSD} USD` : "the provider's price"} in ledger coins at
            the current rate, charged to your party.
            {rawKey
              ? " It uses the key you just created."
              : " Set GATEWAY_KEY to one of your keys first (a key is shown only when it is created)."}{" "}
            Sending it again with the same idempotency key answers 409 and is not charged twice.
          </p>
          <pre class="curl" data-testid="curl">
            <code>{curl}</code>
          </pre>
          <div class="actions">
            <CopyButton text={curl} label="Copy command" />
            <button type="button" class="secondary" onClick={() => setIdempotencyKey(newIdempotencyKey())}>
              New idempotency key
            </button>
          </div>
        </>
      )}
      <FormError message={error} />
    </Section>
  );
}
