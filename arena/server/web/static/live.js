// Live pages: the page's <main> names an event stream (data-live-source) and the mark of what
// it shows (data-live-mark). When the stream sends another mark, the page is fetched again and
// its <main> swapped in, so it updates without a reload. Without this script the page is the
// same, only still.
(function () {
  "use strict";
  var main = document.querySelector("main[data-live-source]");
  if (!main || !window.EventSource || !window.fetch) {
    return;
  }
  var fetching = false;
  var wanted = null;
  function latest() {
    // A running match's events: keep the newest in view.
    main.querySelectorAll(".live-events").forEach(function (list) {
      list.scrollTop = list.scrollHeight;
    });
  }
  latest();
  function refresh() {
    if (fetching) {
      return;
    }
    fetching = true;
    fetch(window.location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("status " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html")
          .querySelector("main[data-live-source]");
        if (fresh) {
          main.innerHTML = fresh.innerHTML;
          main.setAttribute("data-live-mark", fresh.getAttribute("data-live-mark"));
          latest();
        }
      })
      .catch(function () { /* the next change tries again */ })
      .then(function () {
        fetching = false;
        if (wanted !== null && wanted !== main.getAttribute("data-live-mark")) {
          refresh();
        }
      });
  }
  var source = new EventSource(main.getAttribute("data-live-source"));
  source.addEventListener("change", function (event) {
    wanted = event.data;
    if (wanted !== main.getAttribute("data-live-mark")) {
      refresh();
    }
  });
})();
