// A routed item stays reserved for the annotator while its page is used: after a key press, a
// click or an input, the page posts intent=renew to the item (a quarter of the reservation's
// time after the last renewal at most), so an annotator who thinks long keeps the item and one
// who left lets it go. The form #reservation is on the item page only while the reservation
// is open; save & next swaps in the next item's, so it is looked up at every tick.
(() => {
  let used = false;
  let renewed = Date.now();
  for (const type of ["keydown", "pointerdown", "input"]) {
    document.addEventListener(type, () => { used = true; }, true);
  }
  setInterval(() => {
    const form = document.getElementById("reservation");
    if (!form || !used) return;
    if (Date.now() - renewed < Number(form.dataset.minutes || 20) * 15000) return;
    used = false;
    renewed = Date.now();
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" }).catch(() => {});
  }, 30000);
})();
