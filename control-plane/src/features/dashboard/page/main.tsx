import { render } from "preact";
import { App } from "./app.tsx";
import "../../../page-kit/styles.css";

const settings = document.body.dataset;
render(
  <App gatewayUrl={settings.gatewayUrl ?? ""} refreshSeconds={Number(settings.refreshSeconds) || 5} />,
  document.getElementById("app")!,
);
