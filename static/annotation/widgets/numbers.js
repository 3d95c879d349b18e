// Choosing the n-th of count() things by typing n on the digit row (or the keypad).
// Up to 10 things: one digit each, 0 standing for 10. More than 10: the number's digits
// typed within TWO_DIGITS_MS of each other ("1", "2" = 12; "0", "5" = 5); a digit no
// longer number can start with acts at once, any other waits that long for a second one.
const TWO_DIGITS_MS = 700;

export function registerNumberKeys(count, { label, shiftedLabel, choose }) {
  // count: a function, as the number of things may change (words of a correction).
  let pending = null; // { number, shifted, timer } while a second digit may follow

  function finish() {
    const typed = pending;
    pending = null;
    clearTimeout(typed.timer);
    if (typed.number >= 1 && typed.number <= count()) choose(typed.number, typed.shifted);
  }

  function type(digit, shifted) {
    if (count() <= 10) {
      const number = digit === 0 ? 10 : digit;
      if (number <= count()) choose(number, shifted);
      return;
    }
    if (pending) {
      pending.number = pending.number * 10 + digit;
      finish();
      return;
    }
    pending = { number: digit, shifted, timer: null };
    if (digit * 10 > count()) finish();
    else pending.timer = setTimeout(finish, TWO_DIGITS_MS);
  }

  for (let digit = 0; digit <= 9; digit += 1) {
    for (const code of ["Digit" + digit, "Numpad" + digit]) {
      // One line in the key list stands for all the digits.
      const listed = code === "Digit1";
      Polis.keys.register({ code, shift: false, label: listed ? label : "", run: () => type(digit, false) });
      if (shiftedLabel) {
        Polis.keys.register({ code, shift: true, label: listed ? shiftedLabel : "", run: () => type(digit, true) });
      }
    }
  }
}
