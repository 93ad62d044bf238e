/**
 * A plan as the person approving it reads it: every write the program would
 * make, in order, each with the request that would be sent (forecast values in
 * place), and each part that comes from an earlier write's response marked as
 * such ("from write 1's response: body.id"). How the forecast ended is said
 * last, so a plan cut short by the program throwing is never mistaken for all.
 */
import type { Plan, PlanWrite } from "../../shared/runs.ts";
import { methodClass } from "../common/format.ts";
import "./PlanBlock.css";

export function PlanBlock({ plan }: { plan: Plan }) {
  const reads = plan.reads.length;
  return (
    <section className="plan" aria-label={`Plan of ${plan.writes.length} writes`}>
      <p className="plan-intro">
        The program ran to its end on forecast answers; <strong>nothing was sent</strong>. These are the writes it would make
        {reads ? `, after ${reads} read${reads === 1 ? "" : "s"} (${plan.reads.filter((r) => r.sent).length} sent, since reads are allowed)` : ""}:
      </p>
      <ol className="plan-writes">
        {plan.writes.map((w) => (
          <PlanWriteRow key={w.write} write={w} />
        ))}
      </ol>
      {plan.ended.kind === "failed" && (
        <p className="plan-stopped" role="note">
          The forecast stopped after write {plan.writes.length}: <code>{plan.ended.name}: {plan.ended.message}</code>. Approving applies the writes above; the
          program will then meet real answers.
        </p>
      )}
    </section>
  );
}

function PlanWriteRow({ write }: { write: PlanWrite }) {
  return (
    <li className="plan-write" data-write={write.write}>
      <div className="plan-write-line">
        <span className="plan-write-n">{write.write}.</span>
        <span className={methodClass(write.request.method)}>{write.request.method}</span>
        <code className="plan-write-url">{write.request.url}</code>
        {write.note && <span className="pill pill-warn">{write.note}</span>}
      </div>
      {write.request.body !== undefined && write.request.body !== "" && <pre className="plan-write-body">{write.request.body}</pre>}
      {write.dependsOn.map((d) => (
        <div key={`${d.at}:${d.from.write}`} className="plan-write-dep">
          <code>{d.at || "the argument"}</code> ← from write {d.from.write}&apos;s response ({d.from.operation}, <code>{d.from.path}</code>); the forecast
          shows <code>{JSON.stringify(d.forecast)}</code>
        </div>
      ))}
    </li>
  );
}
