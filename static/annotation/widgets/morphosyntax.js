// Morphosyntax: POPRAWNE (P), or NIEPOPRAWNE (N) with a correction.
// The sentence is shown as numbered words: typing a word's number (or clicking it, or
// moving to it with ← → and pressing Enter) opens it for replacement with its text
// selected; Enter puts it back, Esc leaves it as it was. The whole sentence can also be
// edited freely in the editor below (I). The word-level diff under the editor is
// rendered by the server (htmx on the editor).
import { choiceGroup } from "./choice.js";
import { registerNumberKeys } from "./numbers.js";

// A word as the diff counts one (\w+ there): punctuation between words is not numbered.
const WORD = /[\p{L}\p{N}_]+/gu;

// Set up anew for every item on the page (the first, and each one save & next swaps in).
Polis.onItem(() => {
  const root = document.querySelector(".morphosyntax-widget");
  // The two labels, as the server wrote them on the cards (correct first).
  const [CORRECT, INCORRECT] = [...root.querySelectorAll(".morph-verdicts [data-choice]")].map((card) => card.dataset.choice);
  const sentenceBox = root.querySelector(".morph-sentence");
  const editorBox = root.querySelector(".morph-editor");
  const editor = document.getElementById("morph-correction");
  const restoreButton = root.querySelector(".morph-restore");
  const original = editor.dataset.original;

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
      showWords();
      if (verdict === INCORRECT) sentenceBox.focus();
    },
  });

  // ---- the numbered words: of the correction once NIEPOPRAWNE, else of the sentence ----
  let words = []; // { start, end, text } in the shown text
  let opened = null; // { index, input } while a word is being replaced
  let lastWord = 0; // where ← → start from when the sentence itself has the focus

  function showWords() {
    opened = null;
    const shown = verdicts.current() === INCORRECT ? editor.value : original;
    words = [...shown.matchAll(WORD)].map((match) => ({
      start: match.index, end: match.index + match[0].length, text: match[0],
    }));
    const pieces = [];
    let at = 0;
    words.forEach((word, index) => {
      pieces.push(shown.slice(at, word.start));
      const button = document.createElement("button");
      button.type = "button";
      button.className = "morph-word";
      button.tabIndex = -1; // the sentence is one Tab stop; ← → move between its words
      button.dataset.index = String(index);
      const number = document.createElement("sup");
      number.className = "morph-word-number";
      number.textContent = String(index + 1);
      number.setAttribute("aria-hidden", "true");
      button.append(number, word.text);
      // Read as "Spółka, 1", never "1Spółka": the number (a superscript) apart from the word.
      button.setAttribute("aria-label", `${word.text}, ${index + 1}`);
      pieces.push(button);
      at = word.end;
    });
    pieces.push(shown.slice(at));
    sentenceBox.replaceChildren(...pieces);
  }

  function wordButton(index) {
    return sentenceBox.querySelector(`.morph-word[data-index="${index}"]`);
  }

  function openWord(index) {
    if (index < 0 || index >= words.length) return;
    if (verdicts.current() !== INCORRECT) {
      // Correcting a word is answering NIEPOPRAWNE; the numbers were those of the sentence.
      editor.value = original;
      verdicts.show(INCORRECT);
      editorBox.hidden = false;
      editor.dispatchEvent(new Event("input", { bubbles: true }));
    }
    const button = wordButton(index);
    const input = document.createElement("input");
    input.type = "text";
    input.className = "morph-word-input";
    input.value = words[index].text;
    input.size = Math.max(words[index].text.length + 2, 4);
    input.lang = "pl";
    input.spellcheck = false;
    input.autocomplete = "off";
    input.setAttribute("aria-label", sentenceBox.dataset.wordLabel.replace("%(number)s", String(index + 1)));
    opened = { index, input };
    lastWord = index;
    button.replaceWith(input);
    input.focus();
    input.select();
    input.addEventListener("keydown", (event) => {
      if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "Enter") {
        event.preventDefault(); // puts the word back; the next Enter saves
        putBack(input.value);
      } else if (event.key === "Escape") {
        event.preventDefault();
        showWords();
        sentenceBox.focus();
      }
    });
    input.addEventListener("blur", () => {
      if (opened && opened.input === input) putBack(input.value);
    });
  }

  function putBack(replacement) {
    const word = words[opened.index];
    let before = editor.value.slice(0, word.start);
    let after = editor.value.slice(word.end);
    const text = replacement.trim();
    if (text === "") {
      // An emptied word is removed with the space before it (after it, at the start).
      if (/\s$/.test(before)) before = before.replace(/\s+$/, "");
      else after = after.replace(/^\s+/, "");
    }
    opened = null;
    editor.value = before + text + after;
    // The same path as typing: the answer, the diff and the numbered words follow.
    editor.dispatchEvent(new Event("input", { bubbles: true }));
    sentenceBox.focus();
  }

  sentenceBox.addEventListener("click", (event) => {
    const button = event.target.closest(".morph-word");
    if (button) openWord(Number(button.dataset.index));
  });
  sentenceBox.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step || opened || words.length === 0) return;
    event.preventDefault();
    const from = event.target.classList.contains("morph-word") ? Number(event.target.dataset.index) : lastWord - step;
    lastWord = Math.min(Math.max(from + step, 0), words.length - 1);
    wordButton(lastWord).focus();
  });

  registerNumberKeys(() => words.length, {
    label: sentenceBox.dataset.keyLabel,
    choose: (number) => openWord(number - 1),
  });

  // ---- free editing of the whole sentence ----
  function restore() {
    if (verdicts.current() !== INCORRECT) return;
    editor.value = original;
    editor.dispatchEvent(new Event("input", { bubbles: true }));
    focusEditor();
  }

  editor.addEventListener("input", () => {
    if (verdicts.current() !== INCORRECT) return;
    Polis.setAnswer(currentAnswer(INCORRECT));
    showWords();
  });
  editor.addEventListener("keydown", (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter") {
      // One sentence, no line breaks: Enter saves and moves on, as everywhere on the page.
      event.preventDefault();
      Polis.saveAndNext();
    } else if (event.key === "Escape") {
      // Back to the numbered words, so digits, P, N and R are keys again.
      event.preventDefault();
      sentenceBox.focus();
    }
  });
  restoreButton.addEventListener("click", restore);
  Polis.keys.register({ code: restoreButton.dataset.codes, label: restoreButton.dataset.label, run: restore });

  const initial = Polis.initialAnswer();
  verdicts.show(initial?.answer);
  editorBox.hidden = verdicts.current() !== INCORRECT;
  if (verdicts.current() === INCORRECT) {
    if (typeof initial.corrected_sentence === "string" && initial.corrected_sentence !== editor.value) {
      editor.value = initial.corrected_sentence || original;
      htmx.trigger(editor, "input");
    }
    showWords();
    sentenceBox.focus();
  } else {
    showWords();
    verdicts.focusStart();
  }
});
