export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface Slice {
  offset: number;
  limit: number;
}

export interface Pagination {
  page: number;
  page_size: number;
  page_count: number;
  total_document: number;
}

/**
 * The furthest offset a store is asked to skip to. `page` is any safe integer (a page past the end is an empty page with
 * the true counts): an offset beyond every table's reach (2^32 rows) reads the same empty page as the one asked, and keeps
 * the stores' arithmetic and their drivers' parameters in 32 bits.
 */
export const MAX_OFFSET = 2 ** 32;

export function toSlice({ page, pageSize }: PageRequest): Slice {
  return { offset: Math.min((page - 1) * pageSize, MAX_OFFSET), limit: pageSize };
}

export function paginationOf({ page, pageSize }: PageRequest, total: number): Pagination {
  return { page, page_size: pageSize, page_count: Math.ceil(total / pageSize), total_document: total };
}
