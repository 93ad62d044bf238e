/**
 * A person's OAuth2 sign-in to one API: who is signed in, with which scopes,
 * until when; the scopes to ask for (from the spec, plus any typed in); Sign
 * in with the system browser or with a code; Sign out. The sign-in itself
 * happens in the browser (or on another device) and ends with an
 * `auth.changed` event; no token ever reaches this page.
 */
import { useEffect, useState } from "react";
import type { SignInStart, SignInView } from "../../shared/contract.ts";
import { errorMessage } from "../bridge/index.ts";
import { useToast } from "../app/toasts.tsx";
import { useBridge, useChannel, useWorkbench } from "../app/workbench-context.tsx";
import { formatTime } from "../common/format.ts";
import "./SignInPanel.css";

const STATE_TEXT: Record<SignInView["state"], string> = {
  signed_in: "Signed in",
  expired: "Sign-in expired",
  signed_out: "Not signed in",
  signing_in: "Signing in…",
  unreadable: "Sign-in unreadable",
};

export function SignInPanel({ api }: { api: string }) {
  const status = useChannel("auth.status", {}, ["auth.changed", "apis.changed"]);
  const view = status.data?.find((v) => v.api === api);
  if (!view) return null;
  return (
    <section className="apiset-section" aria-label="Sign-in">
      <h2 className="section-title">Sign-in (OAuth2)</h2>
      <SignIn view={view} />
    </section>
  );
}

function SignIn({ view }: { view: SignInView }) {
  const api = useWorkbench();
  const bridge = useBridge();
  const notify = useToast();
  const [picked, setPicked] = useState<string[]>(() => (view.scopes.length ? view.scopes : view.defaultScopes));
  const [other, setOther] = useState("");
  const [started, setStarted] = useState<SignInStart>();
  const [busy, setBusy] = useState(false);

  // The sign-in ends elsewhere (a browser tab, another device): its outcome arrives as an event.
  useEffect(
    () =>
      bridge.onEvent((event) => {
        if (event.type !== "auth.changed" || event.api !== view.api || event.ok === undefined) return;
        setStarted(undefined);
        notify({ kind: event.ok ? "success" : "error", text: event.message ?? (event.ok ? `Signed in to ${view.api}.` : `Not signed in to ${view.api}.`) });
      }),
    [bridge, notify, view.api],
  );

  const scopes = [...new Set([...picked, ...other.split(/[\s,]+/).filter(Boolean)])];
  const start = async (method: "browser" | "device") => {
    setBusy(true);
    try {
      const answer = await api["auth.login"]({ api: view.api, method, scopes });
      if (!answer.ok) notify({ kind: "error", text: answer.message });
      else {
        setStarted(answer);
        // In a browser tab (workbench serve) the tab's own browser is the system browser.
        if (answer.kind === "browser" && !answer.opened) window.open(answer.url, "_blank", "noopener,noreferrer");
      }
    } catch (err) {
      notify({ kind: "error", text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };
  const signOut = async () => {
    try {
      const ack = await api["auth.logout"]({ api: view.api });
      notify({ kind: ack.ok ? "success" : "error", text: ack.message ?? `Signed out of ${view.api}.` });
    } catch (err) {
      notify({ kind: "error", text: errorMessage(err) });
    }
  };

  const available = Object.entries(view.availableScopes);
  return (
    <div className="signin">
      <p className={`signin-state signin-${view.state}`}>
        <strong>{STATE_TEXT[view.state]}</strong>
        {view.who && <> as <strong>{view.who}</strong></>}
        {(view.state === "signed_in" || view.state === "expired") && (
          <span className="muted"> · scopes {view.scopes.length ? view.scopes.map((s) => <code key={s}>{s}</code>) : "none"}</span>
        )}
        {view.state === "signed_in" && view.expiresAt && <span className="muted"> · access token until {formatTime(view.expiresAt)} (renewed as needed)</span>}
      </p>
      {view.problem && <p className="field-error">{view.problem}</p>}
      {!view.ready.ok && <p className="muted">{view.ready.message}</p>}
      {started?.ok && started.kind === "device" && (
        <div className="signin-device" role="status">
          Open <a href={started.verificationUriComplete ?? started.verificationUri} target="_blank" rel="noopener noreferrer">{started.verificationUri}</a> on any device and enter
          <code className="signin-code">{started.userCode}</code>
          <span className="muted">(until {formatTime(started.expiresAt)})</span>
        </div>
      )}
      {started?.ok && started.kind === "browser" && (
        <p className="muted" role="status">
          Waiting for you to finish in the browser… <a href={started.url} target="_blank" rel="noopener noreferrer">open the sign-in page again</a>
        </p>
      )}
      {available.length > 0 && (
        <fieldset className="signin-scopes">
          <legend className="field-label">Scopes to ask for</legend>
          {available.map(([scope, description]) => (
            <label key={scope} className="check">
              <input type="checkbox" checked={picked.includes(scope)} onChange={(e) => setPicked(e.target.checked ? [...picked, scope] : picked.filter((s) => s !== scope))} />
              <code>{scope}</code> <span className="muted">{description}</span>
            </label>
          ))}
        </fieldset>
      )}
      <label className="field">
        <span className="field-label">Other scopes (space separated)</span>
        <input className="input" value={other} onChange={(e) => setOther(e.target.value)} placeholder="e.g. read:user" />
      </label>
      <div className="toolbar">
        <button className="btn btn-primary" disabled={busy || !view.ready.ok} onClick={() => void start("browser")}>
          {view.state === "signed_in" ? "Sign in again" : "Sign in"}
        </button>
        <button className="btn" disabled={busy || !view.ready.ok} onClick={() => void start("device")} title="Get a code to enter at the provider's page, on any device">
          Sign in with a code
        </button>
        {(view.state === "signed_in" || view.state === "expired" || view.state === "unreadable") && (
          <button className="btn btn-danger" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </div>
    </div>
  );
}
