/** The API's largest page, and how many of them a picker reads at most (10 000 entries: more is no picker). */
export const WHOLE_LIST_PAGE_SIZE = 100;
export const MAX_PAGES = 100;

export interface ListPage<T> {
  items: T[];
  pageCount: number;
}

/**
 * Every entry of a page-numbered list: page 1, then each next one until the last the API counts (or an empty
 * one), at most `maxPages`. An entry seen twice (the list shifted under the walk) is kept once. No DOM: unit-tested.
 */
export async function everyPage<T>(read: (page: number) => Promise<ListPage<T>>, idOf: (item: T) => string, maxPages = MAX_PAGES): Promise<T[]> {
  const seen = new Map<string, T>();
  for (let page = 1; page <= maxPages; page++) {
    const { items, pageCount } = await read(page);
    for (const item of items) if (!seen.has(idOf(item))) seen.set(idOf(item), item);
    if (items.length === 0 || page >= pageCount) break;
  }
  return [...seen.values()];
}
