/**
 * Entry point: exchange the session token (browser only), connect to the host,
 * check the session with `app.info`, then show the workbench, or a screen that
 * says what to do when there is no session or no host.
 */
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { connectBridge, exchangeSessionToken, errorMessage, BridgeError, type Bridge } from "./bridge/index.ts";
import { WorkbenchProvider } from "./app/workbench-context.tsx";
import { ToastProvider } from "./app/toasts.tsx";
import { App, type AppInfo } from "./app/App.tsx";
import { StartupScreen } from "./app/StartupScreen.tsx";
import "./styles/theme.css";
import "./styles/base.css";

type Phase = { kind: "loading" } | { kind: "ready"; info: AppInfo } | { kind: "no-session" } | { kind: "unreachable"; message: string };

function Root() {
  const [phase, setPhase] = useState<Phase>({ kind: "loading" });
  const [bridge] = useState<Bridge>(() => connectBridge(() => setPhase({ kind: "no-session" })));

  // Pasting the printed URL into a tab already on this page changes only the fragment: start over with it.
  useEffect(() => {
    const onHash = () => {
      if (/(?:^#|&)token=/.test(location.hash)) location.reload();
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    let cancelled = false;
    const start = async () => {
      if (bridge.kind === "http") await exchangeSessionToken().catch(() => {});
      try {
        const info = await bridge.api["app.info"]({});
        if (!cancelled) setPhase({ kind: "ready", info });
      } catch (err) {
        if (cancelled) return;
        if (err instanceof BridgeError && err.code === "unauthorized") setPhase({ kind: "no-session" });
        else setPhase({ kind: "unreachable", message: errorMessage(err) });
      }
    };
    void start();
    return () => {
      cancelled = true;
    };
  }, [bridge]);

  if (phase.kind === "loading") return <StartupScreen kind="loading" />;
  if (phase.kind === "no-session") return <StartupScreen kind="no-session" />;
  if (phase.kind === "unreachable") return <StartupScreen kind="unreachable" message={phase.message} />;
  return (
    <WorkbenchProvider bridge={bridge}>
      <ToastProvider>
        <App info={phase.info} />
      </ToastProvider>
    </WorkbenchProvider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
