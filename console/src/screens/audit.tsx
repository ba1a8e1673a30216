import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, failureOf } from '../api/client';
import { asProblem, type Failure } from '../logic/problems';
import { AUDIT_FILTERS, auditQueryString, parseAuditFilters, type AuditFilters } from '../logic/url-state';
import { FailureNote, Field, Screen, Select, useConsole } from '../ui/components';
import { navigate } from '../ui/router';
import { AuditEntries } from './audit-entries';

const LABELS: Record<(typeof AUDIT_FILTERS)[number], string> = {
  actor: 'Actor (id)',
  target: 'Target (id)',
  action: 'Action (e.g. user.role_changed)',
  outcome: 'Outcome',
  from: 'From (date and time, UTC)',
  to: 'Until (date and time, UTC)',
};

/** The audit view: a filterable timeline (the filters in the URL), each entry's detail, and the NDJSON export. */
export function AuditScreen(props: { search: string }) {
  const { session } = useConsole();
  const filters = parseAuditFilters(props.search);
  const [draft, setDraft] = useState<AuditFilters>(filters);
  useEffect(() => setDraft(filters), [props.search]);
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
          navigate(`/console/audit${auditQueryString(draft)}`);
        }}
      >
        {AUDIT_FILTERS.filter((name) => name !== 'outcome').map((name) => (
          <Field
            key={name}
            id={`audit-${name}`}
            label={LABELS[name]}
            value={draft[name] ?? ''}
            placeholder={name === 'from' || name === 'to' ? '2026-01-31T00:00:00Z' : undefined}
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
        <button type="submit">Filter</button>
        <button type="button" class="secondary" disabled={exporting} onClick={() => void exportEntries()}>
          {exporting ? 'Exporting…' : 'Export (NDJSON)'}
        </button>
      </form>
      <FailureNote failure={exportFailure} onRetry={() => void exportEntries()} />
      <AuditEntries filters={filters} />
    </Screen>
  );
}
