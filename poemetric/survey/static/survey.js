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

  function status(element, text, failed) {
    var box = element.closest("fieldset").querySelector(".saved");
    if (!box) return;
    box.textContent = text;
    box.classList.toggle("failed", !!failed);
  }

  function edited(name) {
    return form.elements.namedItem("edited:" + name);
  }

  // The rater's clock, but always after the stored time the page was drawn with and after the
  // previous change here: this change is newer than both, whatever the clocks of two devices say.
  function stamp(element) {
    var box = edited(element.name);
    if (box) box.value = String(Math.max(Date.now(), (parseInt(box.value, 10) || 0) + 1));
  }

  function save(element, leaving) {
    var box = edited(element.name);
    var sent = box ? box.value : "";
    var body = new URLSearchParams();
    body.set("csrf", csrf);
    body.set("field", element.name);
    body.set("value", element.value);
    if (box) body.set("edited", sent);
    body.set("imported", imported);
    status(element, "saving…", false);
    // keepalive: the request outlives the page (a link followed, the tab closed).
    fetch(url, { method: "POST", body: body, credentials: "same-origin", keepalive: !!leaving })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; });
      })
      .then(function (result) {
        if (box && box.value !== sent) return; // changed again since: that save reports
        if (!result.ok) { status(element, result.data.error || "not saved", true); return; }
        status(element, "saved", false);
        var bar = document.getElementById("progress-bar");
        var count = document.getElementById("progress-count");
        if (bar && count) {
          bar.value = result.data.completed;
          count.textContent = result.data.completed + " of " + result.data.total + " poems done";
        }
      })
      .catch(function () { status(element, "not saved: check your connection", true); });
  }

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
      if (!element || !box || !(parseInt(entry.edited, 10) > (parseInt(box.value, 10) || 0))) return;
      element.value = entry.value;
      box.value = entry.edited;
      save(element);
    });
  } catch (e) { /* storage off, or not ours */ }
  // "Save and next" / "Previous poem" with the server out of reach (the connection lost, the
  // server stopped): the browser showed its own error page instead, and every answer not yet
  // saved was gone (the form is drawn again from the server). A button first asks the server
  // whether it answers; if not, the page stays as it is, with its answers, and says so.
  var notice = document.getElementById("submit-status");
  var reached = false;
  form.addEventListener("submit", function (event) {
    if (reached || !notice || !form.requestSubmit) { pending(false); return; }
    event.preventDefault();
    var submitter = event.submitter;
    notice.textContent = "";
    fetch("/static/survey.js", { method: "HEAD", cache: "no-store", credentials: "same-origin" })
      .then(function () {
        reached = true;
        form.requestSubmit(submitter && submitter.form === form ? submitter : null);
      })
      .catch(function () {
        notice.textContent = "Not saved: the survey server could not be reached. Your answers " +
          "are still on this page; check your connection and press the button again.";
      });
  });
  window.addEventListener("pagehide", function () { pending(true); });
})();
