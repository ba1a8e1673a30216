import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useLayoutEffect, useRef } from 'preact/hooks';
import type { Client } from '../api/client';
import type { Feedback } from '../logic/feedback';
import { localDateTime } from '../logic/format';
import { explain, type Failure } from '../logic/problems';
import type { Session } from '../session/session';
import { followLink, moves } from './router';

export interface ConsoleContext {
  api: Client;
  session: Session;
  /** The viewer's permissions (their role's). */
  permissions: readonly string[];
  viewerId: string;
  /** What the screen last said about an action, replaced by the next one's outcome. */
  feedback: Feedback;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside the console');
  return value;
}

/** A screen: its heading takes the focus when the console moves to it, so keyboard and screen-reader users start there. */
export function Screen(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Before the browser paints: a key pressed right after the move already starts from the heading.
  useLayoutEffect(() => {
    document.title = `${props.title} · Access control console`;
    if (moves.count > 0) heading.current?.focus();
  }, [props.title]);
  return (
    <section class="screen" aria-labelledby="screen-title">
      <div class="screen-head">
        <h1 id="screen-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions}
      </div>
      {props.children}
    </section>
  );
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a href={props.href} class={props.class} aria-current={props['aria-current']} onClick={followLink}>
      {props.children}
    </a>
  );
}

/** A labelled input with its problem next to it (aria-invalid, aria-describedby). */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput(event: Event): void;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'email' | 'password' | 'search';
  autoComplete?: string;
  inputMode?: 'numeric' | 'text';
  maxLength?: number;
  required?: boolean;
  disabled?: boolean | undefined;
  placeholder?: string | undefined;
}) {
  const { id, label, error, hint } = props;
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={id}
        // Preact's input types are a union by `type`; one component for all of them.
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        onInput={props.onInput}
        // Only what is given: an absent maxLength set as a property would become 0 on a reused input.
        {...(props.autoComplete !== undefined ? { autoComplete: props.autoComplete } : {})}
        {...(props.inputMode !== undefined ? { inputMode: props.inputMode } : {})}
        {...(props.maxLength !== undefined ? { maxLength: props.maxLength } : {})}
        {...(props.placeholder !== undefined ? { placeholder: props.placeholder } : {})}
        required={props.required ?? false}
        disabled={props.disabled ?? false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Select(props: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  options: readonly { value: string; label: string }[];
  error?: string | undefined;
  disabled?: boolean;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        name={props.id}
        value={props.value}
        disabled={props.disabled}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
        onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** An action's failure in words, next to it; a retry when it may pass. Fields' problems are shown at the fields. */
export function FailureNote(props: { failure: Failure | null; fields?: readonly string[]; onRetry?: () => void; id?: string }) {
  if (!props.failure) return null;
  const { message, retry } = explain(props.failure, props.fields);
  if (!message) return null;
  return (
    <div class="failure" role="alert" id={props.id}>
      <p>{message}</p>
      {retry && props.onRetry && (
        <button type="button" class="secondary" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What a screen shows when its data could not be loaded: the reason and a retry, never a blank screen. */
export function LoadFailure(props: { failure: Failure; onRetry(): void }) {
  const { message } = explain(props.failure);
  return (
    <div class="failure load-failure" role="alert">
      <p>{message}</p>
      <button type="button" onClick={props.onRetry}>
        Try again
      </button>
    </div>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {props.what}…
    </p>
  );
}

/** A polite announcement of what just happened ("Role changed to auditor"). */
export function Notice(props: { text: string | null }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {props.text ?? ''}
    </p>
  );
}

/** A table that scrolls sideways on a narrow screen, reachable by keyboard. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** A date in the viewer's local time; the element keeps the exact instant. */
export function LocalTime(props: { iso: string | undefined | null }) {
  if (!props.iso) return <span>—</span>;
  return <time dateTime={props.iso}>{localDateTime(props.iso)}</time>;
}
