/* halo-git review site: filter the rows of the agents index as you type.
   A row stays when its text contains every word typed (case-insensitive). */
(function () {
  function setup() {
    var box = document.querySelector("input.halo-filter");
    if (!box) return;
    var table = document.querySelector("article table");
    var count = document.querySelector(".halo-filter-count");
    if (!table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
    function apply() {
      var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var keep = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
        rows[i].hidden = !keep;
        if (keep) shown++;
      }
      if (count) count.textContent = words.length ? shown + " of " + rows.length + " agents" : "";
    }
    box.addEventListener("input", apply);
    var q = new URLSearchParams(window.location.search).get("filter");  // ?q= is the theme's search
    if (q) { box.value = q; }
    apply();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
