import { z } from "zod";

/**
 * The beacon-chain areas' `page` / `per_page` paging and its `{page, per_page, total, pages}` envelope
 * (docs/spec.md, Limits: per_page default 10, max 100), written once for provisioning and data.
 */
const PER_PAGE_DEFAULT = 10;
const PER_PAGE_MAX = 100;

const pageNumber = z.coerce.number().int().min(1);

/** Query fields of a listing that is always paged: absent values take the defaults. */
export const pagedQuery = {
  page: pageNumber.default(1),
  per_page: pageNumber.max(PER_PAGE_MAX).default(PER_PAGE_DEFAULT),
};

/** Query fields of a listing that answers whole unless a page is asked for. */
export const optionallyPagedQuery = {
  page: pageNumber.optional(),
  per_page: pageNumber.max(PER_PAGE_MAX).optional(),
};

export interface Page {
  page: number;
  perPage: number;
  limit: number;
  offset: number;
}

/** The page asked for, the defaults filling what was not given. */
export function pageOf(q: { page?: number | undefined; per_page?: number | undefined }): Page {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? PER_PAGE_DEFAULT;
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

/** `pageOf`, or undefined (everything) when neither `page` nor `per_page` was given. */
export function pageOrAll(q: { page?: number | undefined; per_page?: number | undefined }): Page | undefined {
  return q.page === undefined && q.per_page === undefined ? undefined : pageOf(q);
}

/** The envelope's fields; `page`, `per_page` and `pages` are null for an unpaged answer (docs/spec.md). */
export function pageEnvelope(p: Page | undefined, total: number) {
  return p
    ? { page: p.page, per_page: p.perPage, total, pages: Math.ceil(total / p.perPage) }
    : { page: null, per_page: null, total, pages: null };
}
