/**
 * What the console last said about an action (a notice, a failure): the next action started on the screen replaces
 * it, so an old "Saved." or an old refusal never stands beside the outcome of a later action. Each message holds its
 * clearing here while it is on the screen. No DOM here: unit-tested.
 */
export interface Feedback {
  /** Keeps `clear` until the returned release is called (the message's component is gone). */
  hold(clear: () => void): () => void;
  /** An action starts: every message held so far goes. */
  replace(): void;
}

export function createFeedback(): Feedback {
  const held = new Set<() => void>();
  return {
    hold(clear) {
      held.add(clear);
      return () => {
        held.delete(clear);
      };
    },
    replace() {
      for (const clear of held) clear();
    },
  };
}
