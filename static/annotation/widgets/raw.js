// Raw JSON answer form: every parsable object typed here becomes the current answer.

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const field = document.getElementById("raw-answer");

  function readAnswer() {
    let value;
    try {
      value = JSON.parse(field.value);
    } catch {
      Polis.showProblems([field.dataset.invalidJson]);
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      Polis.showProblems([field.dataset.notObject]);
      return;
    }
    Polis.showProblems([]);
    Polis.setAnswer(value);
  }

  const initial = Polis.initialAnswer();
  if (initial !== null) {
    field.value = JSON.stringify(initial, null, 2);
  }
  field.addEventListener("input", readAnswer);
});
