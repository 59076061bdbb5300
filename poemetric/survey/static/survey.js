// Saves each answer as soon as it is given (radio: on change; comments: shortly after typing,
// and at once when the page is left), so closing the page loses nothing. Without JavaScript the
// "Save" buttons do the same. Each change also sets the answer's edit time (hidden field
// "edited:NAME"), sent with every save of it: the server keeps the answer edited last, so a tab
// drawn before an answer was changed in another cannot store its older answer over it. The
// hidden field "imported" (the newest imported answer the page shows) goes with every save too:
// an answer imported after the page was drawn is not stored over.
(function () {
  "use strict";
  var form = document.getElementById("survey-form");
  if (!form) return;
  var url = form.getAttribute("data-save-url");
  var csrf = form.elements.namedItem("csrf").value;
  var imported = form.elements.namedItem("imported").value;
  var timers = {};
  // This script's own address: a request that shows whether the server answers (relative to the
  // page, so that it works under a path prefix as well).
  var probe = document.currentScript ? document.currentScript.src : "survey.js";

  function status(element, text, failed) {
    var box = element.closest("fieldset").querySelector(".saved");
    if (!box) return;
    box.textContent = text;
    box.classList.toggle("failed", !!failed);
  }

  // The poem list marks the open poem done as soon as a save completes it, as the server drew
  // it (page_list.html): the header's count changes then, and the list must not disagree.
  function markDone() {
    var link = document.querySelector("nav.pages a[aria-current='page']");
    if (!link || link.classList.contains("done")) return;
    link.classList.remove("open");
    link.classList.add("done");
    var tick = document.createElement("span");
    tick.className = "tick";
    tick.setAttribute("aria-hidden", "true");
    tick.textContent = "\u2713";
    var hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = " answered";
    link.appendChild(tick);
    link.appendChild(hidden);
  }

  // A comment over the limit is not sent (the server refuses it whole, never cut): its counter
  // says by how much, and it stays in the box to be shortened. Counted in characters as Python
  // counts them (code points: an emoji is one), line breaks one each.
  function length(element) {
    return Array.from(element.value).length;
  }
  function excess(element) {
    var counter = document.getElementById("count-" + element.name);
    var max = counter ? parseInt(counter.getAttribute("data-max"), 10) : 0;
    return max && element.tagName === "TEXTAREA" ? Math.max(length(element) - max, 0) : 0;
  }
  // A comment stored over the limit before there was one (data-stored-long), left as drawn: it
  // is kept as stored, so it is neither sent nor in the way of saving or leaving the page.
  function kept(element) {
    return element.hasAttribute("data-stored-long") && element.value === element.defaultValue;
  }
  function over(element) {
    return kept(element) ? 0 : excess(element);
  }
  function count(element) {
    var counter = document.getElementById("count-" + element.name);
    if (!counter) return;
    var max = parseInt(counter.getAttribute("data-max"), 10), n = length(element), extra = excess(element);
    counter.textContent = extra
      ? n.toLocaleString("en") + " characters: " + extra.toLocaleString("en") + " over the limit of " +
        max.toLocaleString("en") + (kept(element)
          ? ". Kept as stored while unchanged; shorten it to change it."
          : ". Shorten it to save it (it is not saved until then).")
      : n.toLocaleString("en") + " of " + max.toLocaleString("en") + " characters";
    counter.classList.toggle("failed", extra > 0);
  }
  Array.prototype.forEach.call(form.querySelectorAll("textarea"), count);

  function edited(name) {
    return form.elements.namedItem("edited:" + name);
  }

  // The rater's clock, but always after the stored time the page was drawn with and after the
  // previous change here: this change is newer than both, whatever the clocks of two devices say.
  function stamp(element) {
    var box = edited(element.name);
    if (box) box.value = String(Math.max(Date.now(), (parseInt(box.value, 10) || 0) + 1));
  }

  // The element an answer is read from: a comment's box, or the radio button checked.
  function field(name) {
    var element = form.elements.namedItem(name);
    if (element && element.tagName === "TEXTAREA") return element;
    return form.querySelector("input[type=radio][name=\"" + name + "\"]:checked");
  }

  // Answers whose last save did not reach the server (the connection lost, the server down):
  // sent again on the next save that does, on the browser's "online" event, every few seconds
  // (2 s, doubling up to a minute) and before a poem-number link is followed. A retry is not
  // sent while the answer's latest save is in flight (`inflight` holds only the latest: quick
  // changes can have several); a save whose answer changed since reports nothing, success or
  // failure. Sending one again with the same edit time is harmless (a tie is not older,
  // edits.py).
  var unsaved = {};
  var inflight = {};
  var retryDelay = 0;
  var retryTimer = null;

  function retryLater() {
    if (retryTimer !== null) return;
    retryDelay = Math.min(Math.max(2000, retryDelay * 2), 60000);
    retryTimer = setTimeout(function () { retryTimer = null; retry(); }, retryDelay);
  }

  function retry() {
    Object.keys(unsaved).forEach(function (name) {
      var element = field(name);
      if (inflight[name] || timers[name]) return;
      if (!element) { delete unsaved[name]; return; }
      save(element);
    });
  }

  // Resolves once the server answered (saved, or refused for good) or could not be reached.
  function save(element, leaving) {
    var name = element.name;
    if (kept(element) && excess(element)) { // back to the stored text: nothing to send
      delete unsaved[name];
      status(element, "kept as stored", false);
      return Promise.resolve();
    }
    if (over(element)) {
      delete unsaved[name];
      status(element, "not saved: too long", true);
      return Promise.resolve();
    }
    var box = edited(name);
    var sent = box ? box.value : "";
    var body = new URLSearchParams();
    body.set("csrf", csrf);
    body.set("field", name);
    body.set("value", element.value);
    if (box) body.set("edited", sent);
    body.set("imported", imported);
    status(element, "saving…", false);
    // keepalive: the request outlives the page (a link followed, the tab closed).
    var request = fetch(url, { method: "POST", body: body, credentials: "same-origin", keepalive: !!leaving })
      .then(function (response) {
        if (response.status >= 500) throw new Error("server error");
        return response.json().then(function (data) { return { ok: response.ok, data: data }; });
      })
      .then(function (result) {
        retryDelay = 0;
        if (box && box.value !== sent) return; // changed again since: that save reports
        delete unsaved[name];
        if (!result.ok) { status(element, result.data.error || "not saved", true); return; }
        status(element, "saved", false);
        var bar = document.getElementById("progress-bar");
        var count = document.getElementById("progress-count");
        if (bar && count) {
          bar.value = result.data.completed;
          count.textContent = result.data.completed + " of " + result.data.total + " poems done";
        }
        if (result.data.page_complete) markDone();
      }, function () {
        // Changed again since: a newer save is in flight or saved, and it reports (this one
        // failing after it was saved said "not saved" and sent it again).
        if (box && box.value !== sent) return "failed";
        unsaved[name] = true;
        status(element, "not saved: check your connection (it is sent again when it is back)", true);
        retryLater();
        return "failed";
      })
      .then(function (outcome) {
        if (inflight[name] === request) delete inflight[name];
        if (outcome !== "failed") retry(); // the server answers: send what it missed
      });
    inflight[name] = request;
    return request;
  }

  window.addEventListener("online", retry);

  form.addEventListener("change", function (event) {
    var element = event.target;
    if (element.name && element.name !== "csrf" && element.type === "radio") {
      stamp(element);
      save(element);
    }
  });
  form.addEventListener("input", function (event) {
    var element = event.target;
    if (element.tagName !== "TEXTAREA") return;
    stamp(element);
    count(element);
    clearTimeout(timers[element.name]);
    timers[element.name] = setTimeout(function () { delete timers[element.name]; save(element); }, 700);
  });

  // Comments typed less than 0.7 s before the page goes: the form's own submit sends them;
  // leaving otherwise (the list of poems, closing the tab) saves them now.
  // Such a save races the page's reload: the page drawn again showed the comment before it
  // (the typing looked lost until the next visit). The tab keeps them (sessionStorage) and the
  // next drawing of this page puts back each one newer than the answer it shows.
  var keptKey = "survey-leaving:" + url;
  function pending(send) {
    var kept = [];
    Object.keys(timers).forEach(function (name) {
      clearTimeout(timers[name]);
      delete timers[name];
      var element = form.elements.namedItem(name);
      if (!send) return;
      kept.push({ name: name, value: element.value, edited: edited(name) ? edited(name).value : "" });
      save(element, true);
    });
    try { if (kept.length) sessionStorage.setItem(keptKey, JSON.stringify(kept)); } catch (e) { /* storage off */ }
  }
  try {
    var leftOver = JSON.parse(sessionStorage.getItem(keptKey) || "[]");
    sessionStorage.removeItem(keptKey);
    leftOver.forEach(function (entry) {
      var element = form.elements.namedItem(entry.name), box = edited(entry.name);
      if (!element || element.tagName !== "TEXTAREA" || !box || !(parseInt(entry.edited, 10) > (parseInt(box.value, 10) || 0))) return;
      element.value = entry.value;
      box.value = entry.edited;
      count(element);
      save(element);
    });
  } catch (e) { /* storage off, or not ours */ }
  // "Save and next" / "Previous poem" with the server out of reach (the connection lost, the
  // server stopped): the browser showed its own error page instead, and every answer not yet
  // saved was gone (the form is drawn again from the server). A button first asks the server
  // whether it answers; if not, the page stays as it is, with its answers, and says so.
  var notice = document.getElementById("submit-status");
  var reached = false;
  // A form larger than the server takes whole (data-max-body) with a comment over the limit
  // (a long paste): the server would keep only its beginning. The page stays, the comment
  // whole in its box, and says which to shorten.
  var maxBody = parseInt(form.getAttribute("data-max-body"), 10) || 0;
  function tooLarge() {
    if (!maxBody || new URLSearchParams(new FormData(form)).toString().length <= maxBody) return [];
    return Array.prototype.filter.call(form.querySelectorAll("textarea"), over);
  }
  form.addEventListener("submit", function (event) {
    var large = tooLarge();
    if (large.length && notice) {
      event.preventDefault();
      notice.textContent = "Not saved: your answer to " +
        large.map(function (element) { return questionOf(element.name); }).join(", ") +
        " is too long to send, so this page stays open. Shorten it, then press the button again.";
      return;
    }
    if (reached || !notice || !form.requestSubmit) { pending(false); return; }
    event.preventDefault();
    var submitter = event.submitter;
    notice.textContent = "";
    fetch(probe, { method: "HEAD", cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        // A reverse proxy answers for a survey server that stopped (502, 503, 504): as the
        // autosave does, a 5xx is the server not reached.
        if (response.status >= 500) throw new Error("server error");
        reached = true;
        form.requestSubmit(submitter && submitter.form === form ? submitter : null);
      })
      .catch(function () {
        notice.textContent = "Not saved: the survey server could not be reached. Your answers " +
          "are still on this page; check your connection and press the button again.";
      });
  });
  window.addEventListener("pagehide", function () {
    pending(true);
    Object.keys(unsaved).forEach(function (name) { // a last try, as the tab goes
      var element = field(name);
      if (element && !inflight[name]) save(element, true);
    });
  });

  // A poem-number link followed with answers not yet saved: this page, the only copy of them,
  // was gone (pagehide's last try fails as well while the server is out of reach). The link
  // first saves them all, then opens the poem; when one is still not saved it keeps the page
  // and says so.
  var pages = document.querySelector("nav.pages");
  var navNotice = document.getElementById("nav-status");
  function questionOf(name) {
    var number = document.querySelector("#q-" + name + " legend .number");
    return number ? "question " + number.textContent.replace(/\.$/, "") : name;
  }
  function settle() {
    Object.keys(timers).forEach(function (name) {
      clearTimeout(timers[name]);
      delete timers[name];
      save(form.elements.namedItem(name));
    });
    retry();
    function wait() {
      var open = Object.keys(inflight).map(function (name) { return inflight[name]; });
      return open.length ? Promise.all(open).then(wait) : Promise.resolve();
    }
    return wait();
  }
  if (pages) pages.addEventListener("click", function (event) {
    var link = event.target.closest("a[href]");
    if (!link || event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey ||
        event.shiftKey || event.altKey) return; // a new tab or window: this page stays
    var long = Array.prototype.filter.call(form.querySelectorAll("textarea"), over);
    if (long.length) { // not saved, and leaving would lose it
      event.preventDefault();
      if (navNotice) navNotice.textContent = "Not saved: your answer to " +
        long.map(function (element) { return questionOf(element.name); }).join(", ") +
        " is too long, so this page stays open. Shorten it, then open the poem again.";
      return;
    }
    if (!Object.keys(unsaved).length && !Object.keys(inflight).length && !Object.keys(timers).length) return;
    event.preventDefault();
    if (navNotice) navNotice.textContent = "Saving your answers…";
    settle().then(function () {
      var left = Object.keys(unsaved);
      if (!left.length) { window.location.assign(link.href); return; }
      if (navNotice) navNotice.textContent = "Not saved: your answer to " + left.map(questionOf).join(", ") +
        " could not be sent to the survey server, so this page stays open. Check your " +
        "connection (the answer is sent again once it is back), then open the poem again.";
    });
  });
})();
