// The discourse tree editor. This module keeps the draft (head and relation per unit),
// the selection and the undo history; after every edit it posts the draft to the
// server's tree partial, which draws the units, the tree and the tree check's problems.
// Whether the tree is valid is never decided here.

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const widget = document.getElementById("discourse-widget");
  const listPane = document.getElementById("discourse-list");
  const headInput = document.getElementById("discourse-head-input");
  const relationFilter = document.getElementById("discourse-relation-filter");
  const options = [...widget.querySelectorAll(".relation-option")];
  const selectedBox = document.getElementById("discourse-selected");
  const hintBox = document.getElementById("discourse-hint");
  const text = JSON.parse(document.getElementById("discourse-text").textContent);
  const order = JSON.parse(document.getElementById("discourse-du-order").textContent);
  const numberOf = new Map(order.map((duId, index) => [duId, index + 1]));
  const Polis = window.Polis;

  // du_id -> {head, relation}; units not in it are "not attached yet" and left out of the answer.
  let draft = new Map();
  const initialUnits = Polis.initialAnswer()?.discourse_units;
  for (const unit of Array.isArray(initialUnits) ? initialUnits : []) {
    if (unit && numberOf.has(unit.du_id) && !draft.has(unit.du_id)) {
      draft.set(unit.du_id, { head: unit.head ?? null, relation: unit.relation ?? null });
    }
  }
  let selected = order.find((duId) => !draft.has(duId)) || order[0] || null;

  const format = (template, values) => template.replace(/%\((\w+)\)s/g, (_, name) => values[name]);

  // ---- the answer and the server's drawing of it ----
  function answer() {
    return {
      discourse_units: order.filter((duId) => draft.has(duId)).map((duId) => ({ du_id: duId, ...draft.get(duId) })),
    };
  }

  function redraw() {
    // hx-sync="this:queue last" on the pane: while one drawing is on its way, only the
    // newest draft waits for its turn; the ones in between are never drawn.
    htmx.ajax("POST", widget.dataset.treeUrl, {
      source: listPane,
      target: listPane,
      swap: "innerHTML settle:0ms",
      values: { answer: JSON.stringify(answer()) },
    });
  }

  // The pane sits inside the answer form, whose listeners treat requests as saves: the
  // drawing is not one, so its request events stop here.
  for (const name of ["htmx:configRequest", "htmx:afterRequest"]) {
    listPane.addEventListener(name, (event) => event.stopPropagation());
  }
  listPane.addEventListener("htmx:afterSwap", paint);

  function publish() {
    Polis.setAnswer(answer());
    redraw();
  }

  // ---- edits and their history ----
  const undoStack = [];
  const redoStack = [];
  const UNDO_LIMIT = 500;
  const snapshot = () => JSON.stringify([...draft]);

  function edit(change) {
    const before = snapshot();
    change();
    if (snapshot() === before) return;
    undoStack.push(before);
    if (undoStack.length > UNDO_LIMIT) undoStack.shift();
    redoStack.length = 0;
    hint("");
    publish();
  }

  function travel(from, to, emptyMessage) {
    if (!from.length) {
      hint(emptyMessage);
      return;
    }
    to.push(snapshot());
    draft = new Map(JSON.parse(from.pop()));
    hint("");
    publish();
    paint();
  }
  const undo = () => travel(undoStack, redoStack, text.nothingToUndo);
  const redo = () => travel(redoStack, undoStack, text.nothingToRedo);

  function setHead(duId, headId) {
    // Moving a unit keeps its label; a root had none.
    edit(() => draft.set(duId, { head: headId, relation: draft.get(duId)?.relation ?? null }));
  }

  function makeRoot() {
    if (!requireSelection()) return;
    edit(() => draft.set(selected, { head: null, relation: null }));
  }

  function detach() {
    if (!requireSelection()) return;
    edit(() => draft.delete(selected));
  }

  function setRelation(relation) {
    if (!requireSelection()) return false;
    const entry = draft.get(selected);
    if (!entry || entry.head === null) {
      hint(text.headFirst);
      return false;
    }
    edit(() => draft.set(selected, { head: entry.head, relation }));
    return true;
  }

  // ---- selection ----
  function hint(message) {
    hintBox.textContent = message;
  }

  function requireSelection() {
    if (selected) return true;
    hint(text.selectFirst);
    return false;
  }

  function select(duId) {
    if (!numberOf.has(duId)) return;
    selected = duId;
    paint();
    // Rows carry no id: htmx would carry an old row's classes over to its new copy.
    listPane.querySelector(`.du-row[data-number="${numberOf.get(duId)}"]`)?.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    const index = selected ? order.indexOf(selected) : -1;
    select(order[Math.min(order.length - 1, Math.max(0, index + step))]);
  }

  function describe(duId) {
    const entry = draft.get(duId);
    const parts = [format(text.unit, { number: numberOf.get(duId) })];
    if (!entry) parts.push(text.notAttached);
    else if (entry.head === null) parts.push(text.root);
    else parts.push("→ " + (numberOf.get(entry.head) ?? "?"), entry.relation || text.noRelation);
    return parts.join(" · ");
  }

  function paint() {
    const head = selected ? draft.get(selected)?.head : null;
    for (const element of widget.querySelectorAll("[data-du]:not(button)")) {
      const duId = element.dataset.du;
      element.classList.toggle("is-selected", duId === selected);
      if (duId === selected) element.setAttribute("aria-current", "true");
      else element.removeAttribute("aria-current");
      element.classList.toggle("is-head", head != null && duId === head);
      element.classList.toggle("is-dependent", selected != null && draft.get(duId)?.head === selected);
    }
    widget.classList.toggle("has-selection", selected != null);
    selectedBox.textContent = selected ? describe(selected) : text.selectFirst;
  }

  // ---- choosing a head by number ----
  function startHead(digit) {
    if (!requireSelection()) return;
    headInput.value = digit;
    headInput.focus();
  }

  headInput.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    if (event.key === "Escape") {
      event.preventDefault();
      headInput.value = "";
      headInput.blur();
    } else if (event.key === "Enter") {
      // Handled here: Enter in this field attaches, it never submits the item.
      event.preventDefault();
      const typed = headInput.value.trim();
      const headId = /^\d+$/.test(typed) ? order[Number(typed) - 1] : undefined;
      if (!headId || !requireSelection()) {
        hint(format(text.noSuchUnit, { number: typed }));
        headInput.select();
        return;
      }
      headInput.value = "";
      setHead(selected, headId);
      if (draft.get(selected)?.relation) headInput.blur();
      else openRelations();
    }
  });

  // ---- choosing a relation: first letters filter the 21 labels ----
  let active = -1;

  function visibleOptions() {
    return options.filter((option) => !option.hidden);
  }

  function filterRelations() {
    // The stored label or its Polish name: "prz" finds Concession (przyzwolenie) too.
    const typed = relationFilter.value.trim().toLocaleLowerCase("pl");
    const starts = (name) => name.toLocaleLowerCase("pl").startsWith(typed);
    for (const option of options) {
      option.hidden = !starts(option.dataset.relation) && !starts(option.dataset.name);
    }
    // Enter takes the first label matching in English (the stored spelling), else in Polish.
    const visible = visibleOptions();
    const english = visible.findIndex((option) => starts(option.dataset.relation));
    active = typed && visible.length ? Math.max(english, 0) : -1;
    markActive();
  }

  // Beside the type-ahead: what the highlighted relation means, with an example.
  const relationInfo = document.getElementById("relation-info");

  function markActive() {
    const visible = visibleOptions();
    for (const option of options) option.setAttribute("aria-selected", String(option === visible[active]));
    const shown = visible[active];
    if (shown) relationFilter.setAttribute("aria-activedescendant", shown.id);
    else relationFilter.removeAttribute("aria-activedescendant");
    relationInfo.hidden = !shown;
    if (!shown) return;
    relationInfo.querySelector(".relation-info-label").textContent = shown.dataset.relation;
    relationInfo.querySelector(".relation-info-name").textContent = shown.dataset.name;
    relationInfo.querySelector(".relation-info-definition").textContent = shown.dataset.definition;
    relationInfo.querySelector(".relation-info-example").textContent = shown.dataset.example;
  }

  function openRelations() {
    if (!requireSelection()) return;
    relationFilter.value = "";
    filterRelations();
    relationFilter.focus();
  }

  function closeRelations() {
    relationFilter.value = "";
    filterRelations();
    relationFilter.blur();
  }

  function chooseRelation(relation) {
    if (setRelation(relation)) {
      closeRelations();
      move(1);
    }
  }

  relationFilter.addEventListener("input", filterRelations);
  relationFilter.addEventListener("focus", () => relationFilter.setAttribute("aria-expanded", "true"));
  relationFilter.addEventListener("blur", () => relationFilter.setAttribute("aria-expanded", "false"));
  relationFilter.addEventListener("keydown", (event) => {
    if (event.isComposing) return;
    const visible = visibleOptions();
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!visible.length) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      const from = active < 0 && step < 0 ? 0 : active; // Up from nothing goes to the last label
      active = (from + step + visible.length) % visible.length;
      markActive();
    } else if (event.key === "Enter") {
      event.preventDefault(); // chooses the label, never submits the item
      if (active >= 0 && visible[active]) chooseRelation(visible[active].dataset.relation);
      else hint(text.typeRelation);
    } else if (event.key === "Escape") {
      event.preventDefault();
      closeRelations();
    }
  });

  // ---- the mouse ----
  // Buttons do not take the focus on a click, so Enter keeps meaning "save and next".
  for (const button of widget.querySelectorAll("button")) {
    button.addEventListener("mousedown", (event) => event.preventDefault());
  }
  listPane.addEventListener("mousedown", (event) => {
    if (event.target.closest("button")) event.preventDefault();
  });
  widget.addEventListener("click", (event) => {
    const option = event.target.closest(".relation-option");
    if (option) return chooseRelation(option.dataset.relation);
    const setHeadButton = event.target.closest(".du-set-head");
    if (setHeadButton) {
      if (requireSelection()) setHead(selected, setHeadButton.dataset.du);
      return;
    }
    const unit = event.target.closest("[data-du]");
    if (unit) select(unit.dataset.du);
  });
  document.getElementById("discourse-make-root").addEventListener("click", makeRoot);
  document.getElementById("discourse-detach").addEventListener("click", detach);
  document.getElementById("discourse-undo").addEventListener("click", undo);
  document.getElementById("discourse-redo").addEventListener("click", redo);

  // ---- keys ----
  const keys = text.keys;
  Polis.keys.register({ code: "KeyJ", label: keys.next, run: () => move(1) });
  Polis.keys.register({ code: "ArrowDown", run: () => move(1) });
  Polis.keys.register({ code: "KeyK", label: keys.previous, run: () => move(-1) });
  Polis.keys.register({ code: "ArrowUp", run: () => move(-1) });
  for (let digit = 0; digit <= 9; digit += 1) {
    Polis.keys.register({
      code: "Digit" + digit, shift: false, label: digit === 1 ? keys.head : "", run: () => startHead(String(digit)),
    });
  }
  Polis.keys.register({ code: "KeyL", label: keys.relation, run: openRelations });
  Polis.keys.register({ code: "KeyR", shift: false, label: keys.root, run: makeRoot });
  Polis.keys.register({ code: "Delete", label: keys.detach, run: detach });
  Polis.keys.register({ code: "KeyZ", ctrl: true, shift: false, label: keys.undo, run: undo });
  Polis.keys.register({ code: "KeyZ", ctrl: true, shift: true, label: keys.redo, run: redo });

  // The page was drawn from the stored answer; a draft the core restored from this
  // browser's local copy must be drawn anew.
  const stored = JSON.parse(document.getElementById("answer-initial").textContent);
  if (JSON.stringify(stored) !== JSON.stringify(Polis.initialAnswer())) redraw();
  paint();
});
