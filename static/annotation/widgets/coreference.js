// Coreference: one of the candidate mentions A–D is the answer. A candidate in the list and
// its mention in the text light up together on hover or focus; a click on either chooses it.
import { choiceGroup } from "./choice.js";

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const root = document.querySelector(".coreference-widget");
  const mentionsOf = (letter) => root.querySelectorAll(`.coref-context [data-choice="${letter}"]`);
  const cardOf = (letter) => root.querySelector(`.coref-candidate[data-choice="${letter}"]`);

  function markChosen(letter) {
    for (const mention of root.querySelectorAll(".coref-context [data-choice]")) {
      mention.classList.toggle("is-chosen", mention.dataset.choice === letter);
    }
  }

  function link(letter, on) {
    for (const mention of mentionsOf(letter)) mention.classList.toggle("is-linked", on);
    cardOf(letter)?.classList.toggle("is-linked", on);
  }

  const candidates = choiceGroup(root.querySelector(".coref-candidates [role=radiogroup]"), {
    onChoose: (letter) => {
      markChosen(letter);
      Polis.setAnswer({ answer: letter });
    },
  });

  for (const element of root.querySelectorAll("[data-choice]")) {
    const letter = element.dataset.choice;
    element.addEventListener("mouseenter", () => link(letter, true));
    element.addEventListener("mouseleave", () => link(letter, false));
    if (element.matches(".coref-candidate")) {
      element.addEventListener("focus", () => link(letter, true));
      element.addEventListener("blur", () => link(letter, false));
    } else {
      element.addEventListener("click", () => candidates.choose(letter));
    }
  }

  candidates.show(Polis.initialAnswer()?.answer);
  markChosen(candidates.current());
  candidates.focusStart();
});
