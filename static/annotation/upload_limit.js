// The upload pages: a file larger than the stated limit is refused here, before it is sent.
// Each file input carries data-max-bytes and the sentence to refuse with (data-too-large).
"use strict";

for (const input of document.querySelectorAll("input[type=file][data-max-bytes]")) {
  const check = () => {
    const limit = Number(input.dataset.maxBytes);
    const tooLarge = Array.from(input.files).some((file) => file.size > limit);
    input.setCustomValidity(tooLarge ? input.dataset.tooLarge : "");
    if (tooLarge) input.reportValidity();
  };
  input.addEventListener("change", check);
  input.form.addEventListener("submit", (event) => {
    check();
    if (!input.checkValidity()) event.preventDefault();
  });
}
