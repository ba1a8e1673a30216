import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
function documents(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return ['README.md', ...walk('docs')];
}

/** The targets of inline links and images, `[text](target)`, and of reference definitions, `[id]: target`; code is skipped. */
function linkTargets(markdown: string): string[] {
  const prose = markdown
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '')
    .replace(/(`+)[^\n]*?\1/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** The relative targets of `file` that name no file or folder inside the repository. */
function brokenLinks(file: string, markdown: string, exists: (absolute: string) => boolean = existsSync): string[] {
  return linkTargets(markdown)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .filter((target) => {
      const withoutFragment = decodeURIComponent(target.replace(/[#?].*$/, ''));
      const absolute = path.resolve(ROOT, path.dirname(file), withoutFragment);
      const inside = !path.relative(ROOT, absolute).startsWith('..');
      return !inside || !exists(absolute);
    })
    .map((target) => `${file}: ${target}`);
}

describe('links in README.md and docs/', () => {
  const files = documents();

  it('reads README.md and the Markdown under docs/, the interface contract included', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/DECISIONS.md', 'docs/spec/access-control-interface.md']));
  });

  it('links only to files inside the repository', () => {
    const broken = files.flatMap((file) => brokenLinks(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(broken).toEqual([]);
  });

  it('links README.md to the interface contract kept in docs/', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(linkTargets(readme)).toContain('docs/spec/access-control-interface.md');
  });

  // The check itself: it must find what is broken and leave alone what is not.
  it('reports a link out of the clone, a missing file and a missing reference target, and nothing in code', () => {
    const markdown = [
      'The contract is [here](../shared/spec/access-control-interface.md), decisions in [D](docs/DECISIONS.md#invitations).',
      'A [gone](docs/GONE.md "title"), an ![image](docs/missing.png), a [ref][r], [web](https://example.com), [top](#tests).',
      '[r]: docs/also-missing.md',
      '`[not a link](nowhere.md)`',
      '```',
      '[in a block](nowhere-either.md)',
      '```',
    ].join('\n');

    expect(brokenLinks('README.md', markdown)).toEqual([
      'README.md: ../shared/spec/access-control-interface.md',
      'README.md: docs/GONE.md',
      'README.md: docs/missing.png',
      'README.md: docs/also-missing.md',
    ]);
  });

  it('resolves a link from a file under docs/ against that file\'s folder', () => {
    expect(brokenLinks('docs/events/README.md', '[AsyncAPI](../asyncapi.yaml) [schema](UserInvited.schema.json)')).toEqual([]);
    expect(brokenLinks('docs/events/README.md', '[AsyncAPI](asyncapi.yaml)')).toEqual(['docs/events/README.md: asyncapi.yaml']);
  });
});
