// The accounts page (a one-time password link is shown only once) and a study's page (its entry
// link for the panel): each link has a button that copies it (the status beside it says whether
// it was copied).
"use strict";

for (const button of document.querySelectorAll("button.copy-link")) {
  button.addEventListener("click", async () => {
    const code = button.parentElement.querySelector("code.password-link");
    const link = code.textContent.trim();
    const status = button.nextElementSibling;
    try {
      await navigator.clipboard.writeText(link);
      status.textContent = status.dataset.copied;
    } catch {
      status.textContent = status.dataset.notCopied;
      window.getSelection().selectAllChildren(code);
    }
  });
}
