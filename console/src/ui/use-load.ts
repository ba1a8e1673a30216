import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { failureOf } from '../api/client';
import { type Failure, isConflict } from '../logic/problems';
import { Console } from './components';

export type Loaded<T> =
  | { state: 'loading'; data?: T }
  | { state: 'ready'; data: T }
  | { state: 'failed'; failure: Failure; data?: T };

/**
 * Data for a screen, loaded again when `key` changes (one request per change of page or filter; a stale answer
 * to an earlier key is dropped). The previous data stays shown while the next loads.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> & { reload(): void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    setLoaded((before) => ({ state: 'loading', ...(before.data !== undefined ? { data: before.data } : {}) }));
    load().then(
      (data) => ticket === latest.current && setLoaded({ state: 'ready', data }),
      (error: unknown) => ticket === latest.current && setLoaded((before) => ({ state: 'failed', failure: failureOf(error), ...(before.data !== undefined ? { data: before.data } : {}) })),
    );
    // `load` is a new closure every render; `key` says when it asks for something else.
  }, [key, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...loaded, reload };
}

/**
 * A message that the screen's next action replaces (logic/feedback.ts): `clear` runs when any action starts. Outside
 * a signed-in console (the sign-in) there is none, and each action clears only its own failure.
 */
function useReplaced(clear: () => void): (() => void) | undefined {
  const feedback = useContext(Console)?.feedback;
  useEffect(() => feedback?.hold(clear), [feedback]);
  return feedback?.replace;
}

/** A notice ("Role changed to auditor"), gone once a later action starts. */
export function useNotice(): [string | null, (text: string | null) => void] {
  const [text, setText] = useState<string | null>(null);
  useReplaced(() => setText(null));
  return [text, setText];
}

/**
 * An action's progress and its failure, for a button and the words next to it; starting it replaces what the
 * screen said about an earlier action. `onConflict`: reads the record again when the action was refused for a
 * version someone else has replaced (the failure stays shown), so the next try carries the new version.
 */
export function useAction(onConflict?: () => void): {
  busy: boolean;
  failure: Failure | null;
  run(work: () => Promise<void>): Promise<boolean>;
  clear(): void;
} {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const replace = useRef<(() => void) | undefined>(undefined);
  replace.current = useReplaced(() => setFailure(null));
  // The latest callback: `run` is made once, and a screen's reload may be a new closure each render.
  const conflicted = useRef(onConflict);
  conflicted.current = onConflict;
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    replace.current?.();
    setFailure(null);
    try {
      await work();
      return true;
    } catch (error) {
      const failure = failureOf(error);
      setFailure(failure);
      if (isConflict(failure)) conflicted.current?.();
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, failure, run, clear: useCallback(() => setFailure(null), []) };
}
