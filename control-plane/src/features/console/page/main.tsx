import { render } from "preact";
import { App } from "./app.tsx";
import "../../../page-kit/styles.css";
import "./console.css";

render(<App />, document.getElementById("app")!);
