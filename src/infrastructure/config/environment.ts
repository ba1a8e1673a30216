import Ajv, { type SchemaObject, type ValidateFunction } from 'ajv';
import { parseDurationSeconds } from './duration';

export type Env = Record<string, string | undefined>;

/** What a typed parser returns for a text it refuses: its own messages, or none for the variable's usual one. */
export class Refused {
  constructor(readonly problems: readonly string[]) {}
}

export const refuse = (...problems: string[]): Refused => new Refused(problems);

/**
 * One environment variable: what it is for, its default (the text it stands for when unset, as the
 * README's table gives it), the JSON Schema its text must satisfy and, for what Ajv cannot express,
 * a small typed parser. T is what the program gets.
 */
export interface Variable<T> {
  readonly description: string;
  readonly default?: string;
  /** Checked by Ajv on the trimmed text, types coerced ("8080" → 8080), the default filled in. */
  readonly schema: SchemaObject;
  /** From what Ajv accepted (or the default's text) to the value; runs only on what passed the schema. */
  readonly parse: (accepted: unknown) => T | Refused;
  /** The problem reported for a refused text, naming the variable. */
  readonly problem: (name: string, text: string) => string;
  /** Taken as given, surrounding spaces included (a password); a blank one is still unset. */
  readonly verbatim?: boolean;
}

export type Table = Record<string, Variable<unknown>>;
export type ValueOf<V> = V extends Variable<infer T> ? T : never;
export type Values<T extends Table, N extends keyof T> = { [K in N]: ValueOf<T[K]> };

const identity = <T>(accepted: unknown) => accepted as T;

/** The variable's text, or undefined when it is unset or blank. */
export function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

// allErrors: the input is the operator's environment, and every problem is reported at once.
const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: true });
const validators = new WeakMap<Table, ValidateFunction>();

function validatorOf(table: Table): ValidateFunction {
  let validate = validators.get(table);
  if (!validate) {
    const properties = Object.fromEntries(
      Object.entries(table).map(([name, v]) => [name, { description: v.description, ...v.schema, ...(v.default === undefined ? {} : { default: v.default }) }]),
    );
    validate = ajv.compile({ type: 'object', properties, additionalProperties: false });
    validators.set(table, validate);
  }
  return validate;
}

/**
 * Reads the named variables of `table` from `env` in one Ajv pass, then through their parsers.
 * `defaults` are texts for defaults that depend on other values, validated like a given text.
 * A refused variable gets its default's value (or undefined), so that the caller can carry on
 * and report every problem at once.
 */
export function readEnvironment<T extends Table, N extends keyof T & string>(
  table: T,
  names: readonly N[],
  env: Env,
  defaults: Partial<Record<N, string>> = {},
): { values: Values<T, N>; problems: string[] } {
  const texts = new Map<string, string>();
  for (const name of names) {
    const text = table[name].verbatim && given(env, name) !== undefined ? env[name] : (given(env, name) ?? defaults[name]);
    if (text !== undefined) texts.set(name, text);
  }
  const data: Record<string, unknown> = Object.fromEntries(texts);
  const validate = validatorOf(table);
  const refusedBySchema = new Set(validate(data) ? [] : (validate.errors ?? []).map((e) => e.instancePath.split('/')[1]));

  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const name of names) {
    const variable = table[name];
    const fallback = () => (variable.default === undefined ? undefined : variable.parse(variable.default));
    const text = texts.get(name) ?? variable.default;
    if (text === undefined) continue;
    const value = refusedBySchema.has(name) ? new Refused([]) : variable.parse(data[name]);
    if (value instanceof Refused) {
      problems.push(...(value.problems.length > 0 ? value.problems : [variable.problem(name, text)]));
      values[name] = fallback();
    } else {
      values[name] = value;
    }
  }
  return { values: values as Values<T, N>, problems };
}

// The kinds of variable. Each gives the schema, the parser and the usual problem.

interface Defaulted {
  default: string;
}

/** Digits only (no sign, exponent or hex, which Ajv's coercion would take), then the bounds. */
export function integer(
  description: string,
  options: Defaulted & { min: number; max: number; pattern?: string; also?: SchemaObject; must?: string },
): Variable<number> {
  const { min, max, pattern = '^\\d+$', also = {}, must = `be an integer from ${min} to ${max}` } = options;
  return {
    description,
    default: options.default,
    schema: { allOf: [{ type: 'string', pattern }, { type: 'integer', minimum: min, maximum: max, ...also }] },
    parse: Number,
    problem: (name, text) => `${name} must ${must} (got "${text}")`,
  };
}

type TextOptions = { pattern?: string; enum?: readonly string[]; problem?: (name: string, text: string) => string; verbatim?: boolean };

/** Text, optionally a pattern or one of a list. */
export function text(description: string, options: TextOptions & Defaulted): Variable<string>;
export function text(description: string, options?: TextOptions): Variable<string | undefined>;
export function text(description: string, options: TextOptions & Partial<Defaulted> = {}): Variable<string | undefined> {
  const { pattern, enum: oneOf, problem = (name: string) => `${name} is not valid`, verbatim, default: fallback } = options;
  return {
    description,
    default: fallback,
    schema: { type: 'string', ...(pattern === undefined ? {} : { pattern }), ...(oneOf === undefined ? {} : { enum: [...oneOf] }) },
    parse: identity<string>,
    problem,
    verbatim,
  };
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/** true/false, also 1/0, yes/no and on/off, in any case. */
export function flag(description: string, options: Defaulted): Variable<boolean> {
  return parsed(description, (raw) => {
    const word = raw.toLowerCase();
    return TRUE.includes(word) ? true : FALSE.includes(word) ? false : refuse();
  }, { ...options, problem: (name, raw) => `${name} must be true or false (got "${raw.toLowerCase()}")` });
}

/** A duration ("90s", "15m", "12h", "7d", "1500ms", or seconds) → seconds, from `min` seconds up to `max`. */
export function duration(description: string, options: Defaulted & { min?: number; max?: string; examples?: string }): Variable<number> {
  const { min = 1, max, examples = '90s, 15m, 12h or 7d' } = options;
  const maxSeconds = max === undefined ? Infinity : parseDurationSeconds(max)!;
  const range = max === undefined ? `of at least ${min}s` : `from ${min}s to ${max}`;
  return parsed(description, (raw) => {
    const seconds = parseDurationSeconds(raw);
    return seconds === null || seconds < min || seconds > maxSeconds ? refuse() : seconds;
  }, { default: options.default, problem: (name, raw) => `${name} must be a duration ${range}, such as ${examples} (got "${raw}")` });
}

type ParsedOptions = { problem?: (name: string, text: string) => string; verbatim?: boolean };

/** What Ajv cannot express (URLs, lists, files): the text through a typed parser. */
export function parsed<T>(description: string, parse: (text: string) => T | Refused, options: ParsedOptions & Defaulted): Variable<T>;
export function parsed<T>(description: string, parse: (text: string) => T | Refused, options?: ParsedOptions): Variable<T | undefined>;
export function parsed<T>(description: string, parse: (text: string) => T | Refused, options: ParsedOptions & Partial<Defaulted> = {}): Variable<T | undefined> {
  const { problem = (name: string) => `${name} is not valid`, verbatim, default: fallback } = options;
  return { description, default: fallback, schema: { type: 'string' }, parse: (accepted) => parse(accepted as string), problem, verbatim };
}
