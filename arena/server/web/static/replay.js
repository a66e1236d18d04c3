// Replay stepping from the keyboard: ArrowLeft / ArrowRight step, Home / End jump to the ends.
// The buttons are plain links, so the replay works without this script.
(function () {
  "use strict";
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
    var link = document.querySelector('a[data-step-link="' + name + '"]');
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
  if (window.location.hash === "#replay") {
    var next = document.querySelector('a[data-step-link="next"]') ||
      document.querySelector('a[data-step-link="prev"]');
    if (next) {
      next.focus({ preventScroll: true });
    }
  }
})();
