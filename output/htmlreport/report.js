// acprun report: filters, search and order of the scenarios, and the
// method filter of each transcript. It only reads the page and shows or
// hides what is there: nothing is built from text, nothing is loaded.
(function () {
  "use strict";
  var main = document.getElementById("scenarios");
  var sections = Array.prototype.slice.call(main.querySelectorAll("section.scenario"));
  var byId = function (id) { return document.getElementById(id); };
  var controls = ["f-status", "f-tag", "f-agent", "f-search"].map(byId);
  var order = byId("f-order");
  var shown = byId("shown");
  var failuresFirst = sections.slice();
  var runOrder = sections.slice().sort(function (a, b) {
    return Number(a.dataset.order) - Number(b.dataset.order);
  });

  function value(el) { return el ? el.value : ""; }

  // A section's text, lower-cased once: transcripts make it long.
  var texts = new Map();
  function text(s) {
    if (!texts.has(s)) { texts.set(s, s.textContent.toLowerCase()); }
    return texts.get(s);
  }

  function apply() {
    var status = value(controls[0]), tag = value(controls[1]), agent = value(controls[2]);
    var q = value(controls[3]).trim().toLowerCase();
    // A rerun card is a try that ran again, not a scenario: the two are
    // counted apart, as the summary counts them.
    var n = 0, all = 0, reruns = 0, rerunsShown = 0;
    sections.forEach(function (s) {
      var ok = (!status || s.dataset.status === status) &&
        (!tag || s.dataset.tags.split("\n").indexOf(tag) >= 0) &&
        (!agent || s.dataset.agent === agent) &&
        (!q || text(s).indexOf(q) >= 0);
      s.hidden = !ok;
      if (s.dataset.status === "rerun") {
        reruns++;
        if (ok) { rerunsShown++; }
      } else {
        all++;
        if (ok) { n++; }
      }
    });
    shown.textContent = n + " of " + all + (all === 1 ? " scenario" : " scenarios") + " shown" +
      (reruns ? ", " + rerunsShown + " of " + reruns + (reruns === 1 ? " rerun" : " reruns") : "");
  }

  function reorder() {
    var list = value(order) === "run" ? runOrder : failuresFirst;
    list.forEach(function (s) { main.appendChild(s); });
  }

  controls.forEach(function (el) {
    if (el) { el.addEventListener("input", apply); }
  });
  order.addEventListener("change", reorder);

  Array.prototype.forEach.call(document.querySelectorAll("details.transcript"), function (tr) {
    var method = tr.querySelector("select.t-method"), dir = tr.querySelector("select.t-dir");
    if (!method) { return; }
    var rows = Array.prototype.slice.call(tr.querySelectorAll("tr.m"));
    function filter() {
      rows.forEach(function (r) {
        r.hidden = (method.value !== "" && r.dataset.method !== method.value) ||
          (dir.value !== "" && r.dataset.dir !== dir.value);
      });
    }
    method.addEventListener("change", filter);
    dir.addEventListener("change", filter);
  });

  // Open the scenario a link points at.
  if (location.hash) {
    var target = document.getElementById(location.hash.slice(1));
    if (target) { target.querySelectorAll("details.turn").forEach(function (d) { d.open = true; }); }
  }

  apply();
  document.body.dataset.rendered = "1";
})();
