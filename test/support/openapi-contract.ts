import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** What a client saw: enough to tell whether the OpenAPI document promised it. */
export interface ObservedAnswer {
  method: string;
  /** The request target: path and query, as sent. */
  target: string;
  status: number;
  contentType: string | null | undefined;
  body: string;
}

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface OperationObject {
  operationId?: string;
  servers?: unknown[];
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
}

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  /** Served by another listener (its own `servers`): never matched by a request to the public port. */
  elsewhere: boolean;
  responses: Record<string, ResponseObject>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const mediaOf = (contentType: string | null | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (media: string) => media === 'application/json' || media.endsWith('+json');
const PROBLEM_MEDIA = 'application/problem+json';

/**
 * Checks answers against the OpenAPI document the server serves: the status is one the operation
 * declares, the media type one it declares for that status (no body where it declares none), and the
 * body valid against the declared schema (JSON Schema 2020-12, as OpenAPI 3.1 has it). An answer on a
 * path no operation has must still be an error in problem+json, or no error at all.
 */
export class OpenApiContract {
  private readonly operations: Operation[] = [];
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly validators = new Map<string, ValidateFunction>();
  /** `operationId status` of every answer checked. */
  readonly seen = new Set<string>();

  constructor(readonly document: OpenApiDocument) {
    this.ajv.addSchema(document as object, 'openapi.json');
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const source = template
          .split('/')
          .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/');
        this.operations.push({
          id: operation.operationId ?? `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}/?$`),
          elsewhere: Array.isArray(operation.servers),
          responses: operation.responses ?? {},
        });
      }
    }
  }

  /** Every `operationId status` the document declares. */
  declared(): string[] {
    return this.operations.flatMap((op) => Object.keys(op.responses).map((status) => `${op.id} ${status}`));
  }

  operationIds(): string[] {
    return this.operations.map((op) => op.id);
  }

  /** The operation a request goes to, if the document has one. */
  operationFor(method: string, target: string, listener: 'public' | 'management' = 'public'): Operation | undefined {
    const path = target.split('?')[0]!;
    // HEAD is answered by every GET route, as GET without the body.
    const asked = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.operations.find((op) => op.method === asked && op.elsewhere === (listener === 'management') && op.pattern.test(path));
  }

  /** How the answer differs from the document; empty when it conforms. */
  check(answer: ObservedAnswer, listener: 'public' | 'management' = 'public'): string[] {
    const operation = this.operationFor(answer.method, answer.target, listener);
    const head = answer.method.toUpperCase() === 'HEAD';
    if (!operation) {
      if (answer.status < 400 || head) return [];
      const sibling = answer.status === 405 ? this.operationOnPath(answer.target, listener) : undefined;
      if (sibling) return this.checkDeclared(sibling, '400', answer);
      return this.checkBody('a path no operation has', answer, PROBLEM_MEDIA, `#/components/schemas/Problem`);
    }
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((k) => operation.responses[k]);
    if (!key) return [`${operation.id} answered ${answer.status}, which it does not declare (it declares ${Object.keys(operation.responses).join(', ')})`];
    this.seen.add(`${operation.id} ${key}`);
    if (head) return [];
    return this.checkDeclared(operation, key, answer);
  }

  /**
   * An operation of the path, whatever its method: a known path asked with another method answers 405 in the error
   * format of the path's operations (problem+json, or OAuth's JSON on an OAuth endpoint), as their 400 declares it.
   */
  private operationOnPath(target: string, listener: 'public' | 'management'): Operation | undefined {
    const path = target.split('?')[0]!;
    return this.operations.find((op) => op.elsewhere === (listener === 'management') && op.pattern.test(path));
  }

  /** The answer against the response `operation` declares under `key`: its media type, then its body's schema. */
  private checkDeclared(operation: Operation, key: string, answer: ObservedAnswer): string[] {
    const declared = operation.responses[key];
    if (!declared) return [`${operation.id} declares no ${key} whose format a ${answer.status} could follow`];
    const media = mediaOf(answer.contentType);
    if (!declared.content) {
      return answer.body.length === 0 ? [] : [`${operation.id} ${answer.status} declares no body, but one came (${media}): ${answer.body.slice(0, 200)}`];
    }
    const declaredMedia = Object.keys(declared.content).find((m) => m.toLowerCase() === media);
    if (!declaredMedia) {
      return [`${operation.id} ${answer.status} came as "${answer.contentType}", not as ${Object.keys(declared.content).join(' or ')}`];
    }
    const at = `#/paths/${pointer(operation.template)}/${operation.method.toLowerCase()}/responses/${key}/content/${pointer(declaredMedia)}/schema`;
    return this.checkBody(`${operation.id} ${answer.status}`, answer, declaredMedia, at);
  }

  /** Throws with every difference, naming the request: the test that made it fails. */
  assert(answer: ObservedAnswer, listener: 'public' | 'management' = 'public'): void {
    const problems = this.check(answer, listener);
    if (problems.length > 0) {
      throw new Error(`The answer to ${answer.method} ${answer.target} is not what the OpenAPI document says:\n- ${problems.join('\n- ')}`);
    }
  }

  private checkBody(what: string, answer: ObservedAnswer, media: string, schemaAt: string): string[] {
    if (mediaOf(answer.contentType) !== media) return [`${what}: ${answer.status} came as "${answer.contentType}", not as ${media}`];
    let value: unknown = answer.body;
    if (isJson(media)) {
      try {
        value = JSON.parse(answer.body);
      } catch {
        return [`${what}: the body is not JSON: ${answer.body.slice(0, 200)}`];
      }
    }
    const validate = this.validator(schemaAt);
    const problems: string[] = [];
    if (!validate(value)) {
      problems.push(...(validate.errors ?? []).map((e) => `${what}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
    }
    if (media === PROBLEM_MEDIA && (value as { status?: unknown }).status !== answer.status) {
      problems.push(`${what}: the problem says status ${String((value as { status?: unknown }).status)}, the answer is ${answer.status}`);
    }
    return problems;
  }

  private validator(schemaAt: string): ValidateFunction {
    let validate = this.validators.get(schemaAt);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${schemaAt}` });
      this.validators.set(schemaAt, validate);
    }
    return validate;
  }
}
