// `npm run banner`: what `npm start` printed when it came up (URLs, demo keys, calls to paste), kept in
// .data/banner.txt because the console scrolls. Plain JavaScript: it needs nothing installed.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const file = path.join(import.meta.dirname, "..", ".data", "banner.txt");
if (existsSync(file)) process.stdout.write(readFileSync(file, "utf8"));
else {
  console.error("npm run banner: no banner yet; `npm start` prints one once everything is up");
  process.exit(1);
}
