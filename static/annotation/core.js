// The item page's frame: answer state, autosave, keys, active time.
// Widgets talk to it only through window.Polis (see docs/architecture.md).
// Save & next swaps the next item's #item-area in without a page load (the server's reply
// says so, and htmx pushes the item's URL): this script and the widget's module stay loaded,
// and each item on the page gets its own state from openItem(), its widget set up again.
(function () {
  "use strict";

  const AUTOSAVE_DELAY_MS = 800;
  const IDLE_AFTER_MS = 60_000;
  const RETRY_MAX_MS = 30_000;

  const readJson = (id) => JSON.parse(document.getElementById(id).textContent);
  const text = readJson("polis-config").messages;

  // The item on the page now, and the widget's set-up, run for every item (Polis.onItem).
  let item = null;
  let widgetSetUp = null;
  const coreKeys = []; // the page's own keys, for every item

  // ---- one item: its answer, its local copy, its saves ----
  function openItem() {
    const form = document.getElementById("answer-form");
    const config = readJson("polis-config");
    const answerInput = document.getElementById("answer-input");
    // Looked up in this item's form: a reply to its last save may come after the next item
    // was swapped in. Out-of-band swaps replace them in place.
    const versionInput = () => form.querySelector("#answer-version");
    const statusBox = () => form.querySelector("#save-status");
    const problemsBox = () => form.querySelector("#answer-problems");
    const keys = []; // the widget's keys for this item

    // Every change is kept in this browser until the server has it.
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
    const stored = readJson("answer-initial");
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

    function setAnswer(answer) {
      current = answer;
      answerInput.value = answer === null ? "" : JSON.stringify(answer);
      dirty = true;
      writeLocal(answer);
      scheduleAutosave();
    }

    function showProblems(messages) {
      problemsBox().replaceChildren(...PolisKeys.messageList(messages));
    }

    function showStatus(message, kind) {
      statusBox().replaceChildren(PolisKeys.statusMessage(message, kind));
    }

    // ---- saving: drafts and submits share one htmx queue on the form (hx-sync) ----
    let autosaveTimer = null;
    let retryTimer = null;
    let retryDelay = 2000;
    let submitting = false;
    let left = false; // the next item was swapped in: this one sends nothing more
    let unsentActiveMs = 0; // active time on this item not yet credited by the server

    function scheduleAutosave() {
      if (config.frozen || left) return;
      if (config.submitted) {
        // A submitted answer changes only by an explicit save; the local copy keeps the edit.
        showStatus(text.editedSubmitted, "pending");
        return;
      }
      clearTimeout(autosaveTimer);
      autosaveTimer = setTimeout(() => send("draft"), AUTOSAVE_DELAY_MS);
    }

    function send(intent, extra = {}) {
      if (left || submitting && intent === "draft") return;
      clearTimeout(autosaveTimer);
      clearTimeout(retryTimer);
      showStatus(text.saving, "pending");
      htmx.ajax("POST", form.getAttribute("action"), {
        source: form,
        swap: "none",
        values: { intent, ...extra },
      }).catch(() => {
        // A failed request is handled (kept and retried) by the htmx:afterRequest listener.
      });
    }

    // The answer the server last asked to confirm (a caution: "Save anyway"); saving that
    // same answer again confirms it. Any other answer is checked afresh.
    let awaitingConfirmation = null;

    function saveAndNext(confirming = false) {
      if (config.frozen) {
        showProblems([text.frozen]);
        return;
      }
      if (submitting) return;
      submitting = true;
      const confirm = form.querySelector("#confirm-save");
      if (confirm && (confirming || answerInput.value === awaitingConfirmation)) {
        send("submit", { confirm: confirm.value });
      } else {
        send("submit");
      }
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

    // On a save & next that succeeded this runs after the next item was swapped in: it
    // settles this item's state only, never the next one's.
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
        return; // a submit goes on to the next item (swapped in, or the end page's HX-Redirect)
      }
      if (sent.intent === "submit") submitting = false;
      if (refused) {
        awaitingConfirmation = xhr.getResponseHeader("X-Polis-Confirm") !== null ? sent.answer : null;
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

    // Implicit submission (Enter in a one-line field, the focused Save button) is a save & next.
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      saveAndNext(event.submitter?.id === "confirm-save");
    });

    if (dirty) {
      showStatus(text.restored, "pending");
      scheduleAutosave();
    }

    return {
      form,
      keys,
      initialAnswer: () => current,
      setAnswer,
      saveAndNext: () => saveAndNext(),
      showProblems,
      addActiveMs: (ms) => { unsentActiveMs += ms; },
      online: () => { if (dirty && !config.submitted && !submitting) send("draft"); },
      leave: () => {
        left = true;
        clearTimeout(autosaveTimer);
        clearTimeout(retryTimer);
      },
    };
  }

  // ---- active time: counted while the tab is visible and used within the last 60 s ----
  let lastInputAt = performance.now();
  let lastTickAt = performance.now();
  let visible = document.visibilityState === "visible";

  function tick() {
    const now = performance.now();
    if (item && visible && now - lastInputAt < IDLE_AFTER_MS) {
      item.addActiveMs(Math.min(now - lastTickAt, IDLE_AFTER_MS));
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

  window.addEventListener("online", () => item && item.online());

  // htmx leaves 4xx responses unswapped by default; refusals carry their messages out of band.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "(403|409|422)", swap: true, error: false },
    { code: "[45]..", swap: false, error: true },
  ];
  // Back and forward to an item swapped in load it from the server: a snapshot of the page
  // would show an answer and a version that a later save may have made stale (#item-area
  // has hx-history="false", so none is kept).
  htmx.config.refreshOnHistoryMiss = true;

  // ---- keys ----
  const itemKeys = () => (item ? item.keys : []);

  function register(spec) {
    if (item) item.keys.push(spec);
    renderKeyListSoon();
  }

  function registerCore(spec) {
    coreKeys.push(spec);
    renderKeyListSoon();
  }

  // A widget registers its keys one by one: the lists are drawn once, after the last.
  let keyListDue = false;
  function renderKeyListSoon() {
    if (keyListDue) return;
    keyListDue = true;
    queueMicrotask(() => {
      keyListDue = false;
      renderKeyList();
    });
  }

  // The "?" overlay lists every key; the legend under the answer area only the widget's
  // (the core's are on the action buttons).
  function renderKeyList() {
    const list = document.getElementById("keys-list");
    const legend = document.getElementById("key-legend");
    if (!list) return;
    list.replaceChildren(...PolisKeys.listRows([...coreKeys, ...itemKeys()]));
    if (legend) legend.replaceChildren(...PolisKeys.listRows(itemKeys()));
  }

  PolisKeys.listen(() => [...coreKeys, ...itemKeys()], () => item && item.form, {
    single: readJson("polis-config").singleKeys !== false,
  });

  // ---- core actions and their keys ----
  function openDialog(id) {
    const dialog = document.getElementById(id);
    if (!dialog || dialog.open) return;
    // Closing gives the focus back to where it was (the answer field, say), and never leaves
    // it in the closed dialog: a key pressed before the browser moves it away would land in
    // the hidden comment field instead of opening the dialog again.
    const hadFocus = document.activeElement;
    dialog.addEventListener("close", () => {
      if (hadFocus && hadFocus.isConnected && hadFocus !== document.body) hadFocus.focus();
      else if (dialog.contains(document.activeElement)) document.activeElement.blur();
    }, { once: true });
    dialog.showModal();
  }

  // I: back to the widget's answer field, if it has one.
  const focusAnswerField = () => PolisKeys.focusAnswerField(item && item.form);

  function follow(id) {
    const link = document.getElementById(id);
    if (link) link.click();
  }

  const saveAndNext = () => item && item.saveAndNext();

  registerCore({ code: "Enter", label: text.keySaveNext, run: saveAndNext });
  registerCore({ code: "NumpadEnter", run: saveAndNext });
  registerCore({ code: "Enter", ctrl: true, inTextField: true, label: text.keySaveNextAnywhere, run: saveAndNext });
  // Listed and run where the page has what they act on (not on a first item, a training item).
  registerCore({
    code: "KeyP", shift: true, needs: "#action-previous", label: text.keyPrevious, run: () => follow("action-previous"),
  });
  registerCore({ code: "KeyS", shift: true, needs: "#action-skip", label: text.keySkip, run: () => follow("action-skip") });
  registerCore({
    code: "KeyF", shift: true, needs: "#flag-dialog", label: text.keyFlag, run: () => openDialog("flag-dialog"),
  });
  registerCore({
    code: "KeyG", shift: true, needs: "#guideline", label: text.keyGuideline,
    run: () => {
      const guideline = document.getElementById("guideline");
      if (guideline) guideline.open = !guideline.open;
    },
  });
  registerCore({ key: "?", label: text.keyHelp, run: () => openDialog("keys-help") });
  registerCore({ code: "F1", inTextField: true, label: text.keyHelpAnywhere, run: () => openDialog("keys-help") });
  registerCore({ code: "Slash", ctrl: true, inTextField: true, label: text.keyHelpAnywhere, run: () => openDialog("keys-help") });
  registerCore({
    code: "KeyI", shift: false, needs: "[data-answer-field]", label: text.keyAnswerField, run: focusAnswerField,
  });
  registerCore({
    code: "Escape", inTextField: true, label: text.keyEscape,
    run: (event) => {
      if (PolisKeys.isTextField(event.target)) event.target.blur();
    },
  });

  // Listened to on the document: the buttons and dialogs are swapped with the item.
  document.addEventListener("click", (event) => {
    const opener = event.target.closest("[data-opens]");
    if (opener) openDialog(opener.dataset.opens);
    const closer = event.target.closest("[data-closes-dialog]");
    if (closer) closer.closest("dialog").close();
  });
  // In the flag dialog Enter adds a line to the comment; Ctrl+Enter sends it (Esc closes it natively).
  document.addEventListener("keydown", (event) => {
    const flagDialog = event.target.closest && event.target.closest("#flag-dialog");
    if (flagDialog && event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.isComposing) {
      event.preventDefault();
      flagDialog.querySelector("form").requestSubmit();
    }
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    const flagDialog = event.target.closest && event.target.closest("#flag-dialog");
    if (flagDialog && event.detail.successful) {
      flagDialog.close();
      flagDialog.querySelector("form").reset();
    }
  });

  // ---- the item on the page, and the next one swapped in by save & next ----
  // Every item that opens (save & next, skip, previous, a link) is announced by its heading
  // ("Item 2 of 10 in your order"): the focus goes to the heading, or, where the widget has
  // put it on its answer field (to answer at once), stays there with the heading as the
  // field's description, so that a screen reader reads both. (A focused action button is no
  // answer field: htmx gives the new item's Save button the focus the old one had.)
  function announceItem() {
    const heading = document.getElementById("item-heading");
    if (!heading) return;
    const focused = document.activeElement;
    if (focused && item.form.contains(focused) && !focused.closest(".actions")) {
      const described = (focused.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (!described.includes(heading.id)) focused.setAttribute("aria-describedby", [...described, heading.id].join(" "));
    } else {
      heading.focus();
    }
  }

  function startItem() {
    if (item) item.leave();
    item = openItem();
    renderKeyListSoon();
    if (widgetSetUp) {
      widgetSetUp();
      announceItem();
    }
  }

  document.addEventListener("htmx:afterSettle", (event) => {
    if (event.target.id === "item-area") startItem();
  });

  window.Polis = {
    initialAnswer: () => item.initialAnswer(),
    setAnswer: (answer) => item.setAnswer(answer),
    keys: { register },
    saveAndNext,
    showProblems: (messages) => item.showProblems(messages),
    // The widget's set-up: run now for the item on the page, and again for every item
    // swapped in by save & next (see docs/architecture.md).
    onItem(setUp) {
      widgetSetUp = setUp;
      setUp();
      announceItem();
    },
  };

  startItem();
})();
