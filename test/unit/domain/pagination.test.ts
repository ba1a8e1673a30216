import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, paginationOf, toSlice } from '../../../src/application/shared/pagination';

describe('pagination', () => {
  it('defaults to 10 per page and allows at most 100, as the product rules say', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(10);
    expect(MAX_PAGE_SIZE).toBe(100);
  });

  describe('toSlice', () => {
    it.each([
      [1, 10, 0],
      [2, 10, 10],
      [3, 10, 20],
      [5, 7, 28],
      [1, 100, 0],
      [4, 1, 3],
    ])('page %i of size %i starts at offset %i', (page, pageSize, offset) => {
      expect(toSlice({ page, pageSize })).toEqual({ offset, limit: pageSize });
    });
  });

  describe('paginationOf', () => {
    it.each([
      [0, 10, 0],
      [1, 10, 1],
      [9, 10, 1],
      [10, 10, 1],
      [11, 10, 2],
      [20, 10, 2],
      [25, 10, 3],
      [101, 100, 2],
      [7, 1, 7],
    ])('with %i documents and page_size %i counts %i pages', (total, pageSize, pageCount) => {
      expect(paginationOf({ page: 1, pageSize }, total)).toEqual({
        page: 1,
        page_size: pageSize,
        page_count: pageCount,
        total_document: total,
      });
    });

    it('reports the requested page even past the end, with the true counts', () => {
      expect(paginationOf({ page: 9, pageSize: 10 }, 25)).toEqual({ page: 9, page_size: 10, page_count: 3, total_document: 25 });
    });
  });
});
