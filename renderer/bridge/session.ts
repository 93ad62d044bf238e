/**
 * The browser session of `workbench serve`: the printed URL carries a one-time
 * token in its fragment (never sent to the server by the browser on its own).
 * We exchange it for an HttpOnly SameSite=Strict cookie and drop the fragment
 * from the address bar and history, so the token does not linger.
 */
export async function exchangeSessionToken(): Promise<void> {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return;
  const token = decodeURIComponent(match[1]);
  try {
    const res = await fetch("/auth/session", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    if (!res.ok) console.warn(`session exchange failed: HTTP ${res.status}`);
  } finally {
    history.replaceState(null, "", location.pathname + location.search);
  }
}
