// The page's live parts: server-sent events carry rendered HTML
// fragments (made by the server from tokenized data) that replace a
// section, or prepend an audit row.
(function () {
  var live = document.getElementById("live");
  var es = new EventSource("/ui/events" + location.search);
  es.onopen = function () { live.textContent = "live"; live.className = "live"; };
  es.onerror = function () { live.textContent = "reconnecting…"; live.className = "live off"; };
  ["runs", "approvals"].forEach(function (name) {
    es.addEventListener(name, function (e) {
      var el = document.getElementById(name);
      if (!el) { return; }
      // Runs the person opened stay open.
      var open = {};
      el.querySelectorAll("details[data-run]").forEach(function (d) { open[d.dataset.run] = d.open; });
      el.innerHTML = e.data;
      el.querySelectorAll("details[data-run]").forEach(function (d) {
        if (d.dataset.run in open) { d.open = open[d.dataset.run]; }
      });
    });
  });
  es.addEventListener("audit-row", function (e) {
    var body = document.getElementById("audit-rows");
    if (body) { body.insertAdjacentHTML("afterbegin", e.data); }
  });
})();
