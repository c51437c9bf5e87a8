import { useEffect, useState } from "preact/hooks";
import { type Api, explain } from "./api.ts";

interface Page {
  page: number;
  pageSize: number;
  total: number;
}

/**
 * One page of a paginated list of the account API, read again whenever `version` changes (the balance
 * moved: something new to show) and on paging.
 */
export function usePaged<T extends Page>(api: Api, path: string, pageSize: number, version: number) {
  const [list, setList] = useState<T | null>(null);
  const [page, setPage] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    api<T>("GET", `${path}?page=${page}&pageSize=${pageSize}`, "read").then(
      (next) => {
        setList(next);
        setError(null);
      },
      (err: unknown) => setError(explain(err, "read")),
    );
  }, [api, path, page, pageSize, version, asked]);
  const pages = list ? Math.max(1, Math.ceil(list.total / pageSize)) : 1;
  /** Reads the page again now (the user asked: something the balance does not show may have changed). */
  const reload = () => setAsked((n) => n + 1);
  return { list, page, pages, setPage, reload, error };
}
