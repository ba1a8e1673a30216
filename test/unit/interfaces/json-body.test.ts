import { forbiddenKeyIn, utf8Text } from '../../../src/interfaces/http/json-body';

/** The key a JSON body is refused for, named in the 400 (fastify's parser only says "not valid JSON"). */
describe('forbiddenKeyIn', () => {
  it.each([
    ['{"__proto__":{"a":1}}', '__proto__'],
    ['{"username":"a","password":"x","__proto__":{"a":1}}', '__proto__'],
    ['{"constructor":{"prototype":{"a":1}}}', 'constructor.prototype'],
    ['{"a":{"b":[1,{"__proto__":null}]}}', 'a.b.1.__proto__'],
    ['[{"constructor":{"prototype":null}}]', '0.constructor.prototype'],
  ])('names the key of %s: %s', (text, path) => {
    expect(forbiddenKeyIn(text)).toBe(path);
  });

  it.each(['{"a":1}', '{"constructor":{"name":"x"}}', '{"constructor":"prototype"}', '{"a":"__proto__"}', '{"__proto__"', 'not json', '1'])(
    'finds none in %s',
    (text) => {
      expect(forbiddenKeyIn(text)).toBeUndefined();
    },
  );

  it('walks a body nested far deeper than the call stack would allow', () => {
    const depth = 100_000;
    expect(forbiddenKeyIn(`${'{"a":'.repeat(depth)}{"__proto__":1}${'}'.repeat(depth)}`)).toBe(`${'a.'.repeat(depth)}__proto__`);
  });
});

describe('utf8Text', () => {
  it('decodes UTF-8, and refuses bytes that are not (never U+FFFD in their place)', () => {
    expect(utf8Text(Buffer.from('Zoë 名前 🙂'))).toBe('Zoë 名前 🙂');
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0x61, 0xfe, 0x62]]) expect(utf8Text(Buffer.from(bad))).toBeUndefined();
  });
});
