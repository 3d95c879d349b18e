// The adjudication page: two modes, so that the page's keys never clash with the widget's.
// Choosing mode: 1..K take annotator k's answer, M the majority, E edits from the chosen
// (or focused) answer, Enter saves and opens the next item, N writes a note.
// Editing mode: the subtask's own widget (the annotators' template and module, which talk to
// window.Polis as on the item page) has all its keys; Enter saves the edited answer, Esc
// goes back to choosing mode. The widget starts from the answer named by ?edit= (the server
// draws it so, and the page then opens in editing mode); E on another answer reopens the page
// from that one.
(function () {
  "use strict";

  const form = document.getElementById("decision-form");
  const config = JSON.parse(document.getElementById("polis-config").textContent);
  const text = config.messages;
  const initial = JSON.parse(document.getElementById("answer-initial").textContent);
  const choosingArea = document.getElementById("choosing-area");
  const editingArea = document.getElementById("editing-area");
  const cards = [...choosingArea.querySelectorAll(".answer-card")];
  const editedCard = document.getElementById("edited-card");
  const note = document.getElementById("decision-note");
  const modeBadge = document.getElementById("mode-badge");
  const statusBox = () => document.getElementById("save-status");
  const problemsBox = () => document.getElementById("decision-problems");

  let mode = "choosing";
  let chosen = null;
  // The widget's answer: what ?edit= started it from, then every change made in editing mode.
  let edited = config.editFrom ? initial : null;

  function showStatus(message, kind) {
    statusBox().replaceChildren(PolisKeys.statusMessage(message, kind));
  }

  function showProblems(messages) {
    problemsBox().replaceChildren(...PolisKeys.messageList(messages));
  }

  // ---- choosing ----
  function choose(card) {
    if (!card || card.hidden) return;
    chosen = card;
    for (const other of cards) {
      other.setAttribute("aria-checked", String(other === card));
      other.tabIndex = other === card ? 0 : -1;
    }
    card.focus();
  }

  for (const card of cards) card.addEventListener("click", () => choose(card));
  choosingArea.querySelector("[role=radiogroup]").addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const shown = cards.filter((card) => !card.hidden);
    const index = shown.indexOf(event.target);
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (index < 0) return;
    if (step) {
      event.preventDefault();
      choose(shown[(index + step + shown.length) % shown.length]);
    } else if (event.key === " ") {
      event.preventDefault();
      choose(event.target);
    }
  });

  // ---- the two modes ----
  function setMode(next) {
    mode = next;
    const editing = next === "editing";
    editingArea.inert = !editing;
    editingArea.classList.toggle("active", editing);
    modeBadge.textContent = editing ? text.editingMode : text.choosingMode;
    document.body.dataset.mode = next;
  }

  // Where the focus was in the widget, to come back to it from choosing mode.
  let widgetFocus = null;
  editingArea.addEventListener("focusin", (event) => {
    if (event.target !== editingArea) widgetFocus = event.target;
  });

  function focusWidget() {
    const target = (widgetFocus && editingArea.contains(widgetFocus) && widgetFocus) ||
      editingArea.querySelector("[role=radio][aria-checked=true], [role=radio][tabindex='0']") || editingArea;
    target.focus();
  }

  function startEditing() {
    const focused = cards.includes(document.activeElement) ? document.activeElement : null;
    const from = focused || chosen;
    const wanted = from && from !== editedCard ? from.dataset.edit : null;
    if (wanted && wanted !== config.editFrom) {
      // The widget draws its answer on the server: reopen the page from that answer.
      const url = new URL(window.location.href);
      url.searchParams.set("edit", wanted);
      window.location.assign(url.toString());
      return;
    }
    setMode("editing");
    focusWidget();
  }

  function stopEditing() {
    if (document.activeElement && editingArea.contains(document.activeElement)) document.activeElement.blur();
    setMode("choosing");
    // Only a change makes "your edited answer" a choice: editing left untouched goes back to
    // the answer it started from.
    const startedFrom = cards.find((card) => card !== editedCard && card.dataset.edit === config.editFrom);
    if (edited !== null && JSON.stringify(edited) !== JSON.stringify(initial)) {
      editedCard.hidden = false;
      choose(editedCard);
    } else if (startedFrom && (!chosen || chosen === editedCard)) {
      choose(startedFrom);
    } else {
      (chosen || cards[0])?.focus();
    }
  }

  // ---- saving ----
  let saving = false;

  function decision() {
    if (mode === "editing") return { source: "edited", answer: edited };
    if (!chosen) return null;
    const source = chosen.dataset.source;
    if (source === "edited") return { source: "edited", answer: edited };
    if (source === "decision") return { source: "edited", answer: JSON.parse(chosen.dataset.answer) };
    return { source, annotation: chosen.dataset.annotation || "" };
  }

  function save() {
    if (saving) return;
    const chosenDecision = decision();
    if (!chosenDecision || (chosenDecision.source === "edited" && chosenDecision.answer == null)) {
      showProblems([text.chooseFirst]);
      return;
    }
    saving = true;
    document.getElementById("decision-source").value = chosenDecision.source;
    document.getElementById("decision-annotation").value = chosenDecision.annotation || "";
    document.getElementById("decision-answer").value =
      chosenDecision.answer === undefined ? "" : JSON.stringify(chosenDecision.answer);
    showStatus(text.saving, "pending");
    htmx.ajax("POST", form.getAttribute("action"), { source: form, swap: "none" }).catch(() => {});
  }

  form.addEventListener("htmx:afterRequest", (event) => {
    if (event.target !== form) return; // a widget's own request (a partial)
    const xhr = event.detail.xhr;
    const status = xhr ? xhr.status : 0;
    if (status >= 200 && status < 300 && xhr.getResponseHeader("X-Polis-Version") !== null) return; // HX-Redirect
    saving = false;
    if (!(status >= 400 && xhr.getResponseHeader("X-Polis-Refused") !== null)) showStatus(text.failed, "error");
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });

  // Refusals (409, 422) carry their messages out of band, as on the item page.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "(403|409|422)", swap: true, error: false },
    { code: "[45]..", swap: false, error: true },
  ];

  // ---- the claim on the item: made once the page is open (the GET writes nothing), renewed
  // while the page is in use ----
  function claim(intent) {
    return fetch(form.getAttribute("action"), {
      method: "POST",
      headers: { "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value },
      body: new URLSearchParams({ intent }),
      credentials: "same-origin",
    });
  }

  // Another adjudicator holds the item just opened: on to the next case, which says so.
  claim("claim").then((response) => {
    if (response.status !== 409) return;
    const next = response.headers.get("X-Polis-Next");
    if (next) window.location.replace(next);
    else showStatus(text.claimLost, "error");
  }).catch(() => {});

  let usedSinceRenewal = false;
  for (const name of ["keydown", "pointerdown", "input"]) {
    document.addEventListener(name, () => { usedSinceRenewal = true; }, { passive: true, capture: true });
  }
  setInterval(() => {
    if (!usedSinceRenewal || document.visibilityState !== "visible") return;
    usedSinceRenewal = false;
    claim("renew").then((response) => {
      if (response.status === 409) showStatus(text.claimLost, "error");
    }).catch(() => {});
  }, config.claimRenewMs);

  // ---- keys ----
  const choosingKeys = [];
  const editingKeys = [];
  PolisKeys.listen(() => (mode === "editing" ? editingKeys : choosingKeys), () => form, { single: config.singleKeys !== false });

  function renderKeyLists() {
    document.getElementById("keys-list-choosing").replaceChildren(...PolisKeys.listRows(choosingKeys));
    document.getElementById("keys-list-editing").replaceChildren(...PolisKeys.listRows(editingKeys));
  }

  function inChoosing(spec) {
    choosingKeys.push(spec);
    renderKeyLists();
  }
  // Widgets register their keys here while the page loads: they belong to editing mode.
  function inEditing(spec) {
    editingKeys.push(spec);
    renderKeyLists();
  }
  function inBoth(spec) {
    inChoosing(spec);
    inEditing(spec);
  }


  const helpDialog = document.getElementById("keys-help");
  const openHelp = () => { if (!helpDialog.open) helpDialog.showModal(); };
  const follow = (id) => document.getElementById(id)?.click();

  for (const card of cards) {
    const key = card.dataset.key;
    if (!key) continue;
    if (key === "M") {
      inChoosing({ code: "KeyM", label: text.keyMajority, run: () => choose(card) });
      continue;
    }
    const label = key === "1" ? text.keyTake : "";
    inChoosing({ code: "Digit" + key, shift: false, label, run: () => choose(card) });
    inChoosing({ code: "Numpad" + key, run: () => choose(card) });
  }
  inChoosing({ code: "KeyE", label: text.keyEdit, run: startEditing });
  inChoosing({ code: "Enter", label: text.keySave, run: save });
  inChoosing({ code: "NumpadEnter", run: save });
  inChoosing({ code: "KeyN", label: text.keyNote, run: () => note.focus() });
  inChoosing({
    code: "KeyP", shift: true, needs: "#action-previous", label: text.keyPrevious, run: () => follow("action-previous"),
  });
  inChoosing({ code: "KeyS", shift: true, label: text.keySkip, run: () => follow("action-skip") });
  inChoosing({
    code: "Escape", inTextField: true, label: text.keyEscape,
    run: (event) => { if (PolisKeys.isTextField(event.target)) event.target.blur(); },
  });
  inEditing({ code: "Enter", label: text.keySave, run: save });
  inEditing({ code: "NumpadEnter", run: save });
  inEditing({ code: "Escape", inTextField: true, label: text.keyBack, run: stopEditing });
  inEditing({
    code: "KeyI", shift: false, needs: "#editing-area [data-answer-field]", label: text.keyAnswerField,
    run: () => PolisKeys.focusAnswerField(editingArea),
  });
  inBoth({ code: "Enter", ctrl: true, inTextField: true, label: text.keySaveAnywhere, run: save });
  inBoth({ key: "?", label: text.keyHelp, run: openHelp });
  inBoth({ code: "F1", inTextField: true, label: text.keyHelpAnywhere, run: openHelp });

  document.getElementById("action-edit").addEventListener("click", startEditing);
  document.getElementById("action-keys").addEventListener("click", openHelp);

  // What the subtask's widget sees: the item page's API (docs/architecture.md).
  window.Polis = {
    initialAnswer: () => initial,
    setAnswer(answer) {
      edited = answer;
      showProblems([]);
    },
    keys: { register: inEditing },
    saveAndNext: save,
    showProblems,
    // One item per page here: the widget is set up once.
    onItem: (setUp) => setUp(),
  };

  // Widget modules run after this script; the mode is set once they have drawn the item.
  document.addEventListener("DOMContentLoaded", () => {
    if (config.editFrom) {
      // The page opened in editing mode, the widget not inert: it has placed the focus itself.
      setMode("editing");
      if (!editingArea.contains(document.activeElement)) focusWidget();
      return;
    }
    setMode("choosing");
    const decided = config.decided;
    const current = decided && cards.find((card) =>
      card.dataset.source === (decided.source === "edited" ? "decision" : decided.source) &&
      (decided.source !== "annotation" || card.dataset.annotation === String(decided.annotation)));
    if (current) choose(current);
    else (cards[0] || note).focus();
  });
})();
