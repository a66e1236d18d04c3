// A table in play: the board is fetched again whenever it changes (a long poll), an action is
// played with its button or its number key (1 to 9), and the clock counts down. Without this
// script the page still plays: each button posts its form and the page reloads.
(() => {
  "use strict";
  const root = document.querySelector("[data-play]");
  if (!root) return;
  const boardUrl = root.dataset.boardUrl;
  const actUrl = root.dataset.actUrl;
  const errorLine = root.querySelector("[data-play-error]");
  let ticking = null;

  const board = () => root.querySelector("[data-board]");
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function startClock() {
    clearInterval(ticking);
    const clock = root.querySelector("[data-clock]");
    if (!clock) return;
    const end = performance.now() + Number(clock.dataset.leftMs || 0);
    const show = () => {
      const left = Math.max(0, end - performance.now());
      clock.textContent = `${(left / 1000).toFixed(1)} s left`;
    };
    show();
    ticking = setInterval(show, 200);
  }

  function swap(html) {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    const fresh = holder.content.querySelector("[data-board]");
    if (!fresh) return;
    board().replaceWith(fresh);
    startClock();
  }

  async function follow() {
    while (!board().hasAttribute("data-over")) {
      try {
        const version = board().dataset.version;
        const response = await fetch(`${boardUrl}?after=${version}`, {cache: "no-store"});
        if (!response.ok) throw new Error(String(response.status));
        swap(await response.text());
      } catch (error) {
        await pause(2000);
      }
    }
    clearInterval(ticking);
  }

  async function play(button) {
    const buttons = root.querySelectorAll("[data-actions] button");
    buttons.forEach((each) => { each.disabled = true; });
    errorLine.textContent = "";
    try {
      const response = await fetch(actUrl, {
        method: "POST",
        headers: {Accept: "text/plain"},
        body: new URLSearchParams({action: button.value}),
      });
      if (!response.ok) {
        errorLine.textContent = await response.text();
        buttons.forEach((each) => { each.disabled = false; });
      }
    } catch (error) {
      errorLine.textContent = "the action could not be sent: try again";
      buttons.forEach((each) => { each.disabled = false; });
    }
  }

  root.addEventListener("submit", (event) => {
    if (!event.target.matches("[data-actions]")) return;
    event.preventDefault();
    if (event.submitter) play(event.submitter);
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !/^[1-9]$/.test(event.key)) return;
    const button = root.querySelector(`[data-actions] button[data-key="${event.key}"]`);
    if (!button || button.disabled) return;
    event.preventDefault();
    play(button);
  });

  startClock();
  follow();
})();
