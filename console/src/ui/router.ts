import { useEffect, useState } from 'preact/hooks';

/** Where the console is: the browser's own URL (History API), so every screen and filter is a link. */
export interface Location {
  pathname: string;
  search: string;
}

const NAVIGATED = 'console:navigated';

/** Whether the console has moved within the page yet: a screen takes the focus only after such a move, not on load. */
export const moves = { count: 0 };

const here = (): Location => ({ pathname: location.pathname.replace(/\/+$/, '') || '/', search: location.search });

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (`${location.pathname}${location.search}` === to) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  moves.count++;
  window.dispatchEvent(new Event(NAVIGATED));
}

export function useLocation(): Location {
  const [where, setWhere] = useState(here);
  useEffect(() => {
    const update = () => setWhere(here());
    const popped = () => {
      moves.count++;
      update();
    };
    window.addEventListener('popstate', popped);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', popped);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return where;
}

/** An ordinary link's click, kept in the page (a modified click opens a tab as usual). */
export function followLink(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || anchor.target) return;
  event.preventDefault();
  navigate(`${anchor.pathname}${anchor.search}`);
}
