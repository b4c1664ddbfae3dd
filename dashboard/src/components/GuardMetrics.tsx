import { useState, type FormEvent } from 'react';
import type { GuardMetricKind, GuardMetricWorse } from '@gradual/sdk';
import { api, errorMessage, fieldErrors } from '../api';
import { useAction, useResource } from '../hooks';
import { Empty, Field, Section, TextField } from './ui';

/**
 * The project's guard metrics (docs/guards.md): what a plan's guarded steps may watch. Listed with
 * their kind, direction and SDK event; defined here (the server validates, its field messages are
 * shown by the inputs) and deleted once no plan or live rollout watches them (the server's
 * `guard_metric_in_use` message names who does).
 */
export function GuardMetrics({ projectId }: { projectId: string }) {
  const metrics = useResource(() => api().listGuardMetrics({ path: { id: projectId } }), [projectId]);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<GuardMetricKind>('count');
  const [worse, setWorse] = useState<GuardMetricWorse>('higher');
  const [event, setEvent] = useState('');
  const create = useAction();
  const remove = useAction();
  const errors = fieldErrors(create.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await create.run(() =>
      api().createGuardMetric({ path: { id: projectId }, body: { key: key.trim(), name: name.trim() || key.trim(), kind, worse, ...(event.trim() ? { event: event.trim() } : {}) } }),
    );
    if (made) {
      setKey('');
      setName('');
      setEvent('');
      void metrics.reload();
    }
  };
  const del = async (metricKey: string) => {
    await remove.run(() => api().deleteGuardMetric({ path: { id: projectId, key: metricKey } }));
    void metrics.reload();
  };

  return (
    <Section title="Guard metrics" id="guard-metrics">
      <p className="small muted">
        What guarded ramp steps watch: <code>count</code> metrics compare events per exposed unit (errors), <code>mean</code> metrics the mean of a tracked value (latency). SDKs
        report them with <code>track(event, context, {'{ value }'})</code>.
      </p>
      {metrics.data?.length === 0 && <Empty>No guard metrics yet.</Empty>}
      {metrics.data && metrics.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Kind</th>
              <th>Worse when</th>
              <th>Source</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {metrics.data.map((m) => (
              <tr key={m.key}>
                <td>
                  <code>{m.key}</code> {m.name !== m.key && <span className="small muted">{m.name}</span>}
                </td>
                <td>{m.kind}</td>
                <td>{m.worse}</td>
                <td>
                  {m.prometheus ? (
                    <>
                      Prometheus <code>{m.prometheus.events}</code>
                    </>
                  ) : (
                    <>
                      SDK event <code>{m.event}</code>
                    </>
                  )}
                </td>
                <td>
                  <button className="btn btn-small btn-danger-outline" onClick={() => void del(m.key)} disabled={remove.busy} aria-label={`Delete guard metric ${m.key}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {remove.error ? (
        <div className="note note-error" role="alert">
          {errorMessage(remove.error)}
        </div>
      ) : null}
      <form className="form-grid" onSubmit={(e) => void submit(e)} noValidate aria-label="New guard metric">
        <TextField label="Metric key" value={key} onChange={setKey} error={errors.key} />
        <TextField label="Metric name" value={name} onChange={setName} error={errors.name} hint="Defaults to the key." />
        <Field label="Metric kind" error={errors.kind}>
          {({ id, describedBy }) => (
            <select id={id} value={kind} onChange={(e) => setKind(e.target.value as GuardMetricKind)} aria-describedby={describedBy}>
              <option value="count">count</option>
              <option value="mean">mean</option>
            </select>
          )}
        </Field>
        <Field label="Worse when" error={errors.worse}>
          {({ id, describedBy }) => (
            <select id={id} value={worse} onChange={(e) => setWorse(e.target.value as GuardMetricWorse)} aria-describedby={describedBy}>
              <option value="higher">higher</option>
              <option value="lower">lower</option>
            </select>
          )}
        </Field>
        <TextField label="SDK event" value={event} onChange={setEvent} error={errors.event} hint="Defaults to the key." />
        <div className="form-actions">
          <button className="btn" disabled={create.busy}>
            Define metric
          </button>
        </div>
        {create.error && Object.keys(errors).length === 0 ? (
          <div className="note note-error" role="alert">
            {errorMessage(create.error)}
          </div>
        ) : null}
      </form>
    </Section>
  );
}
