// Shared page code: the account bar and the sign-in / sign-up forms, over the public API.
"use strict";

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `Request failed (${response.status})`;
    throw Object.assign(new Error(message), { status: response.status, data });
  }
  return data;
}

async function showAccount() {
  const nav = document.querySelector("[data-account]");
  if (!nav) return;
  try {
    const me = await api("GET", "/api/v1/me");
    nav.replaceChildren();
    const name = document.createElement("span");
    name.textContent = me.username;
    const out = document.createElement("button");
    out.className = "button small";
    out.type = "button";
    out.textContent = "Sign out";
    out.addEventListener("click", async () => {
      await api("POST", "/api/v1/auth/logout");
      window.location.assign("/");
    });
    nav.append(name, out);
  } catch (_) {
    // Not signed in: the sign-in links stay.
  }
}

function wireAuthForm() {
  const form = document.querySelector("[data-auth-form]");
  if (!form) return;
  const errorBox = form.querySelector("[data-error]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.hidden = true;
    const fields = Object.fromEntries(new FormData(form).entries());
    if (!fields.email) delete fields.email;
    const path = form.dataset.authForm === "signup" ? "/api/v1/auth/register" : "/api/v1/auth/login";
    try {
      await api("POST", path, fields);
      const next = new URLSearchParams(window.location.search).get("next");
      window.location.assign(next && next.startsWith("/") && !next.startsWith("//") ? next : "/");
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  });
}

showAccount();
wireAuthForm();
