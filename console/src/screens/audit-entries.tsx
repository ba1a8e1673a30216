import { useEffect, useRef, useState } from 'preact/hooks';
import { call, failureOf } from '../api/client';
import type { paths } from '../api/openapi';
import type { Failure } from '../logic/problems';
import type { AuditFilters } from '../logic/url-state';
import { LoadFailure, Loading, LocalTime, useConsole } from '../ui/components';

type AuditPage = paths['/v1/audit-events']['get']['responses'][200]['content']['application/json'];
export type AuditEntry = AuditPage['audit_events'][number];

async function loadPage(api: ReturnType<typeof useConsole>['api'], filters: AuditFilters, pageSize: number, cursor?: string) {
  return call(
    api.GET('/v1/audit-events', {
      params: { query: { ...filters, outcome: filters.outcome === 'success' || filters.outcome === 'failure' ? filters.outcome : undefined, page_size: pageSize, ...(cursor ? { cursor } : {}) } },
    }),
  );
}

const nameOf = (who: { type: string; _id: string | null; name?: string | null; snapshot?: string | null } | null) =>
  !who ? '—' : who.type === 'anonymous' ? 'Someone not signed in' : (who.name ?? who.snapshot ?? who._id ?? who.type);

/**
 * A timeline of audit entries, newest first, more on demand (the API's cursor); each opens to its detail.
 * `version`: loaded again when it changes (the entries of a user just changed).
 */
export function AuditEntries(props: { filters: AuditFilters; pageSize?: number; version?: string | null }) {
  const { api } = useConsole();
  const pageSize = props.pageSize ?? 50;
  const key = `${JSON.stringify(props.filters)} ${props.version ?? ''}`;
  // The entries and the filters they answer: entries of other filters are never shown under these.
  const [loaded, setLoaded] = useState<{ key: string; entries: AuditEntry[] } | null>(null);
  const entries = loaded?.key === key ? loaded.entries : null;
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  const latest = useRef(key);
  latest.current = key;

  const fetchMore = async (cursor: string | undefined, replace: boolean) => {
    setBusy(true);
    setFailure(null);
    try {
      const page: AuditPage = await loadPage(api, props.filters, pageSize, cursor);
      // An answer to filters changed since is dropped.
      if (latest.current !== key) return;
      setLoaded((before) => ({ key, entries: replace || before?.key !== key ? page.audit_events : [...before.entries, ...page.audit_events] }));
      setNext(page.next);
    } catch (error) {
      setFailure(failureOf(error));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void fetchMore(undefined, true);
  }, [key, round]);

  if (failure && !entries) return <LoadFailure failure={failure} onRetry={() => setRound((n) => n + 1)} />;
  if (!entries) return <Loading what="the audit entries" />;
  if (entries.length === 0) return <p class="empty">No audit entry matches.</p>;
  return (
    <div>
      <ol class="timeline">
        {entries.map((entry) => (
          <li key={entry._id} class={entry.outcome}>
            <details>
              <summary>
                <LocalTime iso={entry.time} /> · <strong>{entry.action}</strong> · {entry.outcome === 'failure' ? `refused (${entry.code ?? 'failure'})` : 'done'} · by{' '}
                {nameOf(entry.actor)}
                {entry.target && <> · on {nameOf(entry.target)}</>}
              </summary>
              <dl class="facts">
                <dt>Actor</dt>
                <dd>
                  {nameOf(entry.actor)} ({entry.actor.type}
                  {entry.actor._id ? ` ${entry.actor._id}` : ''})
                </dd>
                <dt>Target</dt>
                <dd>{entry.target ? `${nameOf(entry.target)} (${entry.target.type}${entry.target._id ? ` ${entry.target._id}` : ''})` : '—'}</dd>
                <dt>From</dt>
                <dd>
                  {entry.source.address ?? 'unknown address'}, {entry.source.user_agent ?? 'unknown client'}
                </dd>
                <dt>Request id</dt>
                <dd>
                  <code>{entry.request_id ?? '—'}</code>
                </dd>
                <dt>Changes</dt>
                <dd>
                  {entry.changes.length === 0 ? (
                    'None recorded'
                  ) : (
                    <ul>
                      {entry.changes.map((change, index) => (
                        <li key={index}>
                          {change.field}: {JSON.stringify(change.before)} → {JSON.stringify(change.after)}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </dl>
            </details>
          </li>
        ))}
      </ol>
      {failure && <LoadFailure failure={failure} onRetry={() => void fetchMore(next ?? undefined, false)} />}
      {next && (
        <button type="button" class="secondary" disabled={busy} onClick={() => void fetchMore(next, false)}>
          {busy ? 'Loading…' : 'Show older entries'}
        </button>
      )}
    </div>
  );
}
