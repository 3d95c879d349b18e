// A radiogroup of choice cards ([role=radio] with data-choice, data-codes, data-label):
// each card's keys (registered with the core, so the "?" overlay lists them), a click,
// or the arrow keys and Space of an ARIA radio group choose it. Shared by the widgets
// whose answer is one choice among a few (wsd, coreference, morphosyntax).
export function choiceGroup(group, { onChoose }) {
  const cards = [...group.querySelectorAll("[role=radio][data-choice]")];
  const cardFor = (value) => cards.find((card) => card.dataset.choice === value);
  let chosen = null;

  // Show `value` as chosen without making it the answer (the initial state).
  function show(value) {
    chosen = cardFor(value) ? value : null;
    for (const card of cards) card.setAttribute("aria-checked", String(card.dataset.choice === chosen));
    // Roving tab stop: the group is one Tab stop, on the chosen card or else the first.
    const stop = cardFor(chosen) || cards[0];
    for (const card of cards) card.tabIndex = card === stop ? 0 : -1;
  }

  function choose(value) {
    show(value);
    cardFor(value).focus();
    onChoose(value);
  }

  function focusStart() {
    (cardFor(chosen) || cards[0]).focus();
  }

  for (const card of cards) {
    card.addEventListener("click", () => choose(card.dataset.choice));
    for (const code of card.dataset.codes.split(" ")) {
      // The numeric keypad does what the digit row does; the overlay lists the digit row only.
      const label = code.startsWith("Numpad") ? undefined : card.dataset.label;
      Polis.keys.register({ code, label, run: () => choose(card.dataset.choice) });
    }
  }

  group.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const index = cards.indexOf(event.target);
    if (index < 0) return;
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (step) {
      event.preventDefault();
      choose(cards[(index + step + cards.length) % cards.length].dataset.choice);
    } else if (event.key === " ") {
      event.preventDefault();
      choose(event.target.dataset.choice);
    } else if (event.key === "Enter" && event.target.dataset.choice !== chosen) {
      // Enter on a focused card chooses it; on the chosen card it saves, as everywhere.
      event.preventDefault();
      choose(event.target.dataset.choice);
    }
  });

  return { show, choose, focusStart, current: () => chosen };
}
