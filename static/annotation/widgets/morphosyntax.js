// Morphosyntax: POPRAWNE (P), or NIEPOPRAWNE (N) with a correction typed in the editor.
// The word-level diff under the editor is rendered by the server (htmx on the textarea).
import { choiceGroup } from "./choice.js";

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const root = document.querySelector(".morphosyntax-widget");
  // The two labels, as the server wrote them on the cards (correct first).
  const [CORRECT, INCORRECT] = [...root.querySelectorAll(".morph-verdicts [data-choice]")].map((card) => card.dataset.choice);
  const editorBox = root.querySelector(".morph-editor");
  const editor = document.getElementById("morph-correction");
  const restoreButton = root.querySelector(".morph-restore");

  function currentAnswer(verdict) {
    // POPRAWNE always stores an empty correction, whatever the editor still holds.
    return verdict === INCORRECT
      ? { answer: INCORRECT, corrected_sentence: editor.value }
      : { answer: CORRECT, corrected_sentence: "" };
  }

  function focusEditor() {
    editor.focus();
    editor.setSelectionRange(editor.value.length, editor.value.length);
  }

  const verdicts = choiceGroup(root.querySelector(".morph-verdicts"), {
    onChoose: (verdict) => {
      editorBox.hidden = verdict !== INCORRECT;
      Polis.setAnswer(currentAnswer(verdict));
      if (verdict === INCORRECT) focusEditor();
    },
  });

  function restore() {
    if (verdicts.current() !== INCORRECT) return;
    editor.value = editor.dataset.original;
    // The same path as typing: the answer and the diff follow.
    editor.dispatchEvent(new Event("input", { bubbles: true }));
    focusEditor();
  }

  editor.addEventListener("input", () => {
    if (verdicts.current() === INCORRECT) Polis.setAnswer(currentAnswer(INCORRECT));
  });
  editor.addEventListener("keydown", (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter") {
      // One sentence, no line breaks: Enter saves and moves on, as everywhere on the page.
      event.preventDefault();
      Polis.saveAndNext();
    } else if (event.key === "Escape") {
      // Back to the verdicts, so P, N and R are keys again.
      verdicts.focusStart();
    }
  });
  restoreButton.addEventListener("click", restore);
  Polis.keys.register({ code: restoreButton.dataset.codes, label: restoreButton.dataset.label, run: restore });

  const initial = Polis.initialAnswer();
  verdicts.show(initial?.answer);
  editorBox.hidden = verdicts.current() !== INCORRECT;
  if (verdicts.current() === INCORRECT) {
    if (typeof initial.corrected_sentence === "string" && initial.corrected_sentence !== editor.value) {
      editor.value = initial.corrected_sentence || editor.dataset.original;
      htmx.trigger(editor, "input");
    }
    focusEditor();
  } else {
    verdicts.focusStart();
  }
});
