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

export function toSlice({ page, pageSize }: PageRequest): Slice {
  return { offset: (page - 1) * pageSize, limit: pageSize };
}

export function paginationOf({ page, pageSize }: PageRequest, total: number): Pagination {
  return { page, page_size: pageSize, page_count: Math.ceil(total / pageSize), total_document: total };
}
