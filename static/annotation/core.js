// The item page's frame: answer state, autosave, keys, active time.
// Widgets talk to it only through window.Polis (see docs/architecture.md).
(function () {
  "use strict";

  const form = document.getElementById("answer-form");
  const config = JSON.parse(document.getElementById("polis-config").textContent);
  const text = config.messages;
  const answerInput = document.getElementById("answer-input");
  const versionInput = () => document.getElementById("answer-version");
  const statusBox = () => document.getElementById("save-status");
  const problemsBox = () => document.getElementById("answer-problems");

  const AUTOSAVE_DELAY_MS = 800;
  const IDLE_AFTER_MS = 60_000;
  const RETRY_MAX_MS = 30_000;

  // ---- local copy: every change is kept in this browser until the server has it ----
  const storageKey = "polis:draft:" + config.storageKey;

  function readLocal() {
    try {
      return JSON.parse(localStorage.getItem(storageKey));
    } catch {
      return null;
    }
  }
  function writeLocal(answer) {
    if (config.frozen) return; // nothing can be saved, so nothing is kept for later
    try {
      localStorage.setItem(storageKey, JSON.stringify({ answer, version: versionInput().value, at: Date.now() }));
    } catch {
      // Storage full or disabled: the on-page answer and the retries still hold it.
    }
  }
  function dropLocal() {
    try {
      localStorage.removeItem(storageKey);
    } catch {
      // nothing to drop
    }
  }

  // ---- answer state ----
  const stored = JSON.parse(document.getElementById("answer-initial").textContent);
  let current = stored;
  let dirty = false;
  const local = readLocal();
  if (local && local.version === versionInput().value && JSON.stringify(local.answer) !== JSON.stringify(stored)) {
    // A change that never reached the server (closed tab, lost connection): bring it back.
    current = local.answer;
    dirty = true;
  } else if (local) {
    dropLocal();
  }
  answerInput.value = current === null ? "" : JSON.stringify(current);

  function initialAnswer() {
    return current;
  }

  function setAnswer(answer) {
    current = answer;
    answerInput.value = answer === null ? "" : JSON.stringify(answer);
    dirty = true;
    writeLocal(answer);
    scheduleAutosave();
  }

  function showProblems(messages) {
    const box = problemsBox();
    box.replaceChildren();
    if (!messages || messages.length === 0) return;
    const list = document.createElement("ul");
    for (const message of messages) {
      const entry = document.createElement("li");
      entry.textContent = message;
      list.append(entry);
    }
    box.append(list);
  }

  function showStatus(message, kind) {
    const box = statusBox();
    box.textContent = message;
    box.dataset.kind = kind || "";
  }

  // ---- active time: counted while the tab is visible and used within the last 60 s ----
  let unsentActiveMs = 0;
  let lastInputAt = performance.now();
  let lastTickAt = performance.now();
  let visible = document.visibilityState === "visible";

  function tick() {
    const now = performance.now();
    if (visible && now - lastInputAt < IDLE_AFTER_MS) {
      unsentActiveMs += Math.min(now - lastTickAt, IDLE_AFTER_MS);
    }
    lastTickAt = now;
  }
  for (const name of ["keydown", "pointerdown", "pointermove", "wheel", "input", "focusin"]) {
    document.addEventListener(name, () => {
      tick();
      lastInputAt = performance.now();
    }, { passive: true, capture: true });
  }
  document.addEventListener("visibilitychange", () => {
    tick(); // settles the time up to now in the state it was spent in
    visible = document.visibilityState === "visible";
  });
  setInterval(tick, 1000);

  // ---- saving: drafts and submits share one htmx queue on the form (hx-sync) ----
  let autosaveTimer = null;
  let retryTimer = null;
  let retryDelay = 2000;
  let submitting = false;

  function scheduleAutosave() {
    if (config.frozen) return;
    if (config.submitted) {
      // A submitted answer changes only by an explicit save; the local copy keeps the edit.
      showStatus(text.editedSubmitted, "pending");
      return;
    }
    clearTimeout(autosaveTimer);
    autosaveTimer = setTimeout(() => send("draft"), AUTOSAVE_DELAY_MS);
  }

  function send(intent) {
    if (submitting && intent === "draft") return;
    clearTimeout(autosaveTimer);
    clearTimeout(retryTimer);
    showStatus(text.saving, "pending");
    htmx.ajax("POST", form.getAttribute("action"), {
      source: form,
      swap: "none",
      values: { intent },
    }).catch(() => {
      // A failed request is handled (kept and retried) by the htmx:afterRequest listener.
    });
  }

  function saveAndNext() {
    if (config.frozen) {
      showProblems([text.frozen]);
      return;
    }
    if (submitting) return;
    submitting = true;
    send("submit");
  }

  // What the request in flight carried, to settle the answer state when it returns.
  let inFlight = null;

  form.addEventListener("htmx:configRequest", (event) => {
    if (event.target !== form) return; // a widget's own htmx request (a partial), not a save
    tick();
    const activeMs = Math.round(unsentActiveMs);
    event.detail.parameters.active_ms = String(activeMs);
    inFlight = { intent: event.detail.parameters.intent, answer: answerInput.value, activeMs };
  });

  form.addEventListener("htmx:afterRequest", (event) => {
    if (event.target !== form) return;
    const sent = inFlight;
    inFlight = null;
    if (!sent) return;
    const xhr = event.detail.xhr;
    const status = xhr ? xhr.status : 0;
    // Only the item view's own replies count: a login page or a proxy's error page does not.
    const saved = status >= 200 && status < 300 && xhr.getResponseHeader("X-Polis-Version") !== null;
    const refused = status >= 400 && xhr.getResponseHeader("X-Polis-Refused") !== null;
    if (saved) {
      unsentActiveMs = Math.max(0, unsentActiveMs - sent.activeMs);
      retryDelay = 2000;
      if (answerInput.value === sent.answer) {
        dirty = false;
        dropLocal();
      } else {
        writeLocal(current); // changed meanwhile: keep it under the new version and save again
        scheduleAutosave();
      }
      return; // a submit goes on to the next item through HX-Redirect
    }
    if (sent.intent === "submit") submitting = false;
    if (refused) {
      return; // the server's message is in #answer-problems; the local copy stays
    }
    // Network failure, timeout, server error, lost session: the answer stays in this browser and is sent again.
    if (sent.intent === "submit") showStatus(text.submitFailed, "error");
    if (dirty && !config.submitted) {
      if (sent.intent === "draft") {
        showStatus(text.failedRetry.replace("%(seconds)s", Math.round(retryDelay / 1000)), "error");
      }
      retryTimer = setTimeout(() => send("draft"), retryDelay);
      retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
    }
  });

  window.addEventListener("online", () => {
    if (dirty && !config.submitted && !submitting) send("draft");
  });

  // Implicit submission (Enter in a one-line field, the focused Save button) is a save & next.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    saveAndNext();
  });

  // htmx leaves 4xx responses unswapped by default; refusals carry their messages out of band.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "(403|409|422)", swap: true, error: false },
    { code: "[45]..", swap: false, error: true },
  ];

  // ---- keys ----
  const registered = [];
  const coreKeys = new Set(); // already shown on the action buttons: kept out of the legend

  function register(spec) {
    registered.push(spec);
    renderKeyList();
  }

  function registerCore(spec) {
    coreKeys.add(spec);
    register(spec);
  }

  function renderKeyList() {
    const list = document.getElementById("keys-list");
    const legend = document.getElementById("key-legend");
    if (!list) return;
    list.replaceChildren(...PolisKeys.listRows(registered));
    if (legend) legend.replaceChildren(...PolisKeys.listRows(registered.filter((spec) => !coreKeys.has(spec))));
  }

  PolisKeys.listen(() => registered, form);

  // ---- core actions and their keys ----
  const helpDialog = document.getElementById("keys-help");
  const flagDialog = document.getElementById("flag-dialog");
  const guideline = document.getElementById("guideline");

  function openDialog(dialog) {
    if (dialog && !dialog.open) dialog.showModal();
  }

  function follow(id) {
    const link = document.getElementById(id);
    if (link) link.click();
  }

  registerCore({ code: "Enter", label: text.keySaveNext, run: saveAndNext });
  registerCore({ code: "NumpadEnter", run: saveAndNext });
  registerCore({ code: "Enter", ctrl: true, inTextField: true, label: text.keySaveNextAnywhere, run: saveAndNext });
  registerCore({ code: "KeyP", shift: true, label: text.keyPrevious, run: () => follow("action-previous") });
  registerCore({ code: "KeyS", shift: true, label: text.keySkip, run: () => follow("action-skip") });
  registerCore({ code: "KeyF", shift: true, label: text.keyFlag, run: () => openDialog(flagDialog) });
  registerCore({
    code: "KeyG", shift: true, label: text.keyGuideline,
    run: () => { if (guideline) guideline.open = !guideline.open; },
  });
  registerCore({ key: "?", label: text.keyHelp, run: () => openDialog(helpDialog) });
  registerCore({
    code: "Escape", inTextField: true, label: text.keyEscape,
    run: (event) => {
      if (PolisKeys.isTextField(event.target)) event.target.blur();
    },
  });

  for (const opener of document.querySelectorAll("[data-opens]")) {
    opener.addEventListener("click", () => openDialog(document.getElementById(opener.dataset.opens)));
  }
  if (flagDialog) {
    flagDialog.addEventListener("htmx:afterRequest", (event) => {
      if (event.detail.successful) {
        flagDialog.close();
        flagDialog.querySelector("form").reset();
      }
    });
  }

  window.Polis = {
    initialAnswer,
    setAnswer,
    keys: { register },
    saveAndNext,
    showProblems,
  };

  if (dirty) {
    showStatus(text.restored, "pending");
    scheduleAutosave();
  }
})();
