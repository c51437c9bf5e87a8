import { readFileSync } from "node:fs";

/** Source of one script in db/src/redis/lua/<name>.lua, read once at module load by its caller. */
export function luaScript(name: string): string {
  return readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), "utf8");
}
