import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Field } from './components';

/**
 * A destructive action confirmed by typing a word of what it acts on (a username or e-mail, a role's or a service
 * account's name): its button stays disabled until one is typed. `open`: the confirmation shows from the start (a
 * danger zone of its own, as a user's deletion); otherwise a first button opens it and Cancel closes it, so a
 * stray click does nothing. `children`: what the action does, said before the field.
 */
export function Confirmed(props: {
  id: string;
  /** The buttons' words ("Delete billing-sync"). */
  action: string;
  /** The opening button's shorter words where `action` is too long for its place (a table row); `action` stays its name. */
  label?: string;
  words: readonly string[];
  busy: boolean;
  disabled?: boolean;
  open?: boolean;
  /** The opening button's look; the confirming one is always a danger button. */
  buttonClass?: 'danger' | 'secondary';
  /** Resolves whether it was done: the confirmation then closes (it stays, with its failure, when not). */
  onConfirm(): Promise<boolean>;
  children?: ComponentChildren;
}) {
  const [opened, setOpened] = useState(false);
  const [typed, setTyped] = useState('');
  const opener = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  const open = props.open || opened;
  const confirmed = props.words.some((word) => word.toLowerCase() === typed.trim().toLowerCase());
  // The focus follows: to the field when the confirmation opens, back to its button when it closes.
  useLayoutEffect(() => {
    if (!moved.current) return;
    if (opened) document.getElementById(props.id)?.focus();
    else opener.current?.focus();
  }, [opened]);
  const toggle = (next: boolean) => {
    moved.current = true;
    setTyped('');
    setOpened(next);
  };

  if (!open) {
    return (
      <button type="button" ref={opener} class={props.buttonClass ?? 'danger'} aria-label={props.label ? props.action : undefined} disabled={props.busy || props.disabled} onClick={() => toggle(true)}>
        {props.label ?? props.action}
      </button>
    );
  }
  return (
    <form
      class="confirm"
      aria-label={props.action}
      onSubmit={(event) => {
        event.preventDefault();
        if (confirmed) void props.onConfirm().then((done) => done && !props.open && toggle(false));
      }}
    >
      {props.children}
      <Field id={props.id} label={`Type ${props.words.map((word) => `“${word}”`).join(' or ')} to confirm`} autoComplete="off" value={typed} onInput={(event) => setTyped((event.currentTarget as HTMLInputElement).value)} />
      <div class="button-row">
        <button type="submit" class="danger" disabled={!confirmed || props.busy || props.disabled}>
          {props.action}
        </button>
        {!props.open && (
          <button type="button" class="secondary" onClick={() => toggle(false)}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
