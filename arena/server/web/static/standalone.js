// The self-contained replay: every frame of every view is in the page, and this script shows
// one at a time. Buttons and ArrowLeft / ArrowRight / Home / End step; the view buttons switch
// between the full view and each seat's. Without it, every frame is shown one after another.
(function () {
  "use strict";
  var root = document.documentElement;
  var stepper = document.querySelector("nav.stepper");
  if (!stepper) {
    return;
  }
  root.classList.add("js");
  var last = parseInt(stepper.getAttribute("data-last"), 10);
  var step = 0;
  var view = "full";
  function show() {
    document.querySelectorAll("[data-view]").forEach(function (box) {
      var here = box.getAttribute("data-view") === view;
      box.classList.toggle("current", here);
      box.querySelectorAll("[data-frame]").forEach(function (frame) {
        frame.classList.toggle("current", here &&
          parseInt(frame.getAttribute("data-frame"), 10) === step);
      });
    });
    document.querySelectorAll("[data-view-choice]").forEach(function (button) {
      if (button.getAttribute("data-view-choice") === view) {
        button.setAttribute("aria-current", "page");
      } else {
        button.removeAttribute("aria-current");
      }
    });
    stepper.setAttribute("data-step", String(step));
    stepper.querySelector("[data-step-number]").textContent = String(step);
    ["first", "prev"].forEach(function (name) {
      stepper.querySelector('[data-step-link="' + name + '"]').disabled = step === 0;
    });
    ["next", "last"].forEach(function (name) {
      stepper.querySelector('[data-step-link="' + name + '"]').disabled = step === last;
    });
  }
  var moves = {
    first: function () { return 0; },
    prev: function () { return Math.max(step - 1, 0); },
    next: function () { return Math.min(step + 1, last); },
    last: function () { return last; }
  };
  stepper.querySelectorAll("[data-step-link]").forEach(function (button) {
    button.addEventListener("click", function () {
      step = moves[button.getAttribute("data-step-link")]();
      show();
    });
  });
  document.querySelectorAll("[data-view-choice]").forEach(function (button) {
    button.addEventListener("click", function () {
      view = button.getAttribute("data-view-choice");
      show();
    });
  });
  var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var name = keys[event.key];
    if (name) {
      event.preventDefault();
      step = moves[name]();
      show();
    }
  });
  show();
})();
