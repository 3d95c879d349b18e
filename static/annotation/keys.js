// The key rules every page with keys follows (the item page, the adjudication page):
// nothing fires during IME composition, with Alt/AltGr held (AltGr types Polish letters) or
// Ctrl/Meta held (except registered Ctrl combinations), while a dialog is open, or while
// focus is in a text field (except keys registered with `inTextField`: Escape and Enter);
// Enter on a focused button or link only activates it; digits are read from `event.code`.
// A key spec: {code | key, shift, ctrl, label, run, inTextField, needs} (docs/architecture.md).
// A key that acts on something a page may not have (a previous item, a flag dialog) names it
// in `needs` (a CSS selector): while nothing on the page matches, the key is neither listed
// nor run, so each page lists only the keys that work there.
// Both pages also draw their key lists and refusal lists with it.
// A person may turn single-character keys off (the page's config says `singleKeys`): then
// each key that types a character (a letter, digit or sign, with or without Shift) acts only
// with Alt held, and is listed so (WCAG 2.1.4); Enter, Esc, arrows, F1 and Ctrl keys stay.
window.PolisKeys = (function () {
  "use strict";

  let singleKeys = true;
  const CHARACTER_CODES = /^(Key|Digit|Numpad\d)|^(Slash|Minus|Equal|Comma|Period|Semicolon|Quote|Backquote|Backslash|BracketLeft|BracketRight)$/;

  function typesCharacter(spec) {
    return !spec.ctrl && (spec.key ? spec.key.length === 1 : CHARACTER_CODES.test(spec.code));
  }

  const needsAlt = (spec) => !singleKeys && typesCharacter(spec);

  // The character a punctuation key types (on a Polish or US layout), as a person names it.
  const PUNCTUATION = {
    Slash: "/", Minus: "-", Equal: "=", Comma: ",", Period: ".", Semicolon: ";", Quote: "'",
    Backquote: "`", Backslash: "\\", BracketLeft: "[", BracketRight: "]",
  };

  function keyName(spec) {
    let name = spec.key || spec.code;
    if (spec.code) {
      name = PUNCTUATION[spec.code] || spec.code
        .replace(/^Key/, "")
        .replace(/^Digit/, "")
        .replace(/^Numpad/, "")
        .replace("ArrowLeft", "←")
        .replace("ArrowRight", "→")
        .replace("ArrowUp", "↑")
        .replace("ArrowDown", "↓")
        .replace("Escape", "Esc");
    }
    return (spec.ctrl ? "Ctrl+" : "") + (needsAlt(spec) ? "Alt+" : "") + (spec.shift ? "Shift+" : "") + name;
  }

  function offered(spec) {
    return !spec.needs || document.querySelector(spec.needs) !== null;
  }

  // One <li><kbd>key</kbd> label</li> per spec with a label that the page offers now.
  function listRows(specs) {
    return specs.filter((spec) => spec.label && offered(spec)).map((spec) => {
      const row = document.createElement("li");
      const kbd = document.createElement("kbd");
      kbd.textContent = keyName(spec);
      row.append(kbd, " ", spec.label);
      return row;
    });
  }

  function isTextField(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    const tag = element.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    return !["button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image"].includes(element.type);
  }

  function activates(element) {
    // Elements Enter already activates natively: handling Enter too would act twice.
    if (!element) return false;
    const tag = element.tagName;
    if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return true;
    return tag === "INPUT" && ["button", "submit", "reset", "checkbox", "radio", "image"].includes(element.type);
  }

  function matches(spec, event) {
    if (spec.code ? spec.code !== event.code : spec.key !== event.key) return false;
    if (Boolean(spec.ctrl) !== (event.ctrlKey || event.metaKey)) return false;
    if (spec.shift !== undefined && spec.shift !== event.shiftKey) return false;
    return true;
  }

  // Runs the spec among `specs()` (the keys in force now) that a key press names.
  // Text fields outside `area()` (the answer area in force now) never take keys, except Escape.
  function listen(specs, area, { single = true } = {}) {
    singleKeys = single;
    if (!singleKeys) {
      // The hints the templates print beside choices and buttons ("A", "1", "?") say Alt too,
      // also in what htmx swaps in later (the next item).
      markAltHints(document);
      document.addEventListener("htmx:afterSettle", (event) => markAltHints(event.target));
    }
    document.addEventListener("keydown", (event) => {
      if (event.isComposing || event.keyCode === 229) return; // IME at work
      // AltGr types Polish letters (on Windows it is Ctrl+Alt); a lone Alt is the modifier of
      // the character keys once single keys are off, and nothing otherwise.
      if (event.getModifierState("AltGraph") || event.altKey && (event.ctrlKey || singleKeys)) return;
      if (event.defaultPrevented || event.repeat && event.key === "Enter") return;
      if (document.querySelector("dialog[open]")) return; // a dialog has the keys (Escape closes it)
      // A field in a dialog just closed keeps the focus until the browser moves it away:
      // a key pressed meanwhile acts as on the page.
      const target = event.target.closest && event.target.closest("dialog:not([open])") ? document.body : event.target;
      const inText = isTextField(target);
      const answerArea = area();
      if (inText && !(answerArea && answerArea.contains(target)) && event.key !== "Escape") return;
      if (event.key === "Enter" && !event.ctrlKey && !event.metaKey && activates(target)) return;
      // A spec naming its Shift state wins over one that ignores Shift.
      const candidates = specs().filter((spec) => matches(spec, event) && offered(spec) && event.altKey === needsAlt(spec));
      const spec = candidates.find((s) => s.shift !== undefined) || candidates[0];
      if (!spec) return;
      if (inText && !spec.inTextField) return;
      // Typing always wins: in a text field only Escape, Enter, F1 and Ctrl combinations act.
      if (inText && !["Escape", "Enter", "F1"].includes(event.key) && !spec.ctrl) return;
      event.preventDefault();
      spec.run(event);
    });
  }

  // A printed hint of one character key, with or without Shift (not "Enter", "F1", "Alt+P").
  const CHARACTER_HINT = /^(Shift\+)?[^\s+]$/u;

  function markAltHints(root) {
    for (const hint of root.querySelectorAll("kbd")) {
      if (CHARACTER_HINT.test(hint.textContent.trim())) hint.textContent = `Alt+${hint.textContent.trim()}`;
    }
  }

  // The I key: back to the widget's answer field (the first visible [data-answer-field] in `area`).
  function focusAnswerField(area) {
    const field = area && [...area.querySelectorAll("[data-answer-field]")].find((element) => element.checkVisibility());
    if (field) field.focus();
  }

  // The refusals a page shows under its answer: one <ul> of the messages (none: nothing).
  function messageList(messages) {
    if (!messages || messages.length === 0) return [];
    const list = document.createElement("ul");
    for (const message of messages) {
      const entry = document.createElement("li");
      entry.textContent = message;
      list.append(entry);
    }
    return [list];
  }

  // A status line (#save-status): its live region stays in place and only its message
  // changes, as the server's out-of-band replies change it, so that screen readers announce it.
  function statusMessage(message, kind) {
    const line = document.createElement("span");
    line.textContent = message;
    line.dataset.kind = kind || "";
    return line;
  }

  return { keyName, listRows, isTextField, listen, focusAnswerField, messageList, statusMessage };
})();
