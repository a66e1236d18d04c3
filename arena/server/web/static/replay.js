// The replay steps on the client. The page holds the step asked for (its buttons are plain
// links, so it works without this script); the script fetches every step of the deal once
// (data-frames-url) and then shows them itself: ArrowLeft / ArrowRight step, Home / End jump to
// the ends, and the buttons and the "Jump to" links do the same without a request. Every key
// press moves the step at once, even before the steps have arrived, so none is lost.
(function () {
  "use strict";
  var replay = document.querySelector("section.replay[data-frames-url]");
  if (!replay) {
    return;
  }
  var box = replay.querySelector("[data-replay-step]");
  var last = parseInt(replay.getAttribute("data-last"), 10);
  var step = parseInt(replay.getAttribute("data-step"), 10);
  var shown = step;
  var frames = null;
  var failed = false;
  function show() {
    if (frames === null || shown === step || !frames[step]) {
      return;
    }
    box.innerHTML = frames[step];
    shown = step;
    var url = new URL(window.location.href);
    url.searchParams.set("step", String(step));
    window.history.replaceState(null, "", url.pathname + url.search + "#replay");
    replay.querySelectorAll(".jumps a[aria-current]").forEach(function (link) {
      link.removeAttribute("aria-current");
    });
  }
  function go(to) {
    step = Math.max(0, Math.min(last, to));
    replay.setAttribute("data-step", String(step));
    show();
  }
  function stepOf(href) {
    var url = new URL(href, window.location.href);
    var here = new URL(window.location.href);
    if (url.pathname !== here.pathname ||
        url.searchParams.get("view") !== (here.searchParams.get("view") || "full") ||
        url.searchParams.get("deal") !== (here.searchParams.get("deal") || "0")) {
      return null;
    }
    var to = parseInt(url.searchParams.get("step"), 10);
    return isNaN(to) ? null : to;
  }
  fetch(replay.getAttribute("data-frames-url"), { credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) {
        throw new Error("status " + response.status);
      }
      return response.text();
    })
    .then(function (html) {
      var parsed = new DOMParser().parseFromString(html, "text/html");
      frames = [];
      parsed.querySelectorAll("template[data-frame]").forEach(function (template) {
        frames[parseInt(template.getAttribute("data-frame"), 10)] = template.innerHTML;
      });
      replay.setAttribute("data-steps-ready", "true");
      show();
    })
    .catch(function () {
      failed = true;  // the links and keys still work, one request a step
    });
  var moves = {
    first: function () { return 0; },
    prev: function () { return step - 1; },
    next: function () { return step + 1; },
    last: function () { return last; }
  };
  var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
      return;
    }
    var name = keys[event.key];
    if (!name) {
      return;
    }
    event.preventDefault();
    go(moves[name]());  // before the steps arrive: remembered, and shown when they do
    if (failed) {
      var url = new URL(window.location.href);
      url.searchParams.set("step", String(step));
      window.location.assign(url.pathname + url.search + "#replay");
    }
  });
  replay.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href]") : null;
    if (!link || frames === null || event.button !== 0 || event.ctrlKey || event.metaKey ||
        event.shiftKey || event.altKey) {
      return;
    }
    var to = stepOf(link.getAttribute("href"));
    if (to === null) {
      return;
    }
    event.preventDefault();
    go(to);
  });
  if (window.location.hash === "#replay") {
    var next = replay.querySelector('a[data-step-link="next"]') ||
      replay.querySelector('a[data-step-link="prev"]');
    if (next) {
      next.focus({ preventScroll: true });
    }
  }
})();
