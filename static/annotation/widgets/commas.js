// Comma markers: each position cycles none → required → optional → none.
// The page shows the stored state; this module keeps it, mirrors it into the preview
// and hands the answer {"commas", "optional"} to the core.
import { registerNumberKeys } from "./numbers.js";

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const widget = document.getElementById("commas-widget");
  const slots = [...widget.querySelectorAll("button.comma-slot")];
  const marks = [...widget.querySelectorAll(".comma-mark")];
  const NEXT = { none: "required", required: "optional", optional: "none" };
  const text = JSON.parse(document.getElementById("commas-keys").textContent);

  // What the core hands over may be a change restored from this browser, newer than the page.
  const initial = window.Polis.initialAnswer() || {};
  const listed = (field, marker) => Array.isArray(initial[field]) && initial[field].includes(marker);
  const initialState = (marker) => {
    if (listed("commas", marker)) return "required";
    return listed("optional", marker) ? "optional" : "none";
  };
  const state = new Map(slots.map((slot) => [Number(slot.dataset.marker), initialState(Number(slot.dataset.marker))]));

  function positions(wanted) {
    return [...state].filter(([, value]) => value === wanted).map(([marker]) => marker).sort((a, b) => a - b);
  }

  function show() {
    for (const element of [...slots, ...marks]) {
      element.dataset.state = state.get(Number(element.dataset.marker));
    }
    for (const slot of slots) {
      const name = text.slot.position.replace("%(number)s", slot.dataset.marker).replace("%(state)s", text.slot[slot.dataset.state]);
      slot.setAttribute("aria-label", name);
    }
  }

  function set(marker, value) {
    if (!state.has(marker)) return;
    state.set(marker, value);
    show();
    // A Map holds one state per position, so no position can be in both lists.
    window.Polis.setAnswer({ commas: positions("required"), optional: positions("optional") });
  }

  const cycle = (marker) => set(marker, NEXT[state.get(marker)]);
  const toggleOptional = (marker) => set(marker, state.get(marker) === "optional" ? "none" : "optional");

  for (const slot of slots) {
    // Keep the focus where it was, so Enter still means "save and next" after a click.
    slot.addEventListener("mousedown", (event) => event.preventDefault());
    slot.addEventListener("click", () => cycle(Number(slot.dataset.marker)));
  }

  registerNumberKeys(() => slots.length, {
    label: text.cycle,
    shiftedLabel: text.optional,
    choose: (marker, shifted) => (shifted ? toggleOptional(marker) : cycle(marker)),
  });
  window.Polis.keys.register({
    code: "KeyN",
    label: text.none,
    run: () => {
      for (const marker of state.keys()) state.set(marker, "none");
      show();
      window.Polis.setAnswer({ commas: [], optional: [] });
      window.Polis.saveAndNext();
    },
  });
  show();
});
