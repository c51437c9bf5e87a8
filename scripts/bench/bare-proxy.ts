import { Pool } from "undici";
import { listen, passThrough } from "./pass-through.ts";

// Baseline: the thinnest streaming pass-through on undici `dispatch` (no auth, no billing, no logging).
const upstream = new Pool(process.argv[2] as string, { connections: 256 });
listen((req, res) => {
  passThrough(upstream, req, res);
  req.resume();
});
