// Comma markers: each position cycles none → required → optional → none.
// The page shows the stored state; this module keeps it, mirrors it into the preview
// and hands the answer {"commas", "optional"} to the core.

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const widget = document.getElementById("commas-widget");
  const slots = [...widget.querySelectorAll("button.comma-slot")];
  const marks = [...widget.querySelectorAll(".comma-mark")];
  const NEXT = { none: "required", required: "optional", optional: "none" };

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
    for (const slot of slots) slot.setAttribute("aria-pressed", String(slot.dataset.state !== "none"));
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

  const text = JSON.parse(document.getElementById("commas-keys").textContent);
  for (let marker = 1; marker <= Math.min(10, slots.length); marker += 1) {
    const code = "Digit" + (marker % 10);
    const first = marker === 1; // one line in the key list stands for all ten digits
    window.Polis.keys.register({ code, shift: false, label: first ? text.cycle : "", run: () => cycle(marker) });
    window.Polis.keys.register({
      code, shift: true, label: first ? text.optional : "", run: () => toggleOptional(marker),
    });
  }
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
