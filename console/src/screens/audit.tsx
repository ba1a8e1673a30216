import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call, failureOf } from '../api/client';
import { holds, P } from '../logic/access';
import { instantOf, looksLikeId, userNamed } from '../logic/audit-filters';
import { asProblem, explain, type Failure } from '../logic/problems';
import { AUDIT_FILTERS, auditQueryString, parseAuditFilters, type AuditFilters } from '../logic/url-state';
import { FailureNote, Field, Screen, Select, useConsole } from '../ui/components';
import { navigate } from '../ui/router';
import { AuditEntries } from './audit-entries';

const LABELS: Record<(typeof AUDIT_FILTERS)[number], string> = {
  actor: 'Actor (username, e-mail or id)',
  target: 'Target (username, e-mail or id)',
  action: 'Action (e.g. user.role_changed)',
  outcome: 'Outcome',
  from: 'From (date and time, UTC)',
  to: 'Until (date and time, UTC)',
};

type Checked = 'actor' | 'target' | 'from' | 'to';
type FilterErrors = Partial<Record<Checked, string>>;

/** The audit view: a filterable timeline (the filters in the URL), each entry's detail, and the NDJSON export. */
export function AuditScreen(props: { search: string }) {
  const { session, api, permissions } = useConsole();
  const filters = parseAuditFilters(props.search);
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const [errors, setErrors] = useState<FilterErrors>({});
  const [checking, setChecking] = useState(false);
  useEffect(() => setDraft(filters), [props.search]);

  /** The filters as typed, made what the API takes (an instant in UTC, a user's id), or what is wrong with each. */
  const checked = async (typed: AuditFilters): Promise<{ filters: AuditFilters; errors: FilterErrors }> => {
    const out: AuditFilters = { ...typed };
    const wrong: FilterErrors = {};
    for (const name of ['from', 'to'] as const) {
      const text = typed[name]?.trim();
      if (!text) continue;
      const instant = instantOf(text);
      if ('error' in instant) wrong[name] = instant.error;
      else out[name] = instant.iso;
    }
    for (const name of ['actor', 'target'] as const) {
      const text = typed[name]?.trim();
      if (!text || looksLikeId(text)) continue;
      if (!holds(permissions, P.usersRead)) {
        wrong[name] = 'Paste the id: finding a user by username or e-mail takes the users:read permission, which your role does not hold';
        continue;
      }
      try {
        const named = userNamed(text, (await call(api.GET('/v1/users', { params: { query: { q: text, page_size: 10 } } }))).users);
        if ('error' in named) wrong[name] = named.error;
        else out[name] = named.id;
      } catch (error) {
        wrong[name] = `The user could not be looked up: ${explain(failureOf(error), []).message}`;
      }
    }
    return { filters: out, errors: wrong };
  };
  const [exportFailure, setExportFailure] = useState<Failure | null>(null);
  const [exporting, setExporting] = useState(false);

  const exportEntries = async () => {
    setExporting(true);
    setExportFailure(null);
    try {
      const query = auditQueryString({ ...filters, from: filters.from ?? new Date(Date.now() - 30 * 86_400_000).toISOString() });
      const send = () => fetch(`/v1/audit-events/export${query}`, { headers: { authorization: `Bearer ${session.accessToken()}` } });
      let response = await send().catch(() => null);
      if (response?.status === 401 && (await session.renew())) response = await send().catch(() => null);
      if (!response) throw new ApiFailure({ kind: 'network' });
      if (!response.ok) throw new ApiFailure({ kind: 'problem', problem: asProblem(response.status, await response.json().catch(() => null)) });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `audit-events-${new Date().toISOString().slice(0, 10)}.ndjson`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      setExportFailure(failureOf(error));
    } finally {
      setExporting(false);
    }
  };

  return (
    <Screen title="Audit">
      <form
        class="filters"
        aria-label="Filter the audit entries"
        onSubmit={(event) => {
          event.preventDefault();
          setChecking(true);
          void checked(draft)
            .then((result) => {
              setErrors(result.errors);
              if (Object.keys(result.errors).length === 0) navigate(`/console/audit${auditQueryString(result.filters)}`);
            })
            .finally(() => setChecking(false));
        }}
      >
        {AUDIT_FILTERS.filter((name) => name !== 'outcome').map((name) => (
          <Field
            key={name}
            id={`audit-${name}`}
            label={LABELS[name]}
            value={draft[name] ?? ''}
            placeholder={name === 'from' || name === 'to' ? '2026-01-31 09:30' : undefined}
            error={name === 'action' ? undefined : errors[name]}
            onInput={(event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value })}
          />
        ))}
        <Select
          id="audit-outcome"
          label={LABELS.outcome}
          value={draft.outcome ?? ''}
          options={[
            { value: '', label: 'Any' },
            { value: 'success', label: 'Done' },
            { value: 'failure', label: 'Refused' },
          ]}
          onChange={(outcome) => setDraft({ ...draft, outcome })}
        />
        <button type="submit" disabled={checking}>Filter</button>
        <button type="button" class="secondary" disabled={exporting} onClick={() => void exportEntries()}>
          {exporting ? 'Exporting…' : 'Export (NDJSON)'}
        </button>
      </form>
      <FailureNote failure={exportFailure} onRetry={() => void exportEntries()} />
      <AuditEntries filters={filters} />
    </Screen>
  );
}
