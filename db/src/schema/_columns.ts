import { timestamp } from "drizzle-orm/pg-core";

/** createdAt/updatedAt with millisecond precision (the spec shows ISO 8601 with milliseconds). */
export function timestamps() {
  return {
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true, precision: 3 })
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
  };
}
