// Word sense: one of the candidate cards A–D is the answer.
import { choiceGroup } from "./choice.js";

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const cards = choiceGroup(document.querySelector(".wsd-widget [role=radiogroup]"), {
    onChoose: (letter) => Polis.setAnswer({ answer: letter }),
  });
  cards.show(Polis.initialAnswer()?.answer);
  cards.focusStart();
});
