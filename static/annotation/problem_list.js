// A refused form's problems (templates/annotation/organizer/_problems.html) are where the reader
// is: the page opens at the list, its heading focused, so a refusal never looks like nothing
// happened. The files chosen in an upload form are kept for the form shown again with the
// problems: kept in the browser's IndexedDB while the form is sent (a page load forgets a file
// input's files), given back to the inputs of the same name, then forgotten.
"use strict";

(() => {
  const heading = document.getElementById("problem-list-heading");
  if (heading) {
    heading.scrollIntoView({ block: "start" });
    heading.focus({ preventScroll: true });
  }

  const forms = Array.from(document.querySelectorAll("form[enctype='multipart/form-data']"));
  if (!forms.length || !window.indexedDB) return;
  const keyOf = (index) => `${location.pathname}#${index}`;

  const opened = new Promise((resolve, reject) => {
    const request = indexedDB.open("polis-chosen-files", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("forms");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const inStore = (mode, act) => opened.then((database) => new Promise((resolve, reject) => {
    const transaction = database.transaction("forms", mode);
    const request = act(transaction.objectStore("forms"));
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error);
  }));

  forms.forEach((form, index) => {
    inStore("readwrite", (store) => {
      const kept = store.get(keyOf(index));
      kept.onsuccess = () => {
        if (kept.result && heading) {
          for (const [name, files] of Object.entries(kept.result)) {
            const input = form.querySelector(`input[type=file][name="${CSS.escape(name)}"]`);
            if (!input || !files.length) continue;
            const transfer = new DataTransfer();
            files.forEach((file) => transfer.items.add(file));
            input.files = transfer.files;
          }
        }
        store.delete(keyOf(index));
      };
      return kept;
    }).catch(() => {});

    form.addEventListener("submit", (event) => {
      if (event.defaultPrevented || form.dataset.filesKept) return;
      const chosen = {};
      for (const input of form.querySelectorAll("input[type=file]")) chosen[input.name] = Array.from(input.files);
      event.preventDefault();
      const send = () => {
        form.dataset.filesKept = "1";
        if (event.submitter && event.submitter.name) {  // form.submit() sends no button
          const pressed = document.createElement("input");
          Object.assign(pressed, { type: "hidden", name: event.submitter.name, value: event.submitter.value });
          form.append(pressed);
        }
        form.submit();
      };
      inStore("readwrite", (store) => store.put(chosen, keyOf(index))).then(send, send);
    });
  });
})();
