// Numerals: the written-out numeral typed in one field; the server checks its words'
// forms as one types (htmx on the field) and never blocks the save over them.

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const field = document.getElementById("numeral-answer");

  field.addEventListener("input", () => Polis.setAnswer({ answer: field.value }));
  field.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    Polis.saveAndNext();
  });

  const initial = Polis.initialAnswer();
  if (typeof initial?.answer === "string" && initial.answer !== field.value) {
    field.value = initial.answer;
    htmx.trigger(field, "input");
  }
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
});
